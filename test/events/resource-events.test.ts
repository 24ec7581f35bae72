// Issue 28 item 1 (CONTRACT 10): every change a POS keeps a copy of is announced. customer.updated,
// customer.deleted (erasure: the id, nothing personal), appointment.created, appointment.updated
// (date, duration, type, notes, customer or order) and appointment.completed, each written in the
// transaction of its change; erasure stamps the orders it unlinks as updated.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { WebhookEvent } from "../../clients/typescript/src/index.ts";
import { queryRows } from "../../src/db/query-rows.ts";
import { nextMillisecond } from "../helpers/clock.ts";
import { createKey, createVendorWithKey } from "../helpers/factories.ts";
import { readSyncList } from "../helpers/sync.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

/** The vendor's events as the events API returns them, oldest first. */
async function eventsOf(key: string, type?: string) {
  const res = await t.api.get(`/api/vendor/events?limit=100${type ? `&type=${type}` : ""}`, { key });
  expect(res.status).toBe(200);
  return (res.body.events as Array<{ id: string; event: string; data: any; createdAt: string }>).reverse();
}

async function shopWithCustomer() {
  const { vendor, key } = await createVendorWithKey(t.ctx);
  const c = await t.api.post(
    "/api/vendor/customers",
    { name: "Maria Silva", email: "maria@example.com", phone: "+351 912 345 678" },
    { key },
  );
  expect(c.status).toBe(201);
  return { vendor, key, customerId: c.body.id as string };
}

describe("customer.updated", () => {
  it("PATCH and PUT emit it with the customer after the change, stamped with its updatedAt", async () => {
    const { key, customerId } = await shopWithCustomer();
    const patched = await t.api.patch(`/api/vendor/customers/${customerId}`, { phone: "+351 1" }, { key });
    expect(patched.status).toBe(200);
    const put = await t.api.put(
      `/api/vendor/customers/${customerId}`,
      { notes: "Prefers mornings" },
      { key },
    );
    expect(put.status).toBe(200);
    const updates = await eventsOf(key, "customer.updated");
    expect(updates.map((e) => e.data.phone)).toEqual(["+351 1", "+351 1"]);
    expect(updates[1]?.data).toMatchObject({ id: customerId, notes: "Prefers mornings" });
    expect(updates[1]?.data.updatedAt).toBe(put.body.updatedAt);
    expect(updates[1]?.createdAt).toBe(put.body.updatedAt);
    expect(updates[1]?.data).not.toHaveProperty("counts");
  });

  it("a refused update (e-mail taken) emits nothing", async () => {
    const { key, customerId } = await shopWithCustomer();
    await t.api.post("/api/vendor/customers", { name: "Ana", email: "ana@example.com" }, { key });
    const res = await t.api.patch(
      `/api/vendor/customers/${customerId}`,
      { email: "ana@example.com" },
      { key },
    );
    expect(res.status).toBe(409);
    expect(await eventsOf(key, "customer.updated")).toEqual([]);
  });
});

describe("customer.deleted", () => {
  it("erasure emits it with the id alone, and leaves no other event about the customer", async () => {
    const { vendor, key, customerId } = await shopWithCustomer();
    await t.api.patch(`/api/vendor/customers/${customerId}`, { notes: "hips 96" }, { key });
    const fitting = await t.api.post(
      "/api/vendor/appointments",
      { customerId, type: "FITTING", date: "2027-05-01T10:00:00Z" },
      { key },
    );
    expect(fitting.status).toBe(201);
    expect((await t.api.delete(`/api/vendor/customers/${customerId}`, { key })).status).toBe(204);
    const all = await eventsOf(key);
    // Her appointment went with her, announced by its id alone (CONTRACT 12, Deletions).
    expect(all.map((e) => e.event).sort()).toEqual(["appointment.deleted", "customer.deleted"]);
    expect(all.find((e) => e.event === "customer.deleted")?.data).toEqual({ id: customerId });
    expect(all.find((e) => e.event === "appointment.deleted")?.data).toEqual({ id: fitting.body.id });
    const stored = await queryRows<{ t: string }>(
      t.ctx.db,
      sql`select coalesce(json_agg(data)::text, '') as t from events where vendor_id = ${vendor.id}`,
    );
    for (const personal of ["Maria Silva", "maria@example.com", "+351 912 345 678", "hips 96"]) {
      expect(stored[0]?.t).not.toContain(personal);
    }
  });

  it("erasure stamps the orders it unlinks as updated, so an updatedSince sync sees them again", async () => {
    const { key, customerId } = await shopWithCustomer();
    const order = await t.api.post(
      "/api/vendor/orders",
      { customerName: "Maria Silva", customerEmail: "maria@example.com", type: "BRIDAL_DRESS" },
      { key },
    );
    expect(order.body.customerId).toBe(customerId);
    const other = await t.api.post("/api/vendor/orders", { customerName: "Ana", type: "SUIT" }, { key });
    await nextMillisecond();
    // A sync pass that has seen both orders as they were.
    const since = other.body.updatedAt > order.body.updatedAt ? other.body.updatedAt : order.body.updatedAt;
    await nextMillisecond();
    expect((await t.api.delete(`/api/vendor/customers/${customerId}`, { key })).status).toBe(204);
    const after = await t.api.get(`/api/vendor/orders/${order.body.id}`, { key });
    expect(after.body.customerId).toBeNull();
    expect(after.body.updatedAt > since).toBe(true);
    const deleted = (await eventsOf(key, "customer.deleted"))[0];
    expect(after.body.updatedAt).toBe(deleted?.createdAt);
    const path = `/api/vendor/orders?updatedSince=${encodeURIComponent(new Date(Date.parse(since) + 1).toISOString())}`;
    const sync = await readSyncList(t, path, key, (b) => b.orders.length > 0);
    expect(sync.body.orders.map((o: { id: string }) => o.id)).toEqual([order.body.id]);
  });
});

describe("appointment events", () => {
  it("a booking emits appointment.created with the appointment as answered", async () => {
    const { key, customerId } = await shopWithCustomer();
    const res = await t.api.post(
      "/api/vendor/appointments",
      { customerId, type: "CONSULTATION", date: "2027-02-01T15:30:00Z", notes: "First visit" },
      { key },
    );
    expect(res.status).toBe(201);
    const created = await eventsOf(key, "appointment.created");
    expect(created.map((e) => e.data)).toEqual([res.body]);
  });

  it("a refused booking (another shop's customer) emits nothing", async () => {
    const { key } = await shopWithCustomer();
    const other = await shopWithCustomer();
    const res = await t.api.post(
      "/api/vendor/appointments",
      { customerId: other.customerId, type: "FITTING", date: "2027-02-01T15:30:00Z" },
      { key },
    );
    expect(res.status).toBe(400);
    expect(await eventsOf(key, "appointment.created")).toEqual([]);
  });

  it("each change of date, duration, type, notes or order emits appointment.updated; a bare status move does not", async () => {
    const { key, customerId } = await shopWithCustomer();
    const order = await t.api.post(
      "/api/vendor/orders",
      { customerName: "Maria Silva", customerEmail: "maria@example.com", type: "BRIDAL_DRESS" },
      { key },
    );
    const booked = await t.api.post(
      "/api/vendor/appointments",
      { customerId, type: "FITTING", date: "2027-05-01T10:00:00Z" },
      { key },
    );
    const path = `/api/vendor/appointments/${booked.body.id}`;
    const changes = [
      { date: "2027-05-02T10:00:00+01:00" },
      { duration: 90 },
      { type: "CONSULTATION" },
      { notes: "Bring the shoes" },
      { orderId: order.body.id },
      { orderId: null },
    ];
    const answers = [];
    for (const change of changes) {
      const res = await t.api.patch(path, change, { key });
      expect(res.status, JSON.stringify(change)).toBe(200);
      answers.push(res.body);
    }
    expect((await t.api.patch(path, { status: "CONFIRMED" }, { key })).status).toBe(200);
    // Repeating values already there changes nothing and announces nothing.
    expect((await t.api.put(path, { duration: 90, notes: "Bring the shoes" }, { key })).status).toBe(200);
    const updated = await eventsOf(key, "appointment.updated");
    expect(updated.map((e) => e.data)).toEqual(answers);
    expect((await eventsOf(key, "appointment.confirmed")).length).toBe(1);
  });

  it("COMPLETED emits appointment.completed; a move and a change together emit both", async () => {
    const { key, customerId } = await shopWithCustomer();
    const booked = await t.api.post(
      "/api/vendor/appointments",
      { customerId, type: "FITTING", date: "2027-05-01T10:00:00Z" },
      { key },
    );
    const path = `/api/vendor/appointments/${booked.body.id}`;
    expect((await t.api.patch(path, { status: "CONFIRMED" }, { key })).status).toBe(200);
    const done = await t.api.patch(path, { status: "COMPLETED", notes: "Hem taken up 2 cm" }, { key });
    expect(done.status).toBe(200);
    const completed = await eventsOf(key, "appointment.completed");
    expect(completed.map((e) => e.data)).toEqual([done.body]);
    expect((await eventsOf(key, "appointment.updated")).map((e) => e.data)).toEqual([done.body]);
  });
});

describe("the events API and the client's types", () => {
  it("the new events need their resource's read scope", async () => {
    const { vendor, key, customerId } = await shopWithCustomer();
    await t.api.patch(`/api/vendor/customers/${customerId}`, { notes: "x" }, { key });
    await t.api.post(
      "/api/vendor/appointments",
      { customerId, type: "FITTING", date: "2027-05-01T10:00:00Z" },
      { key },
    );
    const ordersOnly = await createKey(t.ctx, vendor.id, ["webhooks:read", "orders:read"]);
    expect(await eventsOf(ordersOnly)).toEqual([]);
    const customersToo = await createKey(t.ctx, vendor.id, ["webhooks:read", "customers:read"]);
    expect((await eventsOf(customersToo)).map((e) => e.event)).toEqual([
      "customer.created",
      "customer.updated",
    ]);
    for (const type of [
      "customer.deleted",
      "appointment.created",
      "appointment.updated",
      "appointment.completed",
    ]) {
      expect((await t.api.get(`/api/vendor/events?type=${type}`, { key })).status).toBe(200);
    }
  });

  it("the client knows every new event's payload (a compile-time check, run by the typecheck)", () => {
    const names: Array<WebhookEvent["event"]> = [
      "customer.updated",
      "customer.deleted",
      "appointment.created",
      "appointment.updated",
      "appointment.completed",
    ];
    const deleted = (e: WebhookEvent) => (e.event === "customer.deleted" ? Object.keys(e.data) : []);
    expect(
      deleted({ id: "e", event: "customer.deleted", data: { id: "c" }, timestamp: "t" } as WebhookEvent),
    ).toEqual(["id"]);
    expect(names).toHaveLength(5);
  });
});
