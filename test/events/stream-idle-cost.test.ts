// What an idle event stream costs the database (CONTRACT 12's stream item): each stream polled
// the events table every second, two statements a poll (5 idle streams: 32 → 137 transactions per
// 10 s). Streams now sleep until a NOTIFY of their shop's new event, with a fallback poll every
// EVENT_STREAM_IDLE_POLL_MS (10 s) whose sync horizon is shared by every stream of the process:
// at most 0.2 transactions a second per idle stream, and an event still arrives at once.
//
// Counted two ways over the same window, with the defaults: the statements of the app's own pool
// (`queryCount()`, exact, on both backends), and on PostgreSQL the database's committed
// transactions (pg_stat_database.xact_commit of a database of the file's own, less those of an
// equal window without streams: the app's background, the LISTEN connection's heartbeat).
import { sql } from "drizzle-orm";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/client.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { directUrlOf } from "../helpers/pooler.ts";
import { openSse, type SseConnection } from "../helpers/sse.ts";
import { useTestApp } from "../helpers/test-app.ts";

const STREAMS = 5;
/** Three fallback polls long (four fall in it at most): the measure is a rate over real time. */
const WINDOW_MS = 30_000;
/** The bound per idle stream, in transactions a second. */
const MAX_PER_STREAM_PER_S = 0.2;
const pgUrl = process.env.TEST_DATABASE_URL;

// The heartbeat only writes to the socket; the stream's polling is what is measured, at its defaults.
const t = useTestApp({ ownDatabase: true, env: { EVENT_STREAM_HEARTBEAT_MS: "60000" } });
const opened: SseConnection[] = [];
afterAll(() => {
  for (const s of opened) s.close();
});

const realTime = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The count once what came before has reached it: an idle backend reports its transactions up to
 * 10 s after they end (PostgreSQL 15+: PGSTAT_IDLE_INTERVAL, or when its connection closes), so a
 * window starts 11 s after the statements before it, not with them still to come.
 */
async function settledXactCommit(reader: pg.Client, datname: string): Promise<number> {
  await realTime(11_000);
  return xactCommit(reader, datname);
}

/** Committed transactions of the app's database so far, read from another database's session. */
async function xactCommit(reader: pg.Client, datname: string): Promise<number> {
  const { rows } = await reader.query<{ n: string }>(
    "select xact_commit::text as n from pg_stat_database where datname = $1",
    [datname],
  );
  return Number(rows[0]?.n);
}

describe("idle event streams", { timeout: 120_000 }, () => {
  it(`cost at most ${MAX_PER_STREAM_PER_S} transactions a second each, and an event still arrives at once`, async () => {
    const { key } = await createVendorWithKey(t.ctx);
    let reader: pg.Client | undefined;
    let datname = "";
    let baseline = 0;
    if (pgUrl) {
      const [row] = await queryRows<{ datname: string }>(
        t.database.db,
        sql`select current_database() as datname`,
      );
      datname = row?.datname ?? "";
      reader = new pg.Client({ connectionString: directUrlOf(pgUrl) });
      await reader.connect();
      const before = await settledXactCommit(reader, datname);
      await realTime(WINDOW_MS);
      baseline = (await xactCommit(reader, datname)) - before;
    }
    try {
      for (let i = 0; i < STREAMS; i++) {
        const s = await openSse(`${t.url}/api/vendor/events/stream?types=order.created`, {
          "x-api-key": key,
        });
        opened.push(s);
        expect((await s.next()).comment).toBe("stream open");
      }
      const commitsBefore = reader ? await settledXactCommit(reader, datname) : 0;
      const statementsBefore = t.database.queryCount();
      await realTime(WINDOW_MS);
      const statements = t.database.queryCount() - statementsBefore;
      const perStream = (n: number) => n / STREAMS / (WINDOW_MS / 1000);
      const figures: Record<string, number> = {
        statementsPerStreamPerS: perStream(statements),
      };
      if (reader) {
        const commits = (await xactCommit(reader, datname)) - commitsBefore;
        Object.assign(figures, {
          baselineCommitsPerS: baseline / (WINDOW_MS / 1000),
          commitsWithStreamsPerS: commits / (WINDOW_MS / 1000),
          commitsPerStreamPerS: perStream(commits - baseline),
        });
      }
      console.log(`idle streams (${STREAMS}, ${WINDOW_MS / 1000} s): ${JSON.stringify(figures)}`);
      if (reader) expect(figures.commitsPerStreamPerS).toBeLessThanOrEqual(MAX_PER_STREAM_PER_S);
      expect(figures.statementsPerStreamPerS).toBeLessThanOrEqual(MAX_PER_STREAM_PER_S);
    } finally {
      await reader?.end();
    }

    // Idle is not asleep: a new event reaches every stream at once, far inside the 10 s fallback
    // poll (2 s: the contract's own bound for a stream's reaction, with 8 s to spare).
    const written = Date.now();
    const order = await t.api.post("/api/vendor/orders", { customerName: "Awake", type: "SUIT" }, { key });
    for (const s of opened) expect((await s.nextEvent(2_000)).json.data.id).toBe(order.body.id);
    expect(Date.now() - written).toBeLessThan(2_000);
  });
});
