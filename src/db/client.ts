// One way to reach the database whatever backs it: embedded PGlite under DATA_DIR (zero setup)
// or PostgreSQL through `pg` when DATABASE_URL is set. Both become the same Drizzle type.
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import type { ExtractTablesWithRelations } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import type pg from "pg";
import type { DatabasePoolMode } from "../config.ts";
import { DatabaseAvailability } from "./availability.ts";
import { type BoundedClientConfig, boundedClientClass, ReadDeadlines } from "./bounded-client.ts";
import { acquireDirectoryLock, type DirectoryLock } from "./data-dir-lock.ts";
import { restrictDataDir } from "./data-dir-permissions.ts";
import { type DiskSpaceGuard, watchDiskSpace } from "./disk-space.ts";
import { loadPgDriver } from "./pg-driver.ts";
import { createPgListener, DEFAULT_LISTENER_TIMINGS } from "./pg-listener.ts";
import { initdbInChildProcess, needsInitdb } from "./pglite-first-run.ts";
import { releaseClientsOfFailedTransactions } from "./pooled-transaction.ts";
import * as schema from "./schema/index.ts";

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** Repository functions take an executor: the database, or the transaction a service opened. */
export type Executor = Db | Tx;

export type DbTarget =
  | { kind: "pglite"; dataDir: string | undefined }
  | {
      kind: "pg";
      /** What the pool connects to: PostgreSQL, or a pooler in front of it. */
      url: string;
      /** PostgreSQL itself, for LISTEN and migrations (a session of their own); defaults to `url`. */
      directUrl?: string | undefined;
      /** `transaction`: `url` is a transaction pooler (see TRANSACTION_POOLING below). */
      poolMode?: DatabasePoolMode | undefined;
    };

export interface Database {
  readonly kind: "pglite" | "pg";
  readonly db: Db;
  /** Statements sent since start; tests use it to prove lists are not N+1. */
  readonly queryCount: () => number;
  /**
   * Calls `fn` with each notification on `channel` (NOTIFY, delivered on commit) until the returned
   * function is called. On PostgreSQL the LISTEN connection can drop: `onLost` is then called, and
   * `fn("")` once it is back (what was sent meanwhile is lost). PGlite's notifications are
   * in-process and never lost.
   */
  readonly listen: (
    channel: string,
    fn: (payload: string) => void,
    onLost?: () => void,
  ) => Promise<() => Promise<void>>;
  /**
   * Holds a session-level advisory lock named `name` for as long as this process lives (or until
   * the returned function is called): what other processes read, in pg_locks, as proof that it is
   * alive. PostgreSQL: on the LISTEN connection's session, taken again after it reconnects.
   * PGlite: on its one session (a data directory has one process).
   */
  readonly holdLock: (name: string) => Promise<() => Promise<void>>;
  readonly ping: () => Promise<void>;
  /** Whether the database is reachable as this process last saw it (one log line per outage). */
  readonly availability: DatabaseAvailability;
  readonly close: () => Promise<void>;
  /** PGlite in a DATA_DIR: the free space under it (writes are refused below the threshold). */
  readonly diskSpace?: DiskSpaceGuard;
  /** Only for PGlite: the raw instance, used by the migrator. */
  readonly pglite?: PGlite;
  readonly pool?: pg.Pool;
  /** Only for PostgreSQL: PostgreSQL itself, for work that needs a session (migrations). */
  readonly directUrl?: string;
}

export { LISTENER_APPLICATION_NAME } from "./pg-listener.ts";

/**
 * Bounds on waiting for PostgreSQL (CONTRACT 9: a frozen or partitioned database answers 503
 * within seconds, never hangs a request). The defaults keep the worst request, a transaction whose
 * BEGIN times out, well under 10 s: the timed-out connection is dropped, so its ROLLBACK fails
 * at once instead of waiting a second time.
 */
export interface DatabaseTimeouts {
  /** Waiting for a pooled connection, or for a new one to be established. */
  connectMs: number;
  /** Waiting for any statement's answer (client side: it also covers a stopped server). */
  queryMs: number;
}
/** Connections per process's pool unless DATABASE_POOL_SIZE says otherwise (README: connections). */
export const DEFAULT_POOL_SIZE = 10;
export const DEFAULT_TIMEOUTS: DatabaseTimeouts = { connectMs: 3_000, queryMs: 4_000 };

/**
 * What the pool leaves out when `url` is a transaction pooler (PgBouncer's pool_mode=transaction,
 * DATABASE_POOL_MODE=transaction), where each transaction may run on another server connection:
 * - named prepared statements (db/prepared.ts): the pool's clients send every statement unnamed
 *   (BoundedClient), parsed and planned by PostgreSQL each time; PgBouncer 1.18 would run
 *   a statement prepared on one server connection against another, which has none or another;
 * - session settings sent at connection start (statement_timeout,
 *   idle_in_transaction_session_timeout, the worker's plan_cache_mode): PgBouncer refuses unknown
 *   startup parameters. Set the server side's timeouts in the pooler instead (PgBouncer's
 *   connect_query, or ALTER ROLE ... SET); the client side's read deadline stays.
 * What needs a session goes to `directUrl`: LISTEN (pg-listener.ts) and the migrations' advisory
 * lock (migrate.ts). Advisory locks and settings scoped to a transaction (the idempotency key's
 * pg_try_advisory_xact_lock, the claim's set_config(..., true)) work through either, and the
 * service makes no temporary tables.
 */

export async function openDatabase(
  target: DbTarget,
  options: {
    /** PostgreSQL: connections in the pool (DATABASE_POOL_SIZE); one more is the LISTEN connection. */
    poolSize?: number;
    timeouts?: DatabaseTimeouts;
    /**
     * PostgreSQL only: prepared statements (db/prepared.ts) get one generic plan per connection
     * from their first execution, instead of PostgreSQL's default of five custom plans before it
     * weighs a generic one. For a process whose prepared statements are all written for generic
     * plans: the worker's (the dispatcher's claim is ~5 ms to plan, and a short drain over new
     * pooled connections spent 20 % of its PostgreSQL CPU planning). Not the API's: with it
     * pool-wide, the order list fell to 0.13× the baseline in the last two of six rounds of
     * `npm run bench`, after the writes of the rounds before (bench/history/2026-11.md).
     */
    genericPlans?: boolean;
    /** PGlite in a DATA_DIR: free bytes under which writes are refused (DISK_MIN_FREE_MB); 0: never. */
    minFreeBytes?: number;
    /**
     * PostgreSQL: how often the LISTEN connection proves it is alive (pg-listener.ts); it must
     * answer within the query timeout, or it is given up and reopened.
     */
    listenHeartbeatMs?: number;
    /** Steps of a start worth a line (creating a new PGlite database takes seconds). */
    log?: (fields: object, message: string) => void;
  } = {},
): Promise<Database> {
  let count = 0;
  const logger = { logQuery: () => void count++ };

  if (target.kind === "pg") {
    const { pg, drizzle: drizzlePg, NodePgSession } = await loadPgDriver();
    const timeouts = options.timeouts ?? DEFAULT_TIMEOUTS;
    // The client side of the query timeout (a server that never answers); statement_timeout below
    // is the server side (a statement that runs too long).
    const readDeadlines = new ReadDeadlines(timeouts.queryMs);
    const session = target.poolMode !== "transaction";
    const config: pg.PoolConfig & BoundedClientConfig = {
      Client: boundedClientClass(pg) as unknown as typeof pg.Client,
      readDeadlines,
      unnamedStatements: !session,
      connectionString: target.url,
      max: options.poolSize ?? DEFAULT_POOL_SIZE,
      connectionTimeoutMillis: timeouts.connectMs,
      // The server gives up too (when it runs at all), and abandoned transactions end.
      ...(session
        ? { statement_timeout: timeouts.queryMs, idle_in_transaction_session_timeout: 60_000 }
        : {}),
      // A silent peer (partition, frozen host) is noticed on idle connections too.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      ...(options.genericPlans && session ? { options: "-c plan_cache_mode=force_generic_plan" } : {}),
    };
    const pool = new pg.Pool(config);
    // An idle client losing its connection must not crash the process; the pool replaces it.
    pool.on("error", () => {});
    const availability = new DatabaseAvailability();
    // A new connection is the database answering again after an outage (the connections of
    // before it were dropped with it).
    pool.on("connect", () => availability.answered());
    const db = drizzlePg({ client: pool, schema, logger }) as unknown as Db;
    // drizzle leaks the client of a transaction whose BEGIN fails: check it out ourselves.
    releaseClientsOfFailedTransactions(db, pool, NodePgSession);
    const directUrl = target.directUrl ?? target.url;
    const listener = createPgListener(directUrl, {
      heartbeatMs: options.listenHeartbeatMs ?? DEFAULT_LISTENER_TIMINGS.heartbeatMs,
      deadlineMs: timeouts.queryMs,
    });
    return {
      kind: "pg",
      db,
      pool,
      directUrl,
      queryCount: () => count,
      listen: (channel, fn, onLost) => listener.listen(channel, { onNotify: fn, onLost }),
      holdLock: (name) => listener.holdLock(name),
      async ping() {
        await pool.query("select 1");
        availability.answered();
      },
      availability,
      async close() {
        readDeadlines.stop();
        await pool.end();
      },
    };
  }

  let lock: DirectoryLock | undefined;
  let client: PGlite;
  if (target.dataDir) {
    // 0700/0600 whatever the umask: the files hold every shop's data (data-dir-permissions.ts).
    restrictDataDir(target.dataDir);
    // Two processes can open one PGlite directory with no error and corrupt it: refuse instead.
    lock = acquireDirectoryLock(target.dataDir);
    try {
      const pgDir = path.join(target.dataDir, "pglite");
      if (needsInitdb(pgDir)) {
        const started = performance.now();
        options.log?.(
          { dataDir: target.dataDir },
          "creating the embedded database (first start on this DATA_DIR)",
        );
        await initdbInChildProcess(pgDir, PGLITE_OPTIONS);
        options.log?.({ ms: Math.round(performance.now() - started) }, "embedded database created");
      }
      client = await PGlite.create(pgDir, PGLITE_OPTIONS);
      keepFilesToOwner(client, target.dataDir);
    } catch (err) {
      lock.release();
      throw err;
    }
  } else {
    client = await PGlite.create(PGLITE_OPTIONS);
  }
  let diskSpace: DiskSpaceGuard | undefined;
  if (target.dataDir && options.minFreeBytes) {
    diskSpace = watchDiskSpace({ dir: target.dataDir, minFreeBytes: options.minFreeBytes });
    await diskSpace.check();
  }
  return pgliteDatabase(
    client,
    async () => {
      diskSpace?.stop();
      await client.close();
      lock?.release();
    },
    diskSpace,
  );
}

/**
 * PGlite applies no umask: its file system (emscripten's) gives each file it creates exactly the
 * mode PostgreSQL asked for, 0666 for a new database's files and for what PostgreSQL opens with
 * fopen (pg_internal.init), whatever the process's umask. So what is there once it has opened is
 * tightened (data-dir-permissions.ts), and its chmod is masked to the owner for what it writes
 * later. test/ops/data-dir-permissions.test.ts holds both.
 */
function keepFilesToOwner(client: PGlite, dataDir: string): void {
  restrictDataDir(dataDir);
  type Chmod = (path: string, mode: number, dontFollow?: boolean) => void;
  const fileSystem = (client as unknown as { mod?: { FS?: { chmod: Chmod } } }).mod?.FS;
  if (!fileSystem) throw new Error("PGlite's file system is out of reach: its files' modes cannot be kept");
  const chmod: Chmod = fileSystem.chmod.bind(fileSystem);
  fileSystem.chmod = (path, mode, dontFollow) => chmod(path, mode & ~0o077, dontFollow);
}

/**
 * The embedded PostgreSQL's memory settings (docs/decisions/0014). PGlite's WebAssembly memory
 * only grows, and PostgreSQL zeroes its shared buffers when it opens: initdb's 128 MB of
 * shared_buffers were resident from the first second. 16 MB holds a shop's hot pages; a page that
 * does not fit is read back from the data directory's files, through the host's page cache, as
 * PostgreSQL reads on any server. maintenance_work_mem bounds what an index build in a migration
 * takes (and keeps). The rest are PGlite's own start parameters, kept.
 */
export const PGLITE_OPTIONS = {
  startParams: [...PGlite.defaultStartParams, "-c", "shared_buffers=16MB", "-c", "maintenance_work_mem=16MB"],
};

/**
 * A Database over a PGlite instance that is already open; `close` says what closing it means.
 * Tests use it to lend one migrated instance to many apps (a fresh PGlite costs ~4 s).
 */
export function pgliteDatabase(
  client: PGlite,
  close: () => Promise<void>,
  diskSpace?: DiskSpaceGuard,
): Database {
  let count = 0;
  const logger = { logQuery: () => void count++ };
  const db = drizzlePglite({ client, schema, logger }) as unknown as Db;
  const availability = new DatabaseAvailability();
  return {
    kind: "pglite",
    db,
    pglite: client,
    ...(diskSpace ? { diskSpace } : {}),
    queryCount: () => count,
    async listen(channel, fn) {
      const unsubscribe = await client.listen(channel, fn);
      return async () => {
        await unsubscribe();
      };
    },
    async holdLock(name) {
      await client.query("select pg_advisory_lock(hashtextextended($1, 0))", [name]);
      let released = false;
      return async () => {
        if (released) return;
        released = true;
        await client.query("select pg_advisory_unlock(hashtextextended($1, 0))", [name]).catch(() => {});
      };
    },
    async ping() {
      await client.query("select 1");
      availability.answered();
    },
    availability,
    close,
  };
}

export function targetFromConfig(config: {
  databaseUrl: string | undefined;
  databaseDirectUrl?: string | undefined;
  databasePoolMode?: DatabasePoolMode;
  dataDir: string;
}): DbTarget {
  return config.databaseUrl
    ? {
        kind: "pg",
        url: config.databaseUrl,
        directUrl: config.databaseDirectUrl,
        poolMode: config.databasePoolMode,
      }
    : { kind: "pglite", dataDir: config.dataDir };
}
