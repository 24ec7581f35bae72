// How an idle event stream learns of what it must do (src/modules/events/stream-wake-ups.ts): a
// NOTIFY of its shop's new event wakes it, with the fallback poll far away (600 s here), so only
// the notification can bring an event in time; an event behind an older transaction still running
// (the sync horizon holds it back) arrives once that transaction ends, though its end notifies
// nothing; and a revocation whose notification is lost while the LISTEN connection is down still
// ends the stream once the connection is back.
import { sql } from "drizzle-orm";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.ts";
import { createApiKey } from "../../src/modules/api-keys/api-keys.service.ts";
import { createVendor, createVendorWithKey } from "../helpers/factories.ts";
import { openSse, type SseConnection } from "../helpers/sse.ts";
import { useTestApp } from "../helpers/test-app.ts";
import { eventually } from "../helpers/webhook-receiver.ts";

const pgUrl = process.env.TEST_DATABASE_URL;
/** CONTRACT 12's bound for a stream's reaction; the fallback poll is 300 times that. */
const WITHIN_MS = 2_000;
// A database of its own on PostgreSQL: the horizon is database-wide, and the LISTEN connection
// ended below is this app's alone.
const t = useTestApp({
  ownDatabase: true,
  env: {
    EVENT_STREAM_HEARTBEAT_MS: "300000",
    EVENT_STREAM_IDLE_POLL_MS: "600000",
    EVENT_STREAM_POLL_MS: "100",
  },
});
const opened: SseConnection[] = [];
const cleanup: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const s of opened) s.close();
  for (const c of cleanup) await c();
});

async function stream(key: string): Promise<SseConnection> {
  const s = await openSse(`${t.url}/api/vendor/events/stream?types=order.created`, { "x-api-key": key });
  opened.push(s);
  expect(s.status).toBe(200);
  expect((await s.next()).comment).toBe("stream open");
  return s;
}
const newOrder = (key: string, name: string) =>
  t.api.post("/api/vendor/orders", { customerName: name, type: "SUIT" }, { key });

describe("an idle event stream", () => {
  it("is woken by its shop's new event, long before its fallback poll", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const s = await stream(key);
    const written = Date.now();
    const order = await newOrder(key, "Woken");
    expect((await s.nextEvent(WITHIN_MS)).json.data.id).toBe(order.body.id);
    expect(Date.now() - written).toBeLessThan(WITHIN_MS);
  });

  it("is not held up by another stream whose client stopped reading", async () => {
    const stuck = await createVendorWithKey(t.ctx, "Stuck");
    // A client that opens a stream and never reads it: once the socket's buffers are full, every
    // write to it waits.
    const abort = new AbortController();
    cleanup.push(async () => abort.abort());
    const res = await fetch(`${t.url}/api/vendor/events/stream?types=order.created`, {
      headers: { "x-api-key": stuck.key },
      signal: abort.signal,
    });
    expect(res.status).toBe(200);
    // 20 MB of its shop's events, far beyond what the sockets buffer.
    await t.database.db.execute(
      sql`insert into events (id, vendor_id, type, data, created_at, dispatched_at)
          select 'stuck' || g, ${stuck.vendor.id}, 'order.created',
                 jsonb_build_object('id', 'stuck' || g, 'pad', repeat('x', 2000)), now(), now()
          from generate_series(1, 10000) g`,
    );
    const { key } = await createVendorWithKey(t.ctx);
    const s = await stream(key);
    const written = Date.now();
    const order = await newOrder(key, "Not held");
    expect((await s.nextEvent(WITHIN_MS)).json.data.id).toBe(order.body.id);
    expect(Date.now() - written).toBeLessThan(WITHIN_MS);
  });

  it.skipIf(!pgUrl)(
    "gets an event held behind an older open transaction as soon as that transaction ends, though its end notifies nothing",
    async () => {
      const { key } = await createVendorWithKey(t.ctx);
      const s = await stream(key);
      const older = new pg.Client({ connectionString: t.database.directUrl });
      await older.connect();
      cleanup.push(() => older.end());
      await older.query("begin");
      await older.query("select txid_current()");
      const order = await newOrder(key, "Held");
      // Its NOTIFY came, but the event is stamped after the older transaction began: the stream
      // cannot yet know that nothing stamped before it is still to commit, so it waits.
      await expect(s.nextEvent(500)).rejects.toThrow(/no SSE message/);
      await older.query("commit");
      const ended = Date.now();
      expect((await s.nextEvent(WITHIN_MS)).json.data.id).toBe(order.body.id);
      // The stream looks again every EVENT_STREAM_POLL_MS (100 ms) until the horizon passes its
      // wake-up; the fallback poll is 600 s away.
      expect(Date.now() - ended).toBeLessThan(WITHIN_MS);
    },
  );

  it.skipIf(!pgUrl)(
    "a shop nobody streams: its events NOTIFY nobody (writers take no NOTIFY lock for them)",
    async () => {
      const heard: string[] = [];
      const listener = new pg.Client({ connectionString: t.database.directUrl });
      await listener.connect();
      cleanup.push(() => listener.end());
      listener.on("notification", (n) => heard.push(n.payload ?? ""));
      await listener.query("listen events_written");
      const quiet = await createVendorWithKey(t.ctx, "Quiet");
      const streamed = await createVendorWithKey(t.ctx, "Streamed");
      const s = await stream(streamed.key);
      await newOrder(quiet.key, "Unheard");
      await newOrder(streamed.key, "Heard");
      await s.nextEvent(WITHIN_MS);
      // Notifications arrive in commit order: the quiet shop's would have come first.
      await eventually(async () => heard.includes(streamed.vendor.id));
      expect(heard).not.toContain(quiet.vendor.id);
    },
  );

  it.skipIf(!pgUrl)(
    "ends with a key revoked while its LISTEN connection was down, once the connection is back",
    async () => {
      const vendor = await createVendor(t.ctx);
      const { row, key } = await createApiKey(t.ctx, { vendorId: vendor.id, name: "revoked in an outage" });
      const s = await stream(key);
      const admin = new pg.Client({ connectionString: t.database.directUrl });
      await admin.connect();
      cleanup.push(() => admin.end());
      // The app's LISTEN connection ends (a restart, a network cut) and the key is revoked at
      // once, by someone else: its notification goes to nobody, or reaches the new connection.
      const { rows } = await admin.query<{ ended: boolean }>(
        `select pg_terminate_backend(pid) as ended from pg_stat_activity
         where datname = current_database() and application_name = 'vendor-api-listener'`,
      );
      expect(rows.map((r) => r.ended)).toEqual([true]);
      await admin.query("update api_keys set revoked_at = now() where id = $1", [row.id]);
      const revokedAt = Date.now();
      try {
        const more = await s.next(10_000);
        throw new Error(`the stream sent ${JSON.stringify(more)} instead of ending`);
      } catch (error) {
        if ((error as Error).message !== "stream ended") throw error;
      }
      // Down, the streams check their credential every EVENT_STREAM_POLL_MS; back (250 ms later),
      // all of them once more.
      expect(Date.now() - revokedAt).toBeLessThan(WITHIN_MS);
      // And the connection is back.
      await eventually(async () => {
        const [listener] = await queryRows<{ n: number }>(
          t.database.db,
          sql`select count(*)::int as n from pg_stat_activity
              where datname = current_database() and application_name = 'vendor-api-listener'`,
        );
        return listener?.n === 1;
      });
    },
  );
});
