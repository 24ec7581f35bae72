// Lists are one statement whatever their length (no N+1): the number of SQL statements one list
// request sends is the same for 1 row as for 30, and is one (the API key, read by an earlier
// request, is held in memory: modules/api-keys/verified-keys.ts).
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.ts";
import { createCustomer } from "../../src/modules/customers/customers.service.ts";
import { receiveInquiry } from "../../src/modules/inquiries/inquiries.service.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";
import { eventually } from "../helpers/webhook-receiver.ts";

const t = useTestApp();

/** Statements sent while serving one GET. */
async function statementsFor(path: string, key: string, expectedRows: number, listField: string) {
  const before = t.database.queryCount();
  const res = await t.api.get(path, { key });
  const count = t.database.queryCount() - before;
  expect(res.status).toBe(200);
  expect(res.body[listField]).toHaveLength(expectedRows);
  return count;
}

/** Waits until the vendors' keys have their last use recorded (written off the request path). */
async function keysUsed(...vendorIds: string[]) {
  await eventually(async () => {
    const rows = await queryRows<{ id: string }>(
      t.ctx.db,
      sql`select id from api_keys where vendor_id in ${vendorIds} and last_used_at is null`,
    );
    return rows.length === 0;
  });
}

type Seed = (vendorId: string, key: string, i: number) => Promise<unknown>;

const seeds: Record<string, Seed> = {
  orders: (_v, key, i) => t.api.post("/api/vendor/orders", { customerName: `C${i}`, type: "SUIT" }, { key }),
  customers: (vendorId, _k, i) => createCustomer(t.ctx, vendorId, { name: `C${i}`, measurements: { i } }),
  appointments: async (vendorId, key, i) => {
    const c = await createCustomer(t.ctx, vendorId, { name: `A${i}` });
    return t.api.post(
      "/api/vendor/appointments",
      { customerId: c.id, type: "FITTING", date: new Date(Date.UTC(2027, 0, 1 + i)).toISOString() },
      { key },
    );
  },
  inquiries: (vendorId, _k, i) =>
    receiveInquiry(t.ctx, vendorId, { name: "N", email: "n@example.com", message: `${i}` }),
};

describe("list query counts (1 row vs 30 rows)", () => {
  for (const [resource, seed] of Object.entries(seeds)) {
    it(`GET /api/vendor/${resource} sends the same statements for 1 and 30 rows: one`, async () => {
      const one = await createVendorWithKey(t.ctx);
      const many = await createVendorWithKey(t.ctx);
      await seed(one.vendor.id, one.key, 0);
      for (let i = 0; i < 30; i++) await seed(many.vendor.id, many.key, i);
      // Warm up each key once: its first use reads it and records its last use off the request path.
      await t.api.get("/api/vendor/profile", { key: one.key });
      await t.api.get("/api/vendor/profile", { key: many.key });
      await keysUsed(one.vendor.id, many.vendor.id);

      const forOne = await statementsFor(`/api/vendor/${resource}`, one.key, 1, resource);
      const forMany = await statementsFor(`/api/vendor/${resource}`, many.key, 30, resource);
      expect(forMany).toBe(forOne);
      expect(forOne).toBe(1); // the list itself
    });
  }
});
