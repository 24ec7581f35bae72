// The event catalog drives every payload: each event a receiver gets matches its
// catalog schema, every catalog event is delivered here, and a wrong payload does not compile.
import { Ajv } from "ajv";
import * as ajvFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import type { Tx } from "../../src/db/client.ts";
import { type AnyEventType, allEventTypes, eventTypes } from "../../src/modules/events/catalog.ts";
import { sweepOrderAlerts } from "../../src/modules/orders/order-alerts.service.ts";
import { eventEnvelope } from "../../src/openapi/webhooks.ts";
import { enqueueEvent } from "../../src/outbox/enqueue.ts";
import { useDeliveryFixture } from "../helpers/delivery-fixture.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { eventually } from "../helpers/webhook-receiver.ts";

const f = useDeliveryFixture();
const addFormats = ((ajvFormats as any).default ?? ajvFormats) as (ajv: Ajv) => Ajv;
const ajv = addFormats(new Ajv({ allErrors: true, strict: false }));

describe("delivered payloads", () => {
  it("every event of the catalog is delivered with a body that matches its schema", async () => {
    const { vendor, key } = await createVendorWithKey(f.t.ctx);
    const r = await f.receiver();
    const hook = await f.register(key, r.url, [...eventTypes]);
    const api = f.t.api;

    const order = await api.post(
      "/api/vendor/orders",
      {
        customerName: "Maria Silva",
        customerEmail: "maria@example.com",
        customerPhone: "+351 912 345 678",
        weddingDate: "2027-06-12",
        type: "BRIDAL_DRESS",
        model: "Aurora",
        size: "38",
      },
      { key },
    );
    expect(order.status).toBe(201);
    expect((await api.patch(`/api/vendor/orders/${order.body.id}`, { size: "40" }, { key })).status).toBe(
      200,
    );
    const moved = await api.put(
      `/api/vendor/orders/${order.body.id}/status`,
      {
        status: "IN_PRODUCTION",
        message: "Your dress is being cut",
        imageUrl: "https://photos.example.com/1.jpg",
      },
      { key },
    );
    expect(moved.status).toBe(200);
    const fitting = { customerId: order.body.customerId, type: "FITTING", date: "2027-05-01T10:00:00Z" };
    const a1 = await api.post("/api/vendor/appointments", fitting, { key });
    const a2 = await api.post("/api/vendor/appointments", { ...fitting, orderId: order.body.id }, { key });
    expect(
      (await api.patch(`/api/vendor/appointments/${a1.body.id}`, { status: "CONFIRMED" }, { key })).status,
    ).toBe(200);
    expect(
      (await api.patch(`/api/vendor/appointments/${a2.body.id}`, { status: "CANCELLED" }, { key })).status,
    ).toBe(200);
    expect((await api.delete(`/api/vendor/appointments/${a2.body.id}`, { key })).status).toBe(204);
    expect(
      (await api.patch(`/api/vendor/appointments/${a1.body.id}`, { duration: 90 }, { key })).status,
    ).toBe(200);
    expect(
      (await api.patch(`/api/vendor/appointments/${a1.body.id}`, { status: "COMPLETED" }, { key })).status,
    ).toBe(200);
    expect(
      (
        await api.patch(
          `/api/vendor/customers/${order.body.customerId}`,
          { notes: "Prefers mornings" },
          { key },
        )
      ).status,
    ).toBe(200);
    const leaving = await api.post("/api/vendor/customers", { name: "Rita Lopes" }, { key });
    expect((await api.delete(`/api/vendor/customers/${leaving.body.id}`, { key })).status).toBe(204);
    const inquiry = await api.post(`/api/public/vendors/${vendor.id}/inquiries`, {
      name: "Ana Costa",
      email: "ana@example.com",
      message: "Do you have the Aurora in size 42?",
    });
    expect(inquiry.status).toBe(201);
    // A wedding 30 days away with the dress not yet ready crosses a risk rule when the order is made
    // (order.at_risk); a rental picked up and two days past its due-back date is overdue.
    const soon = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
    const atRisk = await api.post(
      "/api/vendor/orders",
      { customerName: "Rita Risk", type: "BRIDAL_DRESS", weddingDate: soon },
      { key },
    );
    expect(atRisk.status).toBe(201);
    const ago = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
    const rental = await api.post(
      "/api/vendor/orders",
      { customerName: "Olga Overdue", type: "RENTAL", pickupDate: ago(6), dueBackDate: ago(2) },
      { key },
    );
    expect(rental.status).toBe(201);
    for (const status of ["READY_FOR_PICKUP", "PICKED_UP"]) {
      const res = await api.put(`/api/vendor/orders/${rental.body.id}/status`, { status }, { key });
      expect(res.status).toBe(200);
    }
    await sweepOrderAlerts(f.t.ctx);
    expect((await api.post(`/api/vendor/webhooks/${hook.id}/test`, undefined, { key })).status).toBe(202);

    // At-least-once: a slow answer may be retried, so collect distinct events until all arrived.
    const byEvent = await eventually(async () => {
      // The first of each type: the rental's later status changes are order.status_changed too.
      const seen = new Map(
        [...r.requests].reverse().map((req) => [req.body.event as AnyEventType, req.body]),
      );
      return seen.size >= allEventTypes.length && seen;
    }, 20_000);
    expect([...byEvent.keys()].sort()).toEqual([...allEventTypes].sort());
    for (const name of allEventTypes) {
      const validate = ajv.compile(eventEnvelope(name));
      const body = byEvent.get(name);
      expect(validate(body), `${name}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    }
    expect(byEvent.get("order.status_changed")?.data).toMatchObject({
      id: order.body.id,
      status: "IN_PRODUCTION",
      previousStatus: "ORDERED",
      message: "Your dress is being cut",
      imageUrl: "https://photos.example.com/1.jpg",
    });
    expect(byEvent.get("order.updated")?.data.size).toBe("40");
  });

  it("a payload of the wrong shape for its event does not compile", () => {
    // Never called: tsc checks these lines (npm run typecheck), and each must be an error.
    const wrong = (tx: Tx) => [
      // @ts-expect-error order.status_changed needs previousStatus, customerId, updatedAt… ({ id } alone is customer.deleted's)
      enqueueEvent(tx, {
        vendorId: "v",
        type: "order.status_changed",
        data: { id: "o" },
        createdAt: new Date(),
      }),
      // @ts-expect-error no such event
      enqueueEvent(tx, { vendorId: "v", type: "order.deleted", data: {}, createdAt: new Date() }),
      enqueueEvent(tx, {
        vendorId: "v",
        type: "webhook.test",
        // @ts-expect-error webhook.test carries webhookId and message, not an order
        data: { id: "o", status: "ORDERED" },
        createdAt: new Date(),
      }),
    ];
    expect(typeof wrong).toBe("function");
  });
});
