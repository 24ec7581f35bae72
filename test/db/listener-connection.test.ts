// The process's one LISTEN connection (src/db/pg-listener.ts) sends one statement at a time:
// subscriptions, lock holders and the heartbeat all share it. pg queues a query sent while another
// runs but warns that pg@9 will refuse it (a benchmark's shutdown printed that warning), and a
// heartbeat's lock attempt overlapping holdLock's took the same session lock twice, so the one
// unlock at release left it held and other processes saw its holder alive. PostgreSQL only.
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createPgListener, LISTENER_APPLICATION_NAME } from "../../src/db/pg-listener.ts";

const url = process.env.TEST_DATABASE_URL;

/** The listener connection's statements in flight at once, at most, while `spying`. */
const inFlight = { now: 0, most: 0 };
const originalQuery = pg.Client.prototype.query;
function spyOnListenerStatements() {
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const params = (this as unknown as { connectionParameters: { application_name?: string } })
      .connectionParameters;
    const result = (originalQuery as (...a: unknown[]) => unknown).apply(this, args);
    if (params.application_name !== LISTENER_APPLICATION_NAME || !(result instanceof Promise)) return result;
    inFlight.now++;
    inFlight.most = Math.max(inFlight.most, inFlight.now);
    const done = () => {
      inFlight.now--;
    };
    result.then(done, done);
    return result;
  } as typeof pg.Client.prototype.query;
}
afterAll(() => {
  pg.Client.prototype.query = originalQuery;
});

describe.skipIf(!url)("the LISTEN connection", () => {
  it("sends one statement at a time, and a lock taken beside heartbeats is released by its one unlock", async () => {
    spyOnListenerStatements();
    // A heartbeat every millisecond: it runs beside every subscription and lock below.
    const listener = createPgListener(url as string, { heartbeatMs: 1, deadlineMs: 4_000 });
    const keepOpen = await listener.listen("test_listener_keep_open", { onNotify() {} });
    const names = Array.from({ length: 40 }, (_, i) => `test-listener-lock-${process.pid}-${i}`);
    for (let round = 0; round < 4; round++) {
      const batch = names.slice(round * 10, round * 10 + 10);
      const [releases, unlistens] = await Promise.all([
        Promise.all(batch.map((name) => listener.holdLock(name))),
        Promise.all(
          batch.map((name) => listener.listen(`c_${name.replaceAll("-", "_")}`, { onNotify() {} })),
        ),
      ]);
      await Promise.all([...releases, ...unlistens].map((stop) => stop()));
    }

    const other = new pg.Client({ connectionString: url });
    await other.connect();
    try {
      for (const name of names) {
        const taken = await other.query<{ ok: boolean }>(
          "select pg_try_advisory_lock(hashtextextended($1, 0)) as ok",
          [name],
        );
        expect(taken.rows[0]?.ok, name).toBe(true);
      }
    } finally {
      await other.end();
    }
    await keepOpen();
    expect(inFlight.most).toBe(1);
  });
});
