// Migration 0017 (issue 29.1) on a shop made before members existed: the shop's e-mail and
// password become its first owner member, and its dashboard sessions and reset links become that
// member's, so the owner stays signed in and signs in as before. PGlite, or PostgreSQL when
// TEST_DATABASE_URL is set (a scratch database of the file's own).
import fs from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import pg from "pg";
import { afterAll, expect, it } from "vitest";
import { hashPassword, verifyPassword } from "../../src/lib/passwords.ts";
import { repoRoot } from "../helpers/processes.ts";
import { createScratchDatabase, type ScratchDatabase } from "../helpers/scratch-database.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const MIGRATIONS = path.join(repoRoot, "migrations");
const BEFORE = "0019_members";

/** A copy of the migrations folder that stops before `tag`. */
function migrationsBefore(tag: string): string {
  const dir = tempDir("migrations-before");
  fs.mkdirSync(path.join(dir, "meta"));
  const journal = JSON.parse(fs.readFileSync(path.join(MIGRATIONS, "meta", "_journal.json"), "utf8"));
  const stop = journal.entries.findIndex((e: { tag: string }) => e.tag === tag);
  expect(stop).toBeGreaterThan(0);
  journal.entries = journal.entries.slice(0, stop);
  fs.writeFileSync(path.join(dir, "meta", "_journal.json"), JSON.stringify(journal));
  for (const e of journal.entries) {
    fs.copyFileSync(path.join(MIGRATIONS, `${e.tag}.sql`), path.join(dir, `${e.tag}.sql`));
  }
  return dir;
}

const cleanup: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c();
});

interface Db {
  query(sql: string, params?: unknown[]): Promise<Array<Record<string, unknown>>>;
  migrate(folder: string): Promise<void>;
}

async function openDb(): Promise<Db> {
  const base = process.env.TEST_DATABASE_URL;
  if (base) {
    const scratch: ScratchDatabase = await createScratchDatabase(base);
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
    };
  }
  const pglite = new PGlite();
  cleanup.push(() => pglite.close());
  return {
    query: async (sql, params) =>
      (await pglite.query<Record<string, unknown>>(sql, params as unknown[])).rows,
    migrate: (folder) => migratePglite(drizzlePglite({ client: pglite }), { migrationsFolder: folder }),
  };
}

it("a shop made before members signs in as its first owner, with its sessions and reset links", async () => {
  const db = await openDb();
  const before = migrationsBefore(BEFORE);
  cleanup.push(() => fs.rmSync(before, { recursive: true, force: true }));
  await db.migrate(before);

  const hash = await hashPassword("the shop's old passphrase", { N: 2 ** 11 });
  const at = "2026-01-02T03:04:05.000Z";
  await db.query(
    `insert into vendors (id, name, email, password_hash, created_at, updated_at)
     values ('shopoldaaaaaaaaaaaaaaaaa', 'Old Shop', 'Owner@Old.example', $1, $2, $2),
            ('shopotheraaaaaaaaaaaaaaa', 'Other Shop', 'other@old.example', $1, $2, $2)`,
    [hash, at],
  );
  // A sandbox (issue 28.5) never signed in: it gets no member.
  await db.query(
    `insert into vendors (id, name, email, password_hash, sandbox_of, created_at, updated_at)
     values ('sandboxaaaaaaaaaaaaaaaaa', 'Old Shop', 'sandbox@x.invalid', 'sandbox:no-password', 'shopoldaaaaaaaaaaaaaaaaa', $1, $1)`,
    [at],
  );
  await db.query(
    `insert into dashboard_sessions (id, token_hash, vendor_id, created_at, expires_at)
     values ('sessionaaaaaaaaaaaaaaaaa', 'session-hash', 'shopoldaaaaaaaaaaaaaaaaa', $1, '2099-01-01T00:00:00Z')`,
    [at],
  );
  await db.query(
    `insert into password_resets (id, vendor_id, token_hash, created_at, expires_at)
     values ('resetaaaaaaaaaaaaaaaaaaa', 'shopoldaaaaaaaaaaaaaaaaa', 'reset-hash', $1, '2099-01-01T00:00:00Z')`,
    [at],
  );

  await db.migrate(MIGRATIONS);

  const members = await db.query("select * from members order by vendor_id");
  expect(members.map((m) => [m.id, m.vendor_id, m.email, m.role])).toEqual([
    ["shopoldaaaaaaaaaaaaaaaaa", "shopoldaaaaaaaaaaaaaaaaa", "Owner@Old.example", "owner"],
    ["shopotheraaaaaaaaaaaaaaa", "shopotheraaaaaaaaaaaaaaa", "other@old.example", "owner"],
  ]);
  expect(await verifyPassword("the shop's old passphrase", String(members[0]?.password_hash))).toBe(true);
  const [session] = await db.query("select member_id from dashboard_sessions");
  expect(session?.member_id).toBe("shopoldaaaaaaaaaaaaaaaaa");
  const [reset] = await db.query("select member_id from password_resets");
  expect(reset?.member_id).toBe("shopoldaaaaaaaaaaaaaaaaa");
  const columns = await db.query(
    "select column_name from information_schema.columns where table_name = 'vendors' and column_name = 'password_hash'",
  );
  expect(columns).toEqual([]);
}, 120_000);
