// Migrations tested on data made before them: a database migrated up to a tag, rows written as the
// older schema held them, then the rest of the migrations. PGlite, or PostgreSQL when
// TEST_DATABASE_URL is set (a scratch database of the test's own).
import fs from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import pg from "pg";
import { type Database, openDatabase, pgliteDatabase } from "../../src/db/client.ts";
import { pgTarget } from "./pooler.ts";
import { repoRoot } from "./processes.ts";
import { createScratchDatabase } from "./scratch-database.ts";
import { tempDir } from "./temp-dir.ts";

export const MIGRATIONS = path.join(repoRoot, "migrations");

/** A copy of the migrations folder that stops before `tag`. */
export function migrationsBefore(tag: string): string {
  return migrationsUpTo(tag, 0);
}

/**
 * A copy of the migrations folder that ends with `tag`: the schema a release that shipped it
 * ran, for data written by code of that release that no migration since may break.
 */
export function migrationsThrough(tag: string): string {
  return migrationsUpTo(tag, 1);
}

function migrationsUpTo(tag: string, include: 0 | 1): string {
  const dir = tempDir("migrations-before");
  fs.mkdirSync(path.join(dir, "meta"));
  const journal = JSON.parse(fs.readFileSync(path.join(MIGRATIONS, "meta", "_journal.json"), "utf8"));
  const stop = journal.entries.findIndex((e: { tag: string }) => e.tag === tag) + include;
  if (stop <= include) throw new Error(`no migration ${tag}${include ? "" : " after the first"}`);
  journal.entries = journal.entries.slice(0, stop);
  fs.writeFileSync(path.join(dir, "meta", "_journal.json"), JSON.stringify(journal));
  for (const e of journal.entries) {
    fs.copyFileSync(path.join(MIGRATIONS, `${e.tag}.sql`), path.join(dir, `${e.tag}.sql`));
  }
  return dir;
}

export interface MigratingDatabase {
  query(sql: string, params?: unknown[]): Promise<Array<Record<string, unknown>>>;
  migrate(folder: string): Promise<void>;
  /** The same database for an app (`startTestApp({ database })`), once fully migrated. */
  appDatabase(): Promise<Database>;
}

/** An empty database; what closes and drops it is pushed on `cleanup`. */
export async function openMigratingDatabase(
  cleanup: Array<() => Promise<void> | void>,
): Promise<MigratingDatabase> {
  const base = process.env.TEST_DATABASE_URL;
  if (base) {
    const scratch = await createScratchDatabase(base);
    const client = new pg.Client({ connectionString: scratch.url });
    await client.connect();
    cleanup.push(async () => {
      await client.end();
      await scratch.drop();
    });
    return {
      query: async (sql, params) => (await client.query(sql, params as unknown[])).rows,
      migrate: (folder) =>
        migratePg(drizzlePg({ client: client as unknown as pg.Pool }), { migrationsFolder: folder }),
      appDatabase: () => openDatabase(pgTarget(scratch.url)),
    };
  }
  const pglite = new PGlite();
  cleanup.push(() => pglite.close());
  return {
    query: async (sql, params) =>
      (await pglite.query<Record<string, unknown>>(sql, params as unknown[])).rows,
    migrate: (folder) => migratePglite(drizzlePglite({ client: pglite }), { migrationsFolder: folder }),
    // Closed by `cleanup`, after the app that borrows it.
    appDatabase: async () => pgliteDatabase(pglite, async () => {}),
  };
}
