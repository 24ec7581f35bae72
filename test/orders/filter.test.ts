// GET /api/vendor/orders filters by status (one or several) and customerId (CONTRACT 4).
import { describe, expect, it } from "vitest";
import { createVendorWithKey } from "../helpers/factories.ts";
import { tickingClock, useTestApp } from "../helpers/test-app.ts";

const t = useTestApp({ now: tickingClock(Date.parse("2026-11-01T09:00:00.000Z"), 1000) });

async function order(key: string, customerEmail: string, status?: string): Promise<string> {
  const res = await t.api.post(
    "/api/vendor/orders",
    { customerName: "Maria Silva", customerEmail, type: "BRIDAL_DRESS", model: "Aurora" },
    { key },
  );
  expect(res.status).toBe(201);
  if (status) {
    const moved = await t.api.put(`/api/vendor/orders/${res.body.id}/status`, { status }, { key });
    expect(moved.status).toBe(200);
  }
  return res.body.id;
}

const ids = (body: { orders: Array<{ id: string }> }) => body.orders.map((o) => o.id);

describe("GET /api/vendor/orders filters", () => {
  it("status=X returns only orders in that status", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const ordered = await order(key, "a@example.com");
    const inProduction = await order(key, "b@example.com", "IN_PRODUCTION");
    await order(key, "c@example.com", "CANCELLED");

    const res = await t.api.get("/api/vendor/orders?status=ORDERED", { key });
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual([ordered]);
    const prod = await t.api.get("/api/vendor/orders?status=IN_PRODUCTION", { key });
    expect(ids(prod.body)).toEqual([inProduction]);
  });

  it("a repeated status matches any of them, newest update first", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const ordered = await order(key, "a@example.com");
    const inProduction = await order(key, "b@example.com", "IN_PRODUCTION");
    await order(key, "c@example.com", "CANCELLED");

    const res = await t.api.get("/api/vendor/orders?status=ORDERED&status=IN_PRODUCTION", { key });
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual([inProduction, ordered]);
  });

  it("customerId returns only that customer's orders; combined with status both apply", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const first = await order(key, "maria@example.com");
    await order(key, "ana@example.com");
    const second = await order(key, "MARIA@example.com", "IN_PRODUCTION");
    const customerId = (await t.api.get(`/api/vendor/orders/${first}`, { key })).body.customerId;

    const all = await t.api.get(`/api/vendor/orders?customerId=${customerId}`, { key });
    expect(ids(all.body)).toEqual([second, first]);
    const both = await t.api.get(`/api/vendor/orders?customerId=${customerId}&status=ORDERED`, { key });
    expect(ids(both.body)).toEqual([first]);
  });

  it("filters page with the cursor like the unfiltered list", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await order(key, `p${i}@example.com`, "FITTING_READY"));
    await order(key, "other@example.com");
    const page1 = await t.api.get("/api/vendor/orders?status=FITTING_READY&limit=2", { key });
    expect(ids(page1.body)).toEqual([made[2], made[1]]);
    const page2 = await t.api.get(
      `/api/vendor/orders?status=FITTING_READY&limit=2&cursor=${encodeURIComponent(page1.body.nextCursor)}`,
      { key },
    );
    expect(ids(page2.body)).toEqual([made[0]]);
    expect(page2.body.nextCursor).toBeNull();
  });

  it("another vendor's customer id, or a malformed one, matches nothing", async () => {
    const a = await createVendorWithKey(t.ctx);
    const b = await createVendorWithKey(t.ctx);
    const id = await order(a.key, "x@example.com");
    const customerId = (await t.api.get(`/api/vendor/orders/${id}`, { key: a.key })).body.customerId;
    const res = await t.api.get(`/api/vendor/orders?customerId=${customerId}`, { key: b.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ orders: [], nextCursor: null });
    const bad = await t.api.get("/api/vendor/orders?customerId=not%20an%20id", { key: a.key });
    expect(bad.body).toEqual({ orders: [], nextCursor: null });
  });

  it("an unknown status is 400 validation_failed naming the field", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const res = await t.api.get("/api/vendor/orders?status=ORDERED&status=SHIPPED", { key });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe("validation_failed");
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain("status.1");
  });
});
