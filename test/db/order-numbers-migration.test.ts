// Migration 0029 on orders made before order numbers: each shop's orders are numbered from 1001 in
// the order they were made (created_at, then id), the shop's counter continues after its last
// number, and customers' phones written with a country code get their E.164 form. PGlite, or
// PostgreSQL when TEST_DATABASE_URL is set (a scratch database of the file's own).
import fs from "node:fs";
import { afterAll, expect, it } from "vitest";
import { MIGRATIONS, migrationsBefore, openMigratingDatabase } from "../helpers/migrations.ts";

const BEFORE = "0029_order_numbers_external_ids";

const cleanup: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c();
});

it("numbers existing orders per shop by creation and continues each shop's counter after them", async () => {
  const db = await openMigratingDatabase(cleanup);
  const before = migrationsBefore(BEFORE);
  cleanup.push(() => fs.rmSync(before, { recursive: true, force: true }));
  await db.migrate(before);

  await db.query(
    `insert into vendors (id, name, email, created_at, updated_at) values
       ('shopaaaaaaaaaaaaaaaaaaaa', 'A', 'a@old.example', now(), now()),
       ('shopbbbbbbbbbbbbbbbbbbbb', 'B', 'b@old.example', now(), now()),
       ('shopcccccccccccccccccccc', 'C', 'c@old.example', now(), now())`,
  );
  await db.query(
    `insert into customers (id, vendor_id, name, phone, created_at, updated_at) values
       ('custaaaaaaaaaaaaaaaaaaaa', 'shopaaaaaaaaaaaaaaaaaaaa', 'Clara', '+49 (170) 123-4567', now(), now()),
       ('custbbbbbbbbbbbbbbbbbbbb', 'shopbbbbbbbbbbbbbbbbbbbb', 'Dora', '0170 1234567', now(), now())`,
  );
  const order = (id: string, shop: string, customer: string, at: string) =>
    `('${id}', '${shop}', '${customer}', 'SUIT', 'ORDERED', 'tok-${id}', '${at}', '${at}')`;
  await db.query(
    `insert into orders (id, vendor_id, customer_id, type, status, tracking_token, created_at, updated_at) values
       ${order("ord3aaaaaaaaaaaaaaaaaaaa", "shopaaaaaaaaaaaaaaaaaaaa", "custaaaaaaaaaaaaaaaaaaaa", "2026-03-01T00:00:00Z")},
       ${order("ord1aaaaaaaaaaaaaaaaaaaa", "shopaaaaaaaaaaaaaaaaaaaa", "custaaaaaaaaaaaaaaaaaaaa", "2026-01-01T00:00:00Z")},
       ${order("ord2aaaaaaaaaaaaaaaaaaaa", "shopaaaaaaaaaaaaaaaaaaaa", "custaaaaaaaaaaaaaaaaaaaa", "2026-02-01T00:00:00Z")},
       ${order("ord1bbbbbbbbbbbbbbbbbbbb", "shopbbbbbbbbbbbbbbbbbbbb", "custbbbbbbbbbbbbbbbbbbbb", "2026-02-15T00:00:00Z")}`,
  );

  await db.migrate(MIGRATIONS);

  const numbered = await db.query("select id, number from orders order by vendor_id, number");
  expect(numbered.map((o) => [o.id, o.number])).toEqual([
    ["ord1aaaaaaaaaaaaaaaaaaaa", 1001],
    ["ord2aaaaaaaaaaaaaaaaaaaa", 1002],
    ["ord3aaaaaaaaaaaaaaaaaaaa", 1003],
    ["ord1bbbbbbbbbbbbbbbbbbbb", 1001],
  ]);
  const counters = await db.query("select id, last_order_number from vendors order by id");
  expect(counters.map((v) => [v.id, v.last_order_number])).toEqual([
    ["shopaaaaaaaaaaaaaaaaaaaa", 1003],
    ["shopbbbbbbbbbbbbbbbbbbbb", 1001],
    ["shopcccccccccccccccccccc", 1000],
  ]);
  const phones = await db.query("select id, phone_e164 from customers order by id");
  expect(phones.map((c) => [c.id, c.phone_e164])).toEqual([
    ["custaaaaaaaaaaaaaaaaaaaa", "+491701234567"],
    // A national number needs the shop's country: it waits for the customer's next write.
    ["custbbbbbbbbbbbbbbbbbbbb", null],
  ]);
});
