// CONTRACT 12, Dates of an order: dueDate on every order (given, or the customer's wedding date
// minus the shop's lead time for the type), pickupDate and dueBackDate for RENTAL orders only, on
// create and PATCH, with problems naming the field.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

const create = (key: string, body: Record<string, unknown>) =>
  t.api.post("/api/vendor/orders", { customerName: "Maria Silva", ...body }, { key });

function expectFieldProblem(res: { status: number; body: any }, field: string) {
  expect(res.status).toBe(400);
  expect(res.body.code).toBe("validation_failed");
  expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
}

describe("dates of an order", () => {
  it("derives dueDate from the wedding date and the type's default lead time, or keeps the one given", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const dress = await create(key, { type: "BRIDAL_DRESS", weddingDate: "2031-06-20" });
    expect(dress.status).toBe(201);
    // 8 weeks before the wedding.
    expect(dress.body).toMatchObject({ dueDate: "2031-04-25", pickupDate: null, dueBackDate: null });
    const suit = await create(key, { type: "SUIT", weddingDate: "2031-06-20" });
    expect(suit.body.dueDate).toBe("2031-05-23");
    const given = await create(key, { type: "SUIT", weddingDate: "2031-06-20", dueDate: "2031-06-01" });
    expect(given.body.dueDate).toBe("2031-06-01");
    const none = await create(key, { type: "SUIT" });
    expect(none.body.dueDate).toBeNull();
    // The same JSON on a read and in the list.
    const read = await t.api.get(`/api/vendor/orders/${dress.body.id}`, { key });
    expect(read.body.dueDate).toBe("2031-04-25");
    const list = await t.api.get("/api/vendor/orders", { key });
    expect(list.body.orders.find((o: { id: string }) => o.id === dress.body.id).dueDate).toBe("2031-04-25");
  });

  it("follows the shop's lead time and the customer's new wedding date", async () => {
    const { key, vendor } = await createVendorWithKey(t.ctx);
    const dress = await create(key, {
      type: "BRIDAL_DRESS",
      customerEmail: "lead@example.com",
      weddingDate: "2031-06-20",
    });
    await t.ctx.db.execute(
      sql`update vendors set lead_times = '{"BRIDAL_DRESS": 70}' where id = ${vendor.id}`,
    );
    expect((await t.api.get(`/api/vendor/orders/${dress.body.id}`, { key })).body.dueDate).toBe("2031-04-11");
    const moved = await t.api.patch(
      `/api/vendor/customers/${dress.body.customerId}`,
      { weddingDate: "2031-07-04" },
      { key },
    );
    expect(moved.status).toBe(200);
    expect((await t.api.get(`/api/vendor/orders/${dress.body.id}`, { key })).body.dueDate).toBe("2031-04-25");
  });

  it("takes pickupDate and dueBackDate for a RENTAL, on create and PATCH", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const rental = await create(key, { type: "RENTAL", pickupDate: "2031-06-18", dueBackDate: "2031-06-22" });
    expect(rental.status).toBe(201);
    expect(rental.body).toMatchObject({ pickupDate: "2031-06-18", dueBackDate: "2031-06-22" });
    const patched = await t.api.patch(
      `/api/vendor/orders/${rental.body.id}`,
      { dueBackDate: "2031-06-25", dueDate: "2031-06-10" },
      { key },
    );
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      pickupDate: "2031-06-18",
      dueBackDate: "2031-06-25",
      dueDate: "2031-06-10",
    });
    const cleared = await t.api.patch(`/api/vendor/orders/${rental.body.id}`, { pickupDate: null }, { key });
    expect(cleared.body.pickupDate).toBeNull();
  });

  it("refuses rental dates on other types and a due-back before the pickup, naming the field", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    expectFieldProblem(await create(key, { type: "SUIT", pickupDate: "2031-06-18" }), "pickupDate");
    expectFieldProblem(await create(key, { type: "BRIDAL_DRESS", dueBackDate: "2031-06-18" }), "dueBackDate");
    expectFieldProblem(
      await create(key, { type: "RENTAL", pickupDate: "2031-06-18", dueBackDate: "2031-06-17" }),
      "dueBackDate",
    );
    expectFieldProblem(await create(key, { type: "SUIT", dueDate: "2031-02-30" }), "dueDate");
    const suit = await create(key, { type: "SUIT" });
    expectFieldProblem(
      await t.api.patch(`/api/vendor/orders/${suit.body.id}`, { dueBackDate: "2031-06-18" }, { key }),
      "dueBackDate",
    );
    const rental = await create(key, { type: "RENTAL", pickupDate: "2031-06-18", dueBackDate: "2031-06-22" });
    // Against the pickup date the order keeps.
    expectFieldProblem(
      await t.api.patch(`/api/vendor/orders/${rental.body.id}`, { dueBackDate: "2031-06-01" }, { key }),
      "dueBackDate",
    );
    const unchanged = await t.api.get(`/api/vendor/orders/${rental.body.id}`, { key });
    expect(unchanged.body.dueBackDate).toBe("2031-06-22");
  });

  it("answers 404 for another shop's order", async () => {
    const a = await createVendorWithKey(t.ctx);
    const b = await createVendorWithKey(t.ctx);
    const rental = await create(a.key, { type: "RENTAL" });
    const res = await t.api.patch(
      `/api/vendor/orders/${rental.body.id}`,
      { dueBackDate: "2031-06-18" },
      { key: b.key },
    );
    expect(res.status).toBe(404);
  });
});

describe("the tracking page", () => {
  it("says when the order is expected ready relative to the wedding, in the customer's language", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const dress = await create(key, { type: "BRIDAL_DRESS", weddingDate: "2031-06-20" });
    const [row] = await queryRows<{ token: string; customer: string }>(
      t.ctx.db,
      sql`select tracking_token as token, customer_id as customer from orders where id = ${dress.body.id}`,
    );
    const page = await t.api.get(`/track/${row?.token}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain("Expected ready 8 weeks before your wedding.");
    expect(page.text).not.toContain("2031-06-20");
    await t.api.patch(`/api/vendor/orders/${dress.body.id}`, { dueDate: "2031-06-17" }, { key });
    await t.ctx.db.execute(sql`update customers set language = 'fr' where id = ${row?.customer}`);
    const fr = await t.api.get(`/track/${row?.token}`);
    expect(fr.text).toContain("Prête environ 3 jours avant votre mariage.");
  });
});
