import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { events } from "../../src/db/schema/index.ts";
import { orderTransitions } from "../../src/modules/orders/orders.workflow.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();
let key: string;
let vendorId: string;
beforeAll(async () => {
  const v = await createVendorWithKey(t.ctx);
  key = v.key;
  vendorId = v.vendor.id;
});

// How to reach each status from ORDERED.
const pathTo: Record<string, string[]> = {
  ORDERED: [],
  IN_PRODUCTION: ["IN_PRODUCTION"],
  FITTING_READY: ["FITTING_READY"],
  ALTERATIONS: ["FITTING_READY", "ALTERATIONS"],
  READY_FOR_PICKUP: ["READY_FOR_PICKUP"],
  PICKED_UP: ["READY_FOR_PICKUP", "PICKED_UP"],
  RETURNED: ["READY_FOR_PICKUP", "PICKED_UP", "RETURNED"],
  COMPLETED: ["READY_FOR_PICKUP", "PICKED_UP", "COMPLETED"],
  CANCELLED: ["CANCELLED"],
};

async function orderAt(status: string, type = "RENTAL"): Promise<string> {
  const res = await t.api.post("/api/vendor/orders", { customerName: "Flow", type }, { key });
  for (const step of pathTo[status] ?? []) {
    const moved = await t.api.put(`/api/vendor/orders/${res.body.id}/status`, { status: step }, { key });
    expect(moved.status, `${status} via ${step}`).toBe(200);
  }
  return res.body.id;
}

const put = (id: string, body: unknown, k = key) =>
  t.api.put(`/api/vendor/orders/${id}/status`, body, { key: k });

describe("PUT /api/vendor/orders/{id}/status", () => {
  const allowedMoves = Object.entries(orderTransitions).flatMap(([from, tos]) => tos.map((to) => [from, to]));
  it.each(allowedMoves)("allows %s → %s", async (from, to) => {
    const id = await orderAt(from);
    const res = await put(id, { status: to, message: `Now ${to}` });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id, status: to });
    const order = await t.api.get(`/api/vendor/orders/${id}`, { key });
    expect(order.body.status).toBe(to);
    expect(order.body.updates.at(-1)).toMatchObject({ status: to, message: `Now ${to}` });
  });

  it.each([
    ["ORDERED", "PICKED_UP"],
    ["ORDERED", "COMPLETED"],
    ["ORDERED", "ALTERATIONS"],
    ["IN_PRODUCTION", "ORDERED"],
    ["READY_FOR_PICKUP", "IN_PRODUCTION"],
    ["PICKED_UP", "CANCELLED"],
    ["COMPLETED", "ORDERED"],
    ["COMPLETED", "CANCELLED"],
    ["CANCELLED", "IN_PRODUCTION"],
    ["RETURNED", "PICKED_UP"],
  ])("refuses %s → %s with 409 invalid_transition and changes nothing", async (from, to) => {
    const id = await orderAt(from);
    const before = await t.api.get(`/api/vendor/orders/${id}`, { key });
    const res = await put(id, { status: to });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("invalid_transition");
    expect(res.body.detail).toContain(from);
    const after = await t.api.get(`/api/vendor/orders/${id}`, { key });
    expect(after.body).toEqual(before.body);
  });

  it("refuses RETURNED for an order that is not a RENTAL", async () => {
    const id = await orderAt("PICKED_UP", "SUIT");
    const res = await put(id, { status: "RETURNED" });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("invalid_transition");
  });

  it("a move to the same status appends a history entry and emits no order.status_changed", async () => {
    const id = await orderAt("IN_PRODUCTION");
    const countChanged = async () =>
      (
        await t.ctx.db
          .select()
          .from(events)
          .where(and(eq(events.vendorId, vendorId), eq(events.type, "order.status_changed")))
      ).filter((e) => e.data.id === id).length;
    const changedBefore = await countChanged();
    const res = await put(id, {
      status: "IN_PRODUCTION",
      message: "Lace sewn on",
      imageUrl: "https://photos.example.com/lace.jpg",
    });
    expect(res.status).toBe(200);
    const order = await t.api.get(`/api/vendor/orders/${id}`, { key });
    expect(order.body.updates).toHaveLength(3);
    expect(order.body.updates[2]).toMatchObject({
      status: "IN_PRODUCTION",
      message: "Lace sewn on",
      imageUrl: "https://photos.example.com/lace.jpg",
    });
    expect(await countChanged()).toBe(changedBefore);
  });

  it("emits order.status_changed with id, status, previousStatus, customerId, updatedAt, message, imageUrl", async () => {
    const id = await orderAt("ORDERED");
    await put(id, { status: "FITTING_READY", message: "Come try it on", imageUrl: "http://x.example/a.png" });
    const order = await t.api.get(`/api/vendor/orders/${id}`, { key });
    const rows = await t.ctx.db
      .select()
      .from(events)
      .where(and(eq(events.vendorId, vendorId), eq(events.type, "order.status_changed")));
    const event = rows.find((e) => e.data.id === id);
    expect(event?.data).toEqual({
      id,
      number: order.body.number,
      status: "FITTING_READY",
      previousStatus: "ORDERED",
      customerId: order.body.customerId,
      externalId: null,
      metadata: {},
      updatedAt: order.body.updatedAt,
      message: "Come try it on",
      imageUrl: "http://x.example/a.png",
      photos: [],
    });
  });

  it.each([
    [{}, "status"],
    [{ status: "SHIPPED" }, "status"],
    [{ status: 3 }, "status"],
    [{ status: "IN_PRODUCTION", message: 5 }, "message"],
    [{ status: "IN_PRODUCTION", message: "m".repeat(2001) }, "message"],
    [{ status: "IN_PRODUCTION", imageUrl: "/relative/photo.jpg" }, "imageUrl"],
    [{ status: "IN_PRODUCTION", imageUrl: "javascript:alert(1)" }, "imageUrl"],
    [{ status: "IN_PRODUCTION", imageUrl: "ftp://files.example.com/p.jpg" }, "imageUrl"],
    [{ status: "IN_PRODUCTION", imageUrl: `https://e.example/${"a".repeat(2040)}` }, "imageUrl"],
    [{ status: "IN_PRODUCTION", updatedAt: "2020-01-01T00:00:00.000Z" }, "updatedAt"],
  ])("bad body %j → 400 naming %s", async (body, field) => {
    const id = await orderAt("ORDERED");
    const res = await put(id, body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("validation_failed");
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
  });

  it("accepts a 2000-character message and a 2048-character URL", async () => {
    const id = await orderAt("ORDERED");
    const url = `https://e.example/${"a".repeat(2048 - "https://e.example/".length)}`;
    const res = await put(id, { status: "IN_PRODUCTION", message: "m".repeat(2000), imageUrl: url });
    expect(res.status).toBe(200);
  });
});

describe("another vendor's order, unknown and malformed ids", () => {
  it("is 404 not_found on read and on status update, and is left unchanged", async () => {
    const id = await orderAt("ORDERED");
    const other = await createVendorWithKey(t.ctx);
    const read = await t.api.get(`/api/vendor/orders/${id}`, { key: other.key });
    expect(read.status).toBe(404);
    expect(read.body.code).toBe("not_found");
    const update = await put(id, { status: "CANCELLED" }, other.key);
    expect(update.status).toBe(404);
    expect(update.body.code).toBe("not_found");
    const mine = await t.api.get(`/api/vendor/orders/${id}`, { key });
    expect(mine.body.status).toBe("ORDERED");
  });

  it.each(["zzzzzzzzzzzzzzzzzzzzzzzz", "not-an-id", "1", "%27%20or%201=1--", "a".repeat(150)])(
    "id %s → 404 not_found on read and update",
    async (id) => {
      const read = await t.api.get(`/api/vendor/orders/${id}`, { key });
      expect(read.status).toBe(404);
      expect(read.body.code).toBe("not_found");
      const update = await put(id, { status: "CANCELLED" });
      expect(update.status).toBe(404);
    },
  );
});
