// One way to reach the database whatever backs it: embedded PGlite under DATA_DIR (zero setup)
// or PostgreSQL through `pg` when DATABASE_URL is set. Both become the same Drizzle type.
import fs from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import type { ExtractTablesWithRelations, SQL } from "drizzle-orm";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import pg from "pg";
import { acquireDirectoryLock, type DirectoryLock } from "./data-dir-lock.ts";
import * as schema from "./schema/index.ts";

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** Repository functions take an executor: the database, or the transaction a service opened. */
export type Executor = Db | Tx;

export type DbTarget = { kind: "pglite"; dataDir: string | undefined } | { kind: "pg"; url: string };

export interface Database {
  readonly kind: "pglite" | "pg";
  readonly db: Db;
  /** Statements sent since start; tests use it to prove lists are not N+1. */
  readonly queryCount: () => number;
  /** Run `fn` with a notification callback for `channel` (NOTIFY after commit). */
  readonly listen: (channel: string, fn: (payload: string) => void) => Promise<() => Promise<void>>;
  readonly ping: () => Promise<void>;
  readonly close: () => Promise<void>;
  /** Only for PGlite: the raw instance, used by the migrator. */
  readonly pglite?: PGlite;
  readonly pool?: pg.Pool;
}

export async function openDatabase(target: DbTarget, options: { poolSize?: number } = {}): Promise<Database> {
  let count = 0;
  const logger = { logQuery: () => void count++ };

  if (target.kind === "pg") {
    const pool = new pg.Pool({
      connectionString: target.url,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: 5_000,
    });
    // An idle client losing its connection must not crash the process; the pool replaces it.
    pool.on("error", () => {});
    const db = drizzlePg({ client: pool, schema, logger }) as unknown as Db;
    return {
      kind: "pg",
      db,
      pool,
      queryCount: () => count,
      async listen(channel, fn) {
        const client = new pg.Client({ connectionString: target.url });
        client.on("error", () => {});
        await client.connect();
        client.on("notification", (msg) => {
          if (msg.channel === channel) fn(msg.payload ?? "");
        });
        await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
        return async () => {
          await client.end().catch(() => {});
        };
      },
      async ping() {
        await pool.query("select 1");
      },
      async close() {
        await pool.end();
      },
    };
  }

  let lock: DirectoryLock | undefined;
  let client: PGlite;
  if (target.dataDir) {
    fs.mkdirSync(target.dataDir, { recursive: true });
    // Two processes on one PGlite directory corrupt it silently (STACK-NOTES): refuse instead.
    lock = acquireDirectoryLock(target.dataDir);
    try {
      client = await PGlite.create(path.join(target.dataDir, "pglite"));
    } catch (err) {
      lock.release();
      throw err;
    }
  } else {
    client = await PGlite.create();
  }
  const db = drizzlePglite({ client, schema, logger }) as unknown as Db;
  return {
    kind: "pglite",
    db,
    pglite: client,
    queryCount: () => count,
    async listen(channel, fn) {
      const unsubscribe = await client.listen(channel, fn);
      return async () => {
        await unsubscribe();
      };
    },
    async ping() {
      await client.query("select 1");
    },
    async close() {
      await client.close();
      lock?.release();
    },
  };
}

/** Rows of a raw statement, whichever driver ran it. */
export async function queryRows<T>(executor: Executor, statement: SQL): Promise<T[]> {
  const result = (await executor.execute(statement)) as unknown as { rows: T[] };
  return result.rows;
}

export function targetFromConfig(config: { databaseUrl: string | undefined; dataDir: string }): DbTarget {
  return config.databaseUrl
    ? { kind: "pg", url: config.databaseUrl }
    : { kind: "pglite", dataDir: config.dataDir };
}
