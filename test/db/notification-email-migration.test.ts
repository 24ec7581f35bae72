// Migration 0025 on shops made before the notification e-mail existed: a shop whose founding
// owner is still an owner keeps mailing them (the column stays null: the sign-in e-mail), and a
// shop whose founder was already removed or demoted has its mail moved to its first remaining
// owner, with the notice time set for Settings. PGlite, or PostgreSQL when TEST_DATABASE_URL is
// set (a scratch database of the file's own).
import fs from "node:fs";
import { afterAll, expect, it } from "vitest";
import { MIGRATIONS, migrationsBefore, openMigratingDatabase } from "../helpers/migrations.ts";

const BEFORE = "0025_notification_email";

const cleanup: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c();
});

it("a shop whose founding owner already left mails its first remaining owner; the others are unchanged", async () => {
  const db = await openMigratingDatabase(cleanup);
  const before = migrationsBefore(BEFORE);
  cleanup.push(() => fs.rmSync(before, { recursive: true, force: true }));
  await db.migrate(before);

  const at = "2026-01-02T03:04:05.000Z";
  const later = "2026-02-02T03:04:05.000Z";
  await db.query(
    `insert into vendors (id, name, email, created_at, updated_at) values
       ('shopstayaaaaaaaaaaaaaaaa', 'Stays', 'Founder@Stays.example', $1, $1),
       ('shopgoneaaaaaaaaaaaaaaaa', 'Gone', 'founder@gone.example', $1, $1),
       ('shopdemoaaaaaaaaaaaaaaaa', 'Demoted', 'founder@demoted.example', $1, $1)`,
    [at],
  );
  await db.query(
    `insert into vendors (id, name, email, sandbox_of, created_at, updated_at)
     values ('sandboxaaaaaaaaaaaaaaaaa', 'Gone', 'sandbox@x.invalid', 'shopgoneaaaaaaaaaaaaaaaa', $1, $1)`,
    [at],
  );
  const member = (id: string, vendor: string, email: string, role: string, created: string) =>
    db.query(
      `insert into members (id, vendor_id, email, name, password_hash, role, created_at, updated_at)
       values ($1, $2, $3, '', 'x', $4, $5, $5)`,
      [id, vendor, email, role, created],
    );
  // Stays: the founder (sign-in e-mail in another case) is still an owner, beside a newer one.
  await member("shopstayaaaaaaaaaaaaaaaa", "shopstayaaaaaaaaaaaaaaaa", "founder@stays.example", "owner", at);
  await member("stayotheraaaaaaaaaaaaaaa", "shopstayaaaaaaaaaaaaaaaa", "other@stays.example", "owner", later);
  // Gone: the founder was removed; two owners remain, the older one gets the mail.
  await member("goneseconda", "shopgoneaaaaaaaaaaaaaaaa", "second@gone.example", "owner", at);
  await member("gonethirdaa", "shopgoneaaaaaaaaaaaaaaaa", "third@gone.example", "owner", later);
  // Demoted: the founder is staff now.
  await member(
    "shopdemoaaaaaaaaaaaaaaaa",
    "shopdemoaaaaaaaaaaaaaaaa",
    "founder@demoted.example",
    "staff",
    at,
  );
  await member("demoownera", "shopdemoaaaaaaaaaaaaaaaa", "owner@demoted.example", "owner", later);

  await db.migrate(MIGRATIONS);

  const rows = await db.query(
    "select id, notification_email, notification_email_moved_at is not null as moved from vendors order by id",
  );
  expect(rows.map((r) => [r.id, r.notification_email, r.moved])).toEqual([
    ["sandboxaaaaaaaaaaaaaaaaa", null, false],
    ["shopdemoaaaaaaaaaaaaaaaa", "owner@demoted.example", true],
    ["shopgoneaaaaaaaaaaaaaaaa", "second@gone.example", true],
    ["shopstayaaaaaaaaaaaaaaaa", null, false],
  ]);
}, 120_000);
