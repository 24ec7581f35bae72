// The client side of the query timeout (CONTRACT 9): a statement whose answer does not come within
// the limit fails with "Query read timeout" and its connection is dropped, so nothing queues
// behind it; the pool goes on with a new connection. The server is made slow with pg_sleep
// (no statement_timeout here), standing in for one that never answers. PostgreSQL only.
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type BoundedClientConfig, boundedClientClass, ReadDeadlines } from "../../src/db/bounded-client.ts";
import { createScratchDatabase, type ScratchDatabase } from "../helpers/scratch-database.ts";

const base = process.env.TEST_DATABASE_URL;
// A database of its own: a statement of seconds in the shared one would hold its sync horizon
// back (db/sync-horizon.ts) and delay every other file's updatedSince lists for as long.
let scratch: ScratchDatabase | undefined;
beforeAll(async () => {
  if (base) scratch = await createScratchDatabase(base);
});
afterAll(async () => {
  await scratch?.drop();
});
const LIMIT_MS = 300;

let pool: pg.Pool | undefined;
let deadlines: ReadDeadlines | undefined;
afterEach(async () => {
  deadlines?.stop();
  await pool?.end();
  pool = undefined;
});

function boundedPool(limitMs = LIMIT_MS): pg.Pool {
  deadlines = new ReadDeadlines(limitMs);
  const config: pg.PoolConfig & BoundedClientConfig = {
    Client: boundedClientClass(pg) as unknown as typeof pg.Client,
    readDeadlines: deadlines,
    connectionString: scratch?.url,
    max: 2,
  };
  pool = new pg.Pool(config);
  pool.on("error", () => {});
  return pool;
}

const backendPid = async (p: pg.Pool | pg.PoolClient) =>
  Number((await p.query<{ pid: number }>("select pg_backend_pid() as pid")).rows[0]?.pid);

describe.skipIf(!base)("read deadlines on pooled PostgreSQL clients", () => {
  it("a statement unanswered past the limit fails with Query read timeout, within one check of it", async () => {
    const p = boundedPool();
    await p.query("select 1"); // connected: only the statement is timed
    const started = performance.now();
    await expect(p.query("select pg_sleep(5)")).rejects.toThrow("Query read timeout");
    const took = performance.now() - started;
    expect(took).toBeGreaterThanOrEqual(LIMIT_MS - 5);
    expect(took).toBeLessThan(LIMIT_MS + (deadlines as ReadDeadlines).checkEveryMs + 1_000);
  });

  it("drops the timed-out connection; the pool answers the next statement on a new one", async () => {
    const p = boundedPool();
    const client = await p.connect();
    const first = await backendPid(client);
    client.release();
    await expect(p.query("select pg_sleep(5)")).rejects.toThrow("Query read timeout");
    expect((await p.query("select 2 as n")).rows[0]?.n).toBe(2);
    const client2 = await p.connect();
    const second = await backendPid(client2);
    client2.release();
    expect(second).not.toBe(first);
    expect(p.totalCount).toBeLessThanOrEqual(1);
  });

  it("times statements of a checked-out client too (a transaction's, in promise form)", async () => {
    const p = boundedPool();
    const client = await p.connect();
    await client.query("begin");
    await expect(client.query("select pg_sleep(5)")).rejects.toThrow("Query read timeout");
    // The connection is gone: the ROLLBACK fails at once instead of waiting a second time.
    const started = performance.now();
    await expect(client.query("rollback")).rejects.toThrow();
    expect(performance.now() - started).toBeLessThan(LIMIT_MS);
    client.release(true);
  });

  it("a connection that keeps answering is never cut, however long the pool is busy", async () => {
    const p = boundedPool();
    const started = performance.now();
    // Statements of 100 ms back to back on one connection for ~3x the limit: each answer is progress.
    const client = await p.connect();
    while (performance.now() - started < 3 * LIMIT_MS) await client.query("select pg_sleep(0.1)");
    client.release();
    expect((await p.query("select 3 as n")).rows[0]?.n).toBe(3);
  });

  it("watches nothing once every answer came: an idle pool keeps no timer", async () => {
    const p = boundedPool();
    await Promise.all([p.query("select pg_sleep(0.05)"), p.query("select 1")]);
    const d = deadlines as ReadDeadlines;
    expect(d.watching).toBe(0);
    await new Promise((r) => setTimeout(r, d.checkEveryMs * 2 + 20));
    expect(d.ticking).toBe(false);
  });
});
