import { fileURLToPath } from "node:url";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import type pg from "pg";
import type { Database } from "./client.ts";
import { loadPgDriver } from "./pg-driver.ts";

const migrationsFolder = fileURLToPath(new URL("../../migrations", import.meta.url));
// Any fixed number: every process that migrates one PostgreSQL database takes this lock, so API
// and worker processes starting side by side apply each migration once.
const MIGRATION_LOCK_KEY = 7_406_211;

export async function runMigrations(database: Database): Promise<void> {
  if (database.kind === "pglite" && database.pglite) {
    await migratePglite(drizzlePglite({ client: database.pglite }), { migrationsFolder });
    return;
  }
  if (!database.pool) throw new Error("runMigrations: no pool");
  // A connection of its own, without the pool's statement timeouts: a migration (or waiting for
  // another process's) may take longer than any request should. To PostgreSQL itself, never
  // through a transaction pooler: the advisory lock belongs to the session.
  const connectionString =
    database.directUrl ?? (database.pool.options as { connectionString?: string }).connectionString;
  const { pg, drizzle: drizzlePg } = await loadPgDriver();
  const { migrate: migratePg } = await import("drizzle-orm/node-postgres/migrator");
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
    await migratePg(drizzlePg({ client: client as unknown as pg.Pool }), { migrationsFolder });
  } finally {
    await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]).catch(() => {});
    await client.end().catch(() => {});
  }
}
