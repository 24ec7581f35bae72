// The first page of the order list (what integrations poll) is planned once per connection, in a
// database of many shops as in one of few, and serves a shop with thousands of orders as well as a
// small one: it reads the shop's orders through vendor_newest_orders (migrations/0038), from
// orders_vendor_updated_idx in order, stops after the page, and builds the JSON of the page's
// orders alone, from the rows it read. Planned for an average shop among many small ones whose
// orders lie spread over the table, the read used to sort all of a big shop's orders (a bitmap and
// a Sort looked cheaper for the few rows it expected); and each page hashed its orders against a
// scan of every customer of every shop, where the table held a few thousand. The vendor goes in as
// an InitPlan and the rows read are bounded by a constant (the largest page), so PostgreSQL's
// custom plans cannot do better than the generic one and it keeps that after five runs. PostgreSQL
// only (PGlite plans in the same process for every statement).
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, openDatabase } from "../../src/db/client.ts";
import { queryRows } from "../../src/db/query-rows.ts";
import { firstOrderPageJson, firstOrderPageVersion } from "../../src/modules/orders/orders.repository.ts";
import { createVendor } from "../helpers/factories.ts";
import { directUrlOf } from "../helpers/pooler.ts";
import { createScratchDatabase, type ScratchDatabase } from "../helpers/scratch-database.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";

const url = process.env.TEST_DATABASE_URL;

interface Shops {
  /** One connection straight to PostgreSQL (a pooler in transaction mode prepares nothing), so
   * the plans counted and explained are those of the statements run. */
  single: Database;
  big: string;
  small: string;
}

/**
 * A scratch database for the file's describe block, with a big and a small shop whose orders
 * `fill` inserts (and whatever else it adds), analyzed. Its fields are set in beforeAll.
 */
function useShops(fill: (t: TestApp, big: string, small: string) => Promise<void>): Shops {
  const shops = {} as Shops;
  let scratch: ScratchDatabase | undefined;
  let t: TestApp | undefined;
  beforeAll(async () => {
    scratch = await createScratchDatabase(url as string);
    t = await startTestApp({ databaseUrl: scratch.url });
    shops.big = (await createVendor(t.ctx, "Big Bridal")).id;
    shops.small = (await createVendor(t.ctx, "Small Bridal")).id;
    await fill(t, shops.big, shops.small);
    await t.database.db.execute(sql`analyze orders`);
    await t.database.db.execute(sql`analyze customers`);
    shops.single = await openDatabase({ kind: "pg", url: directUrlOf(scratch.url) }, { poolSize: 1 });
  }, 60_000);
  afterAll(async () => {
    await shops.single?.close();
    await t?.close();
    await scratch?.drop();
  });
  return shops;
}

/**
 * `n` orders of `vendor`, updated one second apart (`shuffled`: in no order the table keeps), each
 * for a customer of its own with `customers`.
 */
async function insertOrders(
  t: TestApp,
  vendor: string,
  n: number,
  { shuffled = false, customers = false } = {},
) {
  const age = shuffled ? sql`make_interval(secs => (g * 7919) % 30000)` : sql`make_interval(secs => g)`;
  if (customers) await insertCustomers(t, vendor, n);
  const customer = customers ? sql`${vendor} || '-customer-' || g` : sql`null`;
  return t.database.db.execute(sql`
    insert into orders (id, vendor_id, number, type, status, tracking_token, customer_id, created_at, updated_at)
    select ${vendor} || '-' || g, ${vendor}, 1000 + g, 'BRIDAL_DRESS', 'ORDERED', ${vendor} || '-token-' || g,
           ${customer}, now() - ${age}, now() - ${age}
    from generate_series(1, ${n}::int) g`);
}

function insertCustomers(t: TestApp, vendor: string, n: number) {
  return t.database.db.execute(sql`
    insert into customers (id, vendor_id, name, email, created_at, updated_at)
    select ${vendor} || '-customer-' || g, ${vendor}, 'Bride ' || g, ${vendor} || '-' || g || '@example.test', now(), now()
    from generate_series(1, ${n}::int) g`);
}

/**
 * Rewrites the orders in an order unrelated to shop or time, as a table many shops wrote to over
 * years holds them: a shop's orders lie spread over the table, and reading a few of them through a
 * bitmap looks cheaper to PostgreSQL than reading them through an index one by one.
 */
async function spreadOrders(t: TestApp) {
  await t.database.db.execute(sql`
    with moved as (delete from orders returning *) insert into orders select * from moved order by md5(id)`);
  // The moved rows' old index entries are gone, as a vacuumed table's are.
  await t.database.db.execute(sql`vacuum orders`);
}

/** Both shops' first page and its version, `rounds` times each, on the one connection. */
async function poll({ single, small, big }: Shops, rounds: number) {
  for (let i = 0; i < rounds; i++) {
    for (const shop of [small, big]) {
      await firstOrderPageJson(single.db, shop, 100);
      await firstOrderPageVersion(single.db, shop, 100);
    }
  }
}

async function plans(db: Database, name: string) {
  const [row] = await queryRows<{ generic: number; custom: number }>(
    db.db,
    sql`select generic_plans::int as generic, custom_plans::int as custom
        from pg_prepared_statements where name = ${name}`,
  );
  return row;
}

/** The plans PostgreSQL runs the first page's two statements with, for the big shop. */
async function bigShopPlans({ single, big }: Shops): Promise<string[]> {
  const plan = async (name: string, args: string) =>
    (await queryRows<{ "QUERY PLAN": string }>(single.db, sql.raw(`explain execute ${name}(${args})`)))
      .map((r) => r["QUERY PLAN"])
      .join("\n");
  return [
    await plan("list_orders_first_page_json", `'${big}', 100, 100, 100, 100, 100`),
    await plan("list_orders_first_page_version", `'${big}', 100`),
  ];
}

/** The statement reads the shop's orders through vendor_newest_orders alone. */
function expectOrdersReadInOrder(plan: string) {
  expect(plan, plan).toMatch(/Function Scan on vendor_newest_orders/);
  expect(plan, plan).not.toMatch(/ on orders\b/);
}

/**
 * How many rows each index of orders and of customers has given, and how many rows were read from
 * each table by scans.
 */
async function reads(db: Database) {
  await db.db.execute(sql`select pg_stat_force_next_flush()`);
  const rows = await queryRows<{ name: string; n: number }>(
    db.db,
    sql`select indexrelname as name, idx_tup_read::int as n from pg_stat_user_indexes where relname in ('orders', 'customers')
        union all select relname || ' seq scans', seq_tup_read::int from pg_stat_user_tables where relname in ('orders', 'customers')`,
  );
  return Object.fromEntries(rows.map((r) => [r.name, r.n]));
}

/**
 * Each of the big shop's first page statements reads the page and the row beyond it from
 * orders_vendor_updated_idx, in order, and nothing else of orders: not the shop's other orders,
 * however the statistics were; and the customers of those rows (`customers` of them have one) by
 * their key, nothing else of customers.
 */
async function expectPageReadAlone({ single, big }: Shops, { customers }: { customers: number }) {
  for (const read of [
    () => firstOrderPageJson(single.db, big, 100),
    () => firstOrderPageVersion(single.db, big, 100),
  ]) {
    const before = await reads(single);
    await read();
    const after = await reads(single);
    const rows = Object.fromEntries(Object.entries(after).map(([k, n]) => [k, n - (before[k] ?? 0)]));
    const none = Object.fromEntries(Object.keys(after).map((k) => [k, 0]));
    expect(rows).toEqual({ ...none, orders_vendor_updated_idx: 101, customers_pkey: customers });
  }
}

/**
 * The big shop's page of `size` has its JSON built for its orders alone: the history of an order
 * (a subplan of its JSON) is read `size` times, not for the row beyond the page nor for any order
 * the plan passed over.
 */
async function expectJsonForPageAlone({ single, big }: Shops, size: number) {
  const plan = (
    await queryRows<{ "QUERY PLAN": string }>(
      single.db,
      sql.raw(
        `explain (analyze, costs off, timing off) execute list_orders_first_page_json('${big}', ${Array(5).fill(size).join(", ")})`,
      ),
    )
  )
    .map((r) => r["QUERY PLAN"])
    .join("\n");
  const histories = [...plan.matchAll(/on order_updates u \(actual rows=\d+ loops=(\d+)\)/g)].map((m) =>
    Number(m[1]),
  );
  expect(histories, plan).toEqual([size]);
}

describe.skipIf(!url)("the first page of the order list on PostgreSQL", () => {
  const shops = useShops(async (t, big, small) => {
    await insertOrders(t, big, 3_000, { customers: true });
    await insertOrders(t, small, 30, { customers: true });
    // And 300 shops with 1-10 orders each: beside them the big one is a most common value.
    await t.database.db.execute(sql`
      insert into vendors (id, name, email, created_at, updated_at)
      select 'shop-' || g, 'Shop ' || g, 'shop-' || g || '@example.test', now(), now()
      from generate_series(1, 300) g`);
    await t.database.db.execute(sql`
      insert into orders (id, vendor_id, number, type, status, tracking_token, created_at, updated_at)
      select 'shop-' || g || '-' || k, 'shop-' || g, 1000 + k, 'SUIT', 'ORDERED', 'shop-' || g || '-token-' || k, now(), now()
      from generate_series(1, 300) g, generate_series(1, 1 + g % 10) k`);
    // And 30 customers each: 12,030 customers in all, few enough that a scan of them all looked
    // cheaper than looking up a page's customers one by one.
    for (let g = 1; g <= 300; g++) await insertCustomers(t, `shop-${g}`, 30);
    await spreadOrders(t);
  });

  it("is planned once per connection, and for a shop with thousands of orders the plan reads the index in order and stops after the page", async () => {
    // Past PostgreSQL's five custom plans, after which it may keep a generic one.
    await poll(shops, 4);
    expect(await plans(shops.single, "list_orders_first_page_json")).toEqual({ generic: 3, custom: 5 });
    expect(await plans(shops.single, "list_orders_first_page_version")).toEqual({ generic: 3, custom: 5 });
    const [json, version] = await bigShopPlans(shops);
    for (const plan of [json, version] as string[]) expectOrdersReadInOrder(plan);
    await expectPageReadAlone(shops, { customers: 101 });
    await expectJsonForPageAlone(shops, 100);
    await expectJsonForPageAlone(shops, 7);
  });

  it("answers every page size from the same statement", async () => {
    const page = await firstOrderPageJson(shops.single.db, shops.big, 7);
    expect(JSON.parse(`[${page.json}]`)).toHaveLength(7);
    expect(page.next?.id).toBe(`${shops.big}-7`);
    const all = await firstOrderPageJson(shops.single.db, shops.small, 100);
    expect(JSON.parse(`[${all.json}]`)).toHaveLength(30);
    expect(all.next).toBeUndefined();
  });
});

// A database of few shops (one shop's own install): the average shop is a big one. With the page
// size as the statement's limit, PostgreSQL planned each request anew here (the custom plans, which
// saw the size, looked cheaper), and planning the page's JSON cost ~2.9 ms a request, more than
// running it. With the size hidden as well as the vendor (2a55483, reverted) the kept plan expected
// to read a tenth of a shop's orders, and the bench's list fell to 0.1x once its write shop held
// tens of thousands. Bounded by a constant, the kept plan stops after the page.
describe.skipIf(!url)("the first page of the order list, in a database of few shops", () => {
  const shops = useShops(async (t, big, small) => {
    // Updated in no particular order, as orders are: the table is not in the index's order.
    await insertOrders(t, big, 30_000, { shuffled: true });
    await insertOrders(t, small, 100, { shuffled: true });
  });

  it("is planned once per connection too, and reads the big shop's page from the index, never the whole table", async () => {
    await poll(shops, 5);
    for (const name of ["list_orders_first_page_json", "list_orders_first_page_version"]) {
      expect(await plans(shops.single, name), name).toEqual({ generic: 5, custom: 5 });
    }
    const [json, version] = await bigShopPlans(shops);
    for (const plan of [json, version] as string[]) expectOrdersReadInOrder(plan);
    await expectPageReadAlone(shops, { customers: 0 });
    await expectJsonForPageAlone(shops, 100);
  });
});
