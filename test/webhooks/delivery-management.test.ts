// Secret rotation, test events, redelivery, recovery, auto-disable and the example receiver,
// against real local receivers with the dispatcher running in the test process.

import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import {
  createReceiver,
  type ReceivedEvent,
  verifyServiceSignature,
  verifyStandardWebhook,
} from "../../examples/verify-webhook.ts";
import { useDeliveryFixture } from "../helpers/delivery-fixture.ts";
import { deliveriesSettled } from "../helpers/events.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { freePort } from "../helpers/ports.ts";
import type { TestApp } from "../helpers/test-app.ts";
import { eventually } from "../helpers/webhook-receiver.ts";

const fixture = useDeliveryFixture();
const { receiver, register, createOrder, deliveries } = fixture;
let t: TestApp;
beforeAll(() => {
  t = fixture.t;
});

describe("webhook delivery management", () => {
  it("after rotate-secret, the old secret signs X-Service-Signature and webhook-signature carries both", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const r = await receiver();
    const hook = await register(key, r.url, ["order.created"]);
    const rotated = await t.api.post(
      `/api/vendor/webhooks/${hook.id}/rotate-secret`,
      { overlapSeconds: 3600 },
      { key },
    );
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(hook.secret);
    await createOrder(key);
    const [req] = await r.waitFor(1);
    if (!req) throw new Error("no request");
    expect(
      verifyServiceSignature(hook.secret, req.rawBody, req.headers["x-service-signature"] as string),
    ).toBe(true);
    expect(String(req.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    expect(verifyStandardWebhook(hook.secret, req.rawBody, req.headers)).toBe(true);
    expect(verifyStandardWebhook(rotated.body.secret, req.rawBody, req.headers)).toBe(true);

    // With no overlap the new secret alone signs at once.
    const again = await t.api.post(
      `/api/vendor/webhooks/${hook.id}/rotate-secret`,
      { overlapSeconds: 0 },
      { key },
    );
    await createOrder(key);
    const [, second] = await r.waitFor(2);
    if (!second) throw new Error("no request");
    expect(
      verifyServiceSignature(
        again.body.secret,
        second.rawBody,
        second.headers["x-service-signature"] as string,
      ),
    ).toBe(true);
    expect(String(second.headers["webhook-signature"]).split(" ")).toHaveLength(1);
  });

  it("test sends webhook.test to that endpoint only; redeliver and recover send the event again as new deliveries", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx);
    let fail = true;
    const r = await receiver((req) => ({ status: fail && req.body.event === "order.created" ? 500 : 200 }));
    const bystander = await receiver();
    const hook = await register(key, r.url, ["order.created"]);
    await register(key, bystander.url, ["order.created"]);

    const test = await t.api.post(`/api/vendor/webhooks/${hook.id}/test`, undefined, { key });
    expect(test.status).toBe(202);
    const [testReq] = await r.waitFor(1);
    expect(testReq?.body).toMatchObject({
      id: test.body.eventId,
      event: "webhook.test",
      data: { webhookId: hook.id },
    });

    await createOrder(key);
    await r.waitFor(1 + 4);
    const failed = await eventually(async () => {
      const list = await deliveries(key, hook.id);
      return list.find((d) => d.event === "order.created" && d.status === "FAILED");
    });
    fail = false;
    const redo = await t.api.post(
      `/api/vendor/webhooks/${hook.id}/deliveries/${failed.id}/redeliver`,
      undefined,
      { key },
    );
    expect(redo.status).toBe(202);
    expect(redo.body.deliveryId).not.toBe(failed.id);
    const [, , , , , sixth] = await r.waitFor(6);
    expect(sixth?.body.id).toBe(failed.eventId);
    expect(sixth?.headers["x-service-delivery"]).toBe(redo.body.deliveryId);

    const one = await t.api.get(`/api/vendor/webhooks/${hook.id}/deliveries/${redo.body.deliveryId}`, {
      key,
    });
    await eventually(async () => {
      const res = await t.api.get(`/api/vendor/webhooks/${hook.id}/deliveries/${redo.body.deliveryId}`, {
        key,
      });
      return res.body.status === "SUCCEEDED";
    });
    expect(one.body).toMatchObject({
      id: redo.body.deliveryId,
      redeliveryOf: failed.id,
      eventId: failed.eventId,
    });

    // Recover: the event already succeeded through the redelivery, so nothing is re-queued;
    // another failed event in the window is.
    fail = true;
    await createOrder(key);
    await r.waitFor(6 + 4);
    await eventually(
      async () => (await deliveries(key, hook.id)).filter((d) => d.status === "FAILED").length === 2,
    );
    fail = false;
    const recovered = await t.api.post(
      `/api/vendor/webhooks/${hook.id}/recover`,
      { since: new Date(Date.now() - 60_000).toISOString() },
      { key },
    );
    expect(recovered.status).toBe(202);
    expect(recovered.body).toEqual({ count: 1 });
    await r.waitFor(11);
    await deliveriesSettled(t, vendor.id);
    expect(r.requests).toHaveLength(11);
    // The bystander saw each order once and never the test event.
    expect(bystander.requests.map((q) => q.body.event)).toEqual(["order.created", "order.created"]);
  });

  it("the example receiver in examples/verify-webhook.ts accepts a real delivery and rejects a forged one", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const port = await freePort();
    const hook = await register(key, `http://127.0.0.1:${port}/hook`, ["order.created"]);
    const got: ReceivedEvent[] = [];
    const server = createReceiver(hook.secret, (e) => got.push(e));
    await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    try {
      const order = await createOrder(key);
      await eventually(async () => got.length === 1);
      expect(got[0]?.event).toMatchObject({ event: "order.created", data: { id: order.body.id } });
      const [delivery] = await deliveries(key, hook.id);
      expect(delivery.attempts[0].statusCode).toBe(204);
      const body = JSON.stringify({
        id: "x",
        event: "order.created",
        data: {},
        timestamp: new Date().toISOString(),
      });
      const forged = await fetch(`http://127.0.0.1:${port}/hook`, {
        method: "POST",
        body,
        headers: {
          "content-type": "application/json",
          "x-service-signature": "0".repeat(64),
          "webhook-id": "x",
          "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
          "webhook-signature": "v1,AAAA",
        },
      });
      expect(forged.status).toBe(401);
      expect(got).toHaveLength(1);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it("the example receiver hands an event over once when a redelivery sends it again under a new delivery id (issue 28 item 2)", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const port = await freePort();
    const hook = await register(key, `http://127.0.0.1:${port}/hook`, ["order.created"]);
    const got: ReceivedEvent[] = [];
    const server = createReceiver(hook.secret, (e) => got.push(e));
    await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    try {
      await createOrder(key);
      await eventually(async () => got.length === 1);
      const [first] = await deliveries(key, hook.id);
      const again = await t.api.post(
        `/api/vendor/webhooks/${hook.id}/deliveries/${first.id}/redeliver`,
        {},
        { key },
      );
      expect(again.status).toBe(202);
      await eventually(
        async () => (await deliveries(key, hook.id)).filter((d) => d.status === "SUCCEEDED").length === 2,
      );
      expect(got).toHaveLength(1);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it("a webhook with no success for 5 days and 10 exhausted deliveries is disabled with a reason; a young one is not", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const r = await receiver(() => ({ status: 500 }));
    const old = await register(key, r.url, ["order.created"]);
    const young = await register(key, r.url.replace("/hook", "/young"), ["order.created"]);
    const sixDaysAgo = new Date(Date.now() - 6 * 86_400_000).toISOString();
    await t.ctx.db.execute(
      sql`update webhooks set created_at = ${sixDaysAgo}::timestamptz where id = ${old.id}`,
    );
    for (let i = 0; i < 9; i++) await createOrder(key);
    await eventually(
      async () => (await deliveries(key, old.id)).filter((d) => d.status === "FAILED").length === 9,
    );
    expect((await t.api.get(`/api/vendor/webhooks/${old.id}`, { key })).body.status).toBe("ACTIVE");
    await createOrder(key);
    const disabled = await eventually(async () => {
      const res = await t.api.get(`/api/vendor/webhooks/${old.id}`, { key });
      return res.body.status === "DISABLED" && res.body;
    });
    expect(disabled.disabledReason).toMatch(/No successful delivery for 5 days/);
    await eventually(
      async () => (await deliveries(key, young.id)).filter((d) => d.status === "FAILED").length === 10,
    );
    expect((await t.api.get(`/api/vendor/webhooks/${young.id}`, { key })).body.status).toBe("ACTIVE");
  });
});
