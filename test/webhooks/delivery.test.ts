// Deliveries to real local receivers, with the dispatcher running in the test process and retry
// delays of milliseconds.

import { beforeAll, describe, expect, it } from "vitest";
import { verifyServiceSignature, verifyStandardWebhook } from "../../examples/verify-webhook.ts";
import { enqueueEvent } from "../../src/outbox/enqueue.ts";
import { useDeliveryFixture } from "../helpers/delivery-fixture.ts";
import { deliveriesSettled, sampleOrderPayload } from "../helpers/events.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import type { TestApp } from "../helpers/test-app.ts";
import { eventually } from "../helpers/webhook-receiver.ts";

const fixture = useDeliveryFixture();
const { receiver, register, createOrder, deliveries } = fixture;
let t: TestApp;
beforeAll(() => {
  t = fixture.t;
});

describe("webhook delivery", () => {
  it("delivers each event once per subscribed endpoint, with the documented body, headers and both signatures", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx);
    const [a, b] = [await receiver(), await receiver()];
    const hookA = await register(key, a.url);
    const hookB = await register(key, b.url, ["order.status_changed"]);
    const order = await createOrder(key);
    const changed = await t.api.put(
      `/api/vendor/orders/${order.body.id}/status`,
      { status: "IN_PRODUCTION", message: "Cutting" },
      { key },
    );
    expect(changed.status).toBe(200);

    await a.waitFor(2);
    await b.waitFor(1);
    await deliveriesSettled(t, vendor.id);
    expect(a.requests).toHaveLength(2);
    expect(b.requests).toHaveLength(1);

    const created = a.requests.find((r) => r.body.event === "order.created");
    const statusA = a.requests.find((r) => r.body.event === "order.status_changed");
    if (!created || !statusA) throw new Error("missing events");
    expect(Object.keys(created.body).sort()).toEqual(["data", "event", "id", "timestamp"]);
    expect(created.body.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    // order.created carries the order exactly as the API shows it.
    const read = await t.api.get(`/api/vendor/orders/${order.body.id}`, { key });
    expect(created.body.data).toEqual(JSON.parse(order.text));
    expect(created.body.data.id).toBe(read.body.id);
    expect(statusA.body.data).toEqual({
      id: order.body.id,
      number: order.body.number,
      status: "IN_PRODUCTION",
      previousStatus: "ORDERED",
      customerId: order.body.customerId,
      externalId: null,
      metadata: {},
      updatedAt: read.body.updatedAt,
      message: "Cutting",
      imageUrl: null,
      photos: [],
    });
    // The same event reaches B with the same event id but its own delivery id.
    expect(b.requests[0]?.body.id).toBe(statusA.body.id);
    expect(b.requests[0]?.headers["x-service-delivery"]).not.toBe(statusA.headers["x-service-delivery"]);

    for (const [req, secret] of [
      [created, hookA.secret],
      [statusA, hookA.secret],
      [b.requests[0], hookB.secret],
    ] as const) {
      if (!req) throw new Error("missing request");
      expect(req.headers["content-type"]).toBe("application/json");
      expect(req.headers["user-agent"]).toMatch(/^vendor-api-webhooks\//);
      expect(req.headers["x-service-event"]).toBe(req.body.event);
      expect(req.headers["x-service-delivery"]).toMatch(/^[a-z0-9]{20,32}$/);
      expect(req.headers["webhook-id"]).toBe(req.body.id);
      expect(req.headers["x-service-signature"]).toMatch(/^[0-9a-f]{64}$/);
      expect(verifyServiceSignature(secret, req.rawBody, req.headers["x-service-signature"] as string)).toBe(
        true,
      );
      expect(verifyStandardWebhook(secret, req.rawBody, req.headers)).toBe(true);
      // A signature made with the other endpoint's secret does not verify.
      const other = secret === hookA.secret ? hookB.secret : hookA.secret;
      expect(verifyServiceSignature(other, req.rawBody, req.headers["x-service-signature"] as string)).toBe(
        false,
      );
    }
    const logA = await deliveries(key, hookA.id);
    expect(logA.map((d) => d.status)).toEqual(["SUCCEEDED", "SUCCEEDED"]);
    expect(logA[0].attempts).toEqual([
      expect.objectContaining({ attempt: 1, statusCode: 200, error: null, durationMs: expect.any(Number) }),
    ]);
  });

  it("an always-failing receiver gets exactly 4 attempts with one delivery id, then the delivery is FAILED", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx);
    const r = await receiver(() => ({ status: 500, body: "x".repeat(3000) }));
    const hook = await register(key, r.url, ["order.created"]);
    await createOrder(key);
    await r.waitFor(4);
    await deliveriesSettled(t, vendor.id);
    expect(r.requests).toHaveLength(4);
    expect(new Set(r.requests.map((q) => q.headers["x-service-delivery"])).size).toBe(1);
    expect(new Set(r.requests.map((q) => q.body.id)).size).toBe(1);
    // Backing off: each retry waits at least its configured delay.
    const gaps = r.requests.slice(1).map((q, i) => q.at - (r.requests[i]?.at ?? 0));
    expect(gaps[0]).toBeGreaterThanOrEqual(45);
    expect(gaps[2]).toBeGreaterThanOrEqual(140);
    const [delivery] = await eventually(async () => {
      const list = await deliveries(key, hook.id);
      return list[0]?.status === "FAILED" && list;
    });
    expect(delivery.attemptCount).toBe(4);
    expect(delivery.attempts.map((a: any) => [a.attempt, a.statusCode, a.error])).toEqual([
      [1, 500, "HTTP 500"],
      [2, 500, "HTTP 500"],
      [3, 500, "HTTP 500"],
      [4, 500, "HTTP 500"],
    ]);
    // The log keeps the first 1 KiB of the answer.
    expect(delivery.attempts[0].responseBody).toBe("x".repeat(1024));
  });

  it("an answer holding a NUL byte is logged (as U+FFFD) like any other, on every path that records it", async () => {
    // PostgreSQL text holds no NUL: a 500 (recorded with the breaker, in a transaction) and a 404
    // (recorded in a batch) whose bodies carry one must still be recorded, not fail and resend.
    const { vendor, key } = await createVendorWithKey(t.ctx);
    const r = await receiver((_req, i) => ({
      status: i === 0 ? 500 : i === 1 ? 404 : 200,
      body: "a\u0000b",
    }));
    const hook = await register(key, r.url, ["order.created"]);
    await createOrder(key);
    await r.waitFor(3);
    await deliveriesSettled(t, vendor.id);
    const [delivery] = await eventually(async () => {
      const list = await deliveries(key, hook.id);
      return list[0]?.status === "SUCCEEDED" && list;
    });
    expect(delivery.attempts.map((a: any) => [a.statusCode, a.responseBody])).toEqual([
      [500, "a\uFFFDb"],
      [404, "a\uFFFDb"],
      [200, "a\uFFFDb"],
    ]);
    expect(r.requests).toHaveLength(3);
  });

  it("a receiver that recovers gets the event on a retry, and the delivery SUCCEEDS", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx);
    const r = await receiver((_req, i) => (i < 2 ? { status: 503 } : { status: 200 }));
    const hook = await register(key, r.url, ["order.created"]);
    await createOrder(key);
    await r.waitFor(3);
    const [delivery] = await eventually(async () => {
      const list = await deliveries(key, hook.id);
      return list[0]?.status === "SUCCEEDED" && list;
    });
    expect(delivery.attempts.map((a: any) => a.statusCode)).toEqual([503, 503, 200]);
    await deliveriesSettled(t, vendor.id);
    expect(r.requests).toHaveLength(3);
  });

  it("a redirect is not followed and counts as a failure", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const target = await receiver();
    const r = await receiver(() => ({ status: 307, headers: { location: target.url } }));
    const hook = await register(key, r.url, ["order.created"]);
    await createOrder(key);
    await r.waitFor(4);
    const [delivery] = await eventually(async () => {
      const list = await deliveries(key, hook.id);
      return list[0]?.status === "FAILED" && list;
    });
    expect(delivery.attempts[0].statusCode).toBe(307);
    expect(target.requests).toHaveLength(0);
  });

  it("an answer of 410 Gone disables the webhook at once, with a reason, and no retry follows", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx);
    const r = await receiver(() => ({ status: 410 }));
    const hook = await register(key, r.url, ["order.created"]);
    await createOrder(key);
    await r.waitFor(1);
    const read = await eventually(async () => {
      const res = await t.api.get(`/api/vendor/webhooks/${hook.id}`, { key });
      return res.body.status === "DISABLED" && res;
    });
    expect(read.body.disabledReason).toMatch(/410/);
    await createOrder(key);
    await deliveriesSettled(t, vendor.id);
    expect(r.requests).toHaveLength(1);
  });

  it("a hung receiver is cut at the timeout and the attempt logged as a timeout", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const r = await receiver(() => ({ status: 200, delayMs: 10_000 }));
    const hook = await register(key, r.url, ["order.created"]);
    await createOrder(key);
    const delivery = await eventually(async () => {
      const [d] = await deliveries(key, hook.id);
      return d?.attempts.length >= 1 && d;
    }, 10_000);
    const first = delivery.attempts[0];
    expect(first.statusCode).toBeNull();
    // On a shared PostgreSQL another test file's dispatcher (its own timeout) may take the
    // delivery, so the bound is read from the error: the attempt ended at that timeout.
    const timeout = Number(/^timeout after (\d+) ms$/.exec(first.error)?.[1]);
    expect(timeout).toBeLessThan(5_000);
    expect(first.durationMs).toBeGreaterThanOrEqual(timeout - 20);
    expect(first.durationMs).toBeLessThan(timeout + 1_000);
  });

  it("DISABLED and deleted endpoints get nothing, and another vendor's events never arrive", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx);
    const other = await createVendorWithKey(t.ctx);
    const [live, disabled, deleted, otherVendor] = [
      await receiver(),
      await receiver(),
      await receiver(),
      await receiver(),
    ];
    await register(key, live.url, ["order.created"]);
    const d = await register(key, disabled.url, ["order.created"]);
    const x = await register(key, deleted.url, ["order.created"]);
    await register(other.key, otherVendor.url, ["order.created"]);
    expect((await t.api.patch(`/api/vendor/webhooks/${d.id}`, { status: "DISABLED" }, { key })).status).toBe(
      200,
    );
    expect((await t.api.delete(`/api/vendor/webhooks/${x.id}`, { key })).status).toBe(204);
    await createOrder(key);
    await createOrder(key);
    await live.waitFor(2);
    await deliveriesSettled(t, vendor.id);
    expect(live.requests).toHaveLength(2);
    expect(disabled.requests).toHaveLength(0);
    expect(deleted.requests).toHaveLength(0);
    expect(otherVendor.requests).toHaveLength(0);
  });

  it("a rolled-back change emits nothing", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx);
    const r = await receiver();
    await register(key, r.url, ["order.created"]);
    await expect(
      t.ctx.db.transaction(async (tx) => {
        await enqueueEvent(tx, {
          vendorId: vendor.id,
          type: "order.created",
          data: sampleOrderPayload("rolled-back"),
          createdAt: new Date(),
        });
        throw new Error("the change fails after its event was written");
      }),
    ).rejects.toThrow(/change fails/);
    // A failed order creation (invalid body) emits nothing either; a good one does.
    expect((await t.api.post("/api/vendor/orders", { customerName: "", type: "SUIT" }, { key })).status).toBe(
      400,
    );
    await createOrder(key);
    await r.waitFor(1);
    await deliveriesSettled(t, vendor.id);
    expect(r.requests).toHaveLength(1);
    expect(r.requests[0]?.body.data.id).not.toBe("rolled-back");
    const events = await t.api.get("/api/vendor/events", { key });
    expect(events.body.events.map((e: any) => e.data.id)).not.toContain("rolled-back");
  });
});
