// PATCH /api/vendor/orders/{id}: the details a shop changes after ordering (CONTRACT 4), partial as
// every update (CONTRACT 1), emitting order.updated with the order.
import { describe, expect, it } from "vitest";
import { eventsAbout } from "../helpers/events.ts";
import { createKey, createVendorWithKey } from "../helpers/factories.ts";
import { tickingClock, useTestApp } from "../helpers/test-app.ts";

const t = useTestApp({ now: tickingClock(Date.parse("2026-11-01T09:00:00.000Z"), 1000) });

async function newOrder(key: string) {
  const res = await t.api.post(
    "/api/vendor/orders",
    {
      customerName: "Maria Silva",
      customerEmail: "maria@example.com",
      type: "BRIDAL_DRESS",
      model: "Aurora",
      size: "38",
      color: "Ivory",
      specialRequests: "Add sleeves",
    },
    { key },
  );
  expect(res.status).toBe(201);
  return res.body;
}

describe("PATCH /api/vendor/orders/{id}", () => {
  it("changes only the fields sent, null clears one, and answers the whole order", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const created = await newOrder(key);
    const res = await t.api.patch(
      `/api/vendor/orders/${created.id}`,
      { size: "40", specialRequests: null },
      { key },
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: created.id,
      model: "Aurora",
      size: "40",
      color: "Ivory",
      specialRequests: null,
      status: "ORDERED",
      customerId: created.customerId,
    });
    expect(res.body.updatedAt > created.updatedAt).toBe(true);
    expect(res.body.updates).toEqual(created.updates);
    const read = await t.api.get(`/api/vendor/orders/${created.id}`, { key });
    expect(read.text).toBe(res.text);
  });

  it("emits order.updated whose data is the order as answered", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const created = await newOrder(key);
    const res = await t.api.patch(`/api/vendor/orders/${created.id}`, { color: "Champagne" }, { key });
    const events = await eventsAbout(t, created.id);
    expect(events.map((e) => e.type)).toEqual(["order.created", "order.updated"]);
    expect(events[1]?.data).toEqual(res.body);
  });

  it("a request that changes nothing answers the order and emits nothing", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const created = await newOrder(key);
    const res = await t.api.patch(`/api/vendor/orders/${created.id}`, { size: "38" }, { key });
    expect(res.status).toBe(200);
    expect(res.body.updatedAt).toBe(created.updatedAt);
    const empty = await t.api.patch(`/api/vendor/orders/${created.id}`, {}, { key });
    expect(empty.status).toBe(200);
    expect((await eventsAbout(t, created.id)).map((e) => e.type)).toEqual(["order.created"]);
  });

  it("refuses fields it does not change (status, customer, type) naming them", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const created = await newOrder(key);
    for (const body of [{ status: "COMPLETED" }, { customerId: "x" }, { type: "SUIT" }]) {
      const res = await t.api.patch(`/api/vendor/orders/${created.id}`, body, { key });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("validation_failed");
      expect(res.body.errors[0].field).toBe(Object.keys(body)[0]);
    }
    const tooLong = await t.api.patch(`/api/vendor/orders/${created.id}`, { size: "x".repeat(51) }, { key });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.errors[0].field).toBe("size");
  });

  it("another vendor's order is 404 and stays unchanged; orders:read alone is 403", async () => {
    const a = await createVendorWithKey(t.ctx);
    const b = await createVendorWithKey(t.ctx);
    const created = await newOrder(a.key);
    const res = await t.api.patch(`/api/vendor/orders/${created.id}`, { size: "44" }, { key: b.key });
    expect(res.status).toBe(404);
    const readOnly = await createKey(t.ctx, a.vendor.id, ["orders:read"]);
    const refused = await t.api.patch(`/api/vendor/orders/${created.id}`, { size: "44" }, { key: readOnly });
    expect(refused.status).toBe(403);
    expect((await t.api.get(`/api/vendor/orders/${created.id}`, { key: a.key })).body.size).toBe("38");
  });
});

describe("order JSON", () => {
  it("is compact, with keys in the documented order, in every answer", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const created = await t.api.post(
      "/api/vendor/orders",
      { customerName: 'Zoë "Zo" Ålund', type: "SUIT", description: "Line one\nLine two \\ ünïcode" },
      { key },
    );
    const expectedKeys = [
      "id",
      "number",
      "type",
      "status",
      "model",
      "size",
      "color",
      "description",
      "specialRequests",
      "dueDate",
      "pickupDate",
      "dueBackDate",
      "customerId",
      "customer",
      "externalId",
      "metadata",
      "updates",
      "createdAt",
      "updatedAt",
    ];
    const list = await t.api.get("/api/vendor/orders", { key });
    const one = await t.api.get(`/api/vendor/orders/${created.body.id}`, { key });
    for (const text of [created.text, one.text]) {
      // The same bytes JSON.stringify writes: no space around colons or commas, same key order.
      expect(text).toBe(JSON.stringify(JSON.parse(text)));
      expect(Object.keys(JSON.parse(text))).toEqual(expectedKeys);
    }
    expect(list.text).toBe(JSON.stringify(list.body));
    expect(one.body.customer).toEqual({ name: 'Zoë "Zo" Ålund', email: null });
    expect(one.body.description).toBe("Line one\nLine two \\ ünïcode");
    expect(Object.keys(one.body.updates[0])).toEqual([
      "status",
      "message",
      "imageUrl",
      "photos",
      "createdAt",
    ]);
  });
});
