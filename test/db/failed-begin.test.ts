// A transaction whose BEGIN fails gives its pooled client back. drizzle-orm
// 0.45.4 sent BEGIN before the try/finally that releases the client, so every failed BEGIN leaked
// one, until the pool was empty and every request waited for a connection that never came. The
// BEGIN is made to fail on a private cluster frozen with SIGSTOP: the read deadline drops the
// connection under it. A pool of one connection shows a leak at the first failure.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, openDatabase } from "../../src/db/client.ts";
import { queryRows } from "../../src/db/query-rows.ts";
import {
  hasPrivatePostgres,
  type PrivatePostgres,
  privatePostgresMissing,
  startPrivatePostgres,
} from "../helpers/private-postgres.ts";

let cluster: PrivatePostgres | undefined;
let database: Database | undefined;

beforeAll(async () => {
  if (!hasPrivatePostgres) return;
  cluster = await startPrivatePostgres("failed-begin");
  database = await openDatabase(
    { kind: "pg", url: cluster.url },
    { poolSize: 1, timeouts: { connectMs: 1_000, queryMs: 300 } },
  );
}, 60_000);

afterAll(async () => {
  // With a leaked client pool.end() never settles: give it a moment, the cluster goes anyway.
  await Promise.race([database?.close(), new Promise((r) => setTimeout(r, 3_000))]);
  await cluster?.destroy();
}, 30_000);

const backendPid = async (db: Database) =>
  db.db.transaction(async (tx) => {
    const [row] = await queryRows<{ pid: number }>(tx, sql`select pg_backend_pid() as pid`);
    return Number(row?.pid);
  });

describe.skipIf(!hasPrivatePostgres)("a pool of one connection (private cluster)", () => {
  if (!hasPrivatePostgres) console.warn(privatePostgresMissing);

  it("a BEGIN that fails gives the connection back: the next transaction runs", async () => {
    const db = database as Database;
    const c = cluster as PrivatePostgres;
    await backendPid(db); // the pool's one connection, idle: the next transaction's BEGIN uses it
    c.freeze();
    try {
      await expect(db.db.transaction(async () => "never runs")).rejects.toThrow();
    } finally {
      c.thaw();
    }
    // The dropped connection left the pool; a new one serves the next transaction at once
    // (with the leak, this waited DB_CONNECT_TIMEOUT_MS and failed: the one slot was taken).
    expect(db.pool?.totalCount).toBe(0);
    const started = performance.now();
    expect(await backendPid(db)).toBeGreaterThan(0);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(db.pool?.waitingCount).toBe(0);
  });

  it("a transaction whose own work fails is rolled back and its connection reused", async () => {
    const db = database as Database;
    const before = await backendPid(db);
    await expect(
      db.db.transaction(async (tx) => {
        await tx.execute(sql`select 1`);
        throw new Error("the service refused");
      }),
    ).rejects.toThrow("the service refused");
    expect(await backendPid(db)).toBe(before);
    expect(db.pool?.totalCount).toBe(1);
  });

  it("a COMMIT that fails drops the connection rather than reuse it", async () => {
    const db = database as Database;
    const before = await backendPid(db);
    // A deferred constraint is checked at COMMIT: the commit fails, on a healthy connection.
    await expect(
      db.db.transaction(async (tx) => {
        await tx.execute(sql`create temporary table t (id int primary key deferrable initially deferred)`);
        await tx.execute(sql`insert into t values (1), (1)`);
      }),
    ).rejects.toThrow();
    expect(db.pool?.totalCount).toBe(0);
    expect(await backendPid(db)).not.toBe(before);
  });

  it("nested transactions (savepoints) still roll back only their own part", async () => {
    const db = database as Database;
    const rows = await db.db.transaction(async (tx) => {
      await tx.execute(sql`create temporary table n (v int) on commit drop`);
      await tx.execute(sql`insert into n values (1)`);
      await tx
        .transaction(async (inner) => {
          await inner.execute(sql`insert into n values (2)`);
          throw new Error("inner refused");
        })
        .catch(() => {});
      return queryRows<{ v: number }>(tx, sql`select v from n order by v`);
    });
    expect(rows).toEqual([{ v: 1 }]);
  });
});
