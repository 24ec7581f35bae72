// The order list's first page, what integrations poll, is one prepared statement (orders.repository.ts
// firstOrderPageJson). PostgreSQL plans a prepared statement's first five executions for their
// values, then keeps a generic plan only if it looks no costlier than those. With the vendor and
// the limit visible to the planner, a small vendor's page looked ten times cheaper planned for its
// values, so every request paid for planning the statement again. PostgreSQL only:
// pg_prepared_statements counts both kinds of plan on the connection.
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import { describe, expect, it } from "vitest";
import { type Db, queryRows } from "../../src/db/client.ts";
import * as schema from "../../src/db/schema/index.ts";
import { firstOrderPageJson } from "../../src/modules/orders/orders.repository.ts";
import { createVendor } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp({ ownDatabase: true });

describe.skipIf(!process.env.TEST_DATABASE_URL)("the first page of orders on PostgreSQL", () => {
  it("settles on one plan per connection after five runs, for a small vendor beside a large one", async () => {
    const large = await createVendor(t.ctx, "Large Bridal");
    const small = await createVendor(t.ctx, "Small Bridal");
    const orders = (vendorId: string, n: number) =>
      t.database.db.execute(sql`insert into orders (id, vendor_id, type, status, tracking_token, created_at, updated_at)
        select ${vendorId} || '-' || i, ${vendorId}, 'BRIDAL_DRESS', 'ORDERED', ${vendorId} || '-t-' || i,
               now() - i * interval '1 minute', now() - i * interval '1 minute'
        from generate_series(1, ${n}::int) i`);
    await orders(large.id, 3_000);
    await orders(small.id, 3);
    await t.database.db.execute(sql`analyze orders`);

    // One connection, as each of the API pool's connections is.
    const client = await t.database.pool?.connect();
    if (!client) throw new Error("PostgreSQL only");
    try {
      const db = drizzle({ client, schema }) as unknown as Db;
      for (let i = 0; i < 8; i++) {
        const page = await firstOrderPageJson(db, small.id, 100);
        expect(JSON.parse(`[${page.json}]`)).toHaveLength(3);
      }
      const [plans] = await queryRows<{ generic: number; custom: number }>(
        db,
        sql`select generic_plans::int as generic, custom_plans::int as custom
            from pg_prepared_statements where name = 'list_orders_first_page_json'`,
      );
      expect(plans).toEqual({ generic: 3, custom: 5 });
    } finally {
      client.release();
    }
  });
});
