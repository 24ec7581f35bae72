// Migration 0017 (CONTRACT 10) on a shop made before members existed: the shop's e-mail and
// password become its first owner member, and its dashboard sessions and reset links become that
// member's, so the owner stays signed in and signs in as before. PGlite, or PostgreSQL when
// TEST_DATABASE_URL is set (a scratch database of the file's own).
import fs from "node:fs";
import { afterAll, expect, it } from "vitest";
import { hashPassword, verifyPassword } from "../../src/lib/passwords.ts";
import { MIGRATIONS, migrationsBefore, openMigratingDatabase } from "../helpers/migrations.ts";

const BEFORE = "0019_members";

const cleanup: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c();
});

it("a shop made before members signs in as its first owner, with its sessions and reset links", async () => {
  const db = await openMigratingDatabase(cleanup);
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
  // A sandbox (CONTRACT 11) never signed in: it gets no member.
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
