// DELETE /api/vendor/customers/{id}: erasure on the customer's request (CONTRACT 5). Personal data
// leaves the customer, their appointments and inquiries and the stored event payloads; their
// orders stay for the shop's books without it.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.ts";
import { receiveInquiry } from "../../src/modules/inquiries/inquiries.service.ts";
import { createKey, createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

const PERSONAL = ["Maria Silva", "maria.silva@example.com", "+351 912 345 678", "2027-06-12", "hips 96"];

/** A customer with an order (moved once), a confirmed fitting and an inquiry from her e-mail. */
async function shopWithMaria() {
  const { vendor, key } = await createVendorWithKey(t.ctx);
  const order = await t.api.post(
    "/api/vendor/orders",
    {
      customerName: "Maria Silva",
      customerEmail: "maria.silva@example.com",
      customerPhone: "+351 912 345 678",
      weddingDate: "2027-06-12",
      type: "BRIDAL_DRESS",
      model: "Aurora",
      size: "38",
    },
    { key },
  );
  expect(order.status).toBe(201);
  const customerId = order.body.customerId as string;
  await t.api.patch(`/api/vendor/customers/${customerId}`, { notes: "hips 96" }, { key });
  await t.api.put(`/api/vendor/orders/${order.body.id}/status`, { status: "IN_PRODUCTION" }, { key });
  const appointment = await t.api.post(
    "/api/vendor/appointments",
    { customerId, orderId: order.body.id, type: "FITTING", date: "2027-05-01T10:00:00Z", notes: "hips 96" },
    { key },
  );
  expect(appointment.status).toBe(201);
  await t.api.put(`/api/vendor/appointments/${appointment.body.id}`, { status: "CONFIRMED" }, { key });
  const inquiry = await receiveInquiry(t.ctx, vendor.id, {
    name: "Maria Silva",
    email: "MARIA.SILVA@example.com",
    phone: "+351 912 345 678",
    message: "Can I bring my mother to the fitting?",
  });
  // Someone else's data, which erasure must leave alone.
  const other = await t.api.post(
    "/api/vendor/orders",
    { customerName: "Ana Costa", customerEmail: "ana@example.com", type: "SUIT" },
    { key },
  );
  return {
    vendor,
    key,
    customerId,
    orderId: order.body.id as string,
    appointmentId: appointment.body.id,
    inquiry,
    other,
  };
}

/** Every stored text of the vendor, as one string: rows of every table that holds vendor data. */
async function storedText(vendorId: string): Promise<string> {
  const rows = await queryRows<{ t: string }>(
    t.ctx.db,
    sql`select concat_ws(' ',
          (select json_agg(c)::text from customers c where vendor_id = ${vendorId}),
          (select json_agg(o)::text from orders o where vendor_id = ${vendorId}),
          (select json_agg(a)::text from appointments a where vendor_id = ${vendorId}),
          (select json_agg(i)::text from inquiries i where vendor_id = ${vendorId}),
          (select json_agg(e)::text from events e where vendor_id = ${vendorId})) as t`,
  );
  return rows[0]?.t ?? "";
}

describe("DELETE /api/vendor/customers/{id}", () => {
  it("answers 204 and the customer is gone (404 on read, absent from the list)", async () => {
    const s = await shopWithMaria();
    const res = await t.api.delete(`/api/vendor/customers/${s.customerId}`, { key: s.key });
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect((await t.api.get(`/api/vendor/customers/${s.customerId}`, { key: s.key })).status).toBe(404);
    const list = await t.api.get("/api/vendor/customers", { key: s.key });
    expect(list.body.customers.map((c: { name: string }) => c.name)).toEqual(["Ana Costa"]);
    expect((await t.api.delete(`/api/vendor/customers/${s.customerId}`, { key: s.key })).status).toBe(404);
  });

  it("keeps the orders, without the customer, in the API and in stored order events", async () => {
    const s = await shopWithMaria();
    await t.api.delete(`/api/vendor/customers/${s.customerId}`, { key: s.key });
    const order = await t.api.get(`/api/vendor/orders/${s.orderId}`, { key: s.key });
    expect(order.status).toBe(200);
    expect(order.body).toMatchObject({
      id: s.orderId,
      model: "Aurora",
      size: "38",
      customerId: null,
      customer: null,
    });
    expect(order.body.status).toBe("IN_PRODUCTION");
    const events = await t.api.get("/api/vendor/events", { key: s.key });
    const types = events.body.events.map((e: { event: string }) => e.event).sort();
    // Ana's order and customer events stay; Maria's order events stay without her; her erasure
    // is announced by id (CONTRACT 10), and so is her appointment's deletion (CONTRACT 12).
    expect(types).toEqual([
      "appointment.deleted",
      "customer.created",
      "customer.deleted",
      "order.created",
      "order.created",
      "order.status_changed",
    ]);
    for (const e of events.body.events) {
      if (e.data.id === s.orderId) expect(e.data.customerId).toBeNull();
    }
  });

  it("leaves none of her personal data anywhere the vendor's data is stored", async () => {
    const s = await shopWithMaria();
    const before = await storedText(s.vendor.id);
    for (const text of PERSONAL) expect(before).toContain(text);
    await t.api.delete(`/api/vendor/customers/${s.customerId}`, { key: s.key });
    const after = (await storedText(s.vendor.id)).toLowerCase();
    for (const text of PERSONAL) expect(after).not.toContain(text.toLowerCase());
    // Her id stays in one place only: the customer.deleted event that announces the erasure.
    const announced = `{"id": "${s.customerId}"}`.toLowerCase();
    expect(after.split(s.customerId.toLowerCase()).length - 1).toBe(1);
    expect(after).toContain(announced);
    expect(after).toContain("ana costa");
    expect((await t.api.get(`/api/vendor/appointments/${s.appointmentId}`, { key: s.key })).status).toBe(404);
    expect((await t.api.get(`/api/vendor/inquiries/${s.inquiry.id}`, { key: s.key })).status).toBe(404);
  });

  it("another vendor's customer is 404 and untouched; customers:read alone is 403", async () => {
    const s = await shopWithMaria();
    const other = await createVendorWithKey(t.ctx);
    expect((await t.api.delete(`/api/vendor/customers/${s.customerId}`, { key: other.key })).status).toBe(
      404,
    );
    const readOnly = await createKey(t.ctx, s.vendor.id, ["customers:read"]);
    const refused = await t.api.delete(`/api/vendor/customers/${s.customerId}`, { key: readOnly });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("insufficient_scope");
    expect((await t.api.get(`/api/vendor/customers/${s.customerId}`, { key: s.key })).status).toBe(200);
  });
});
