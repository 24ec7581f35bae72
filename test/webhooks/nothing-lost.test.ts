// Issue 28 item 2: nothing is lost to a disabled spell, and at most one attempt of an event is in
// flight per endpoint. Events that happen while an endpoint is DISABLED are kept as SKIPPED
// deliveries, which `recover` re-queues after it is enabled again, in the order the events
// happened; a redeliver while the event's delivery is still PENDING (a retry waits, or an attempt
// is in flight) reuses that delivery instead of sending the event a second time beside it.
// One attempt at a time per endpoint here, so the order of arrival is the order of queueing; a
// failed attempt waits a minute for its retry, so a retry stays pending while the test acts.
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.ts";
import { requeueRecoverable } from "../../src/modules/webhooks/webhooks.repository.ts";
import { useDeliveryFixture } from "../helpers/delivery-fixture.ts";
import { deliveriesSettled } from "../helpers/events.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import type { TestApp } from "../helpers/test-app.ts";
import { eventually } from "../helpers/webhook-receiver.ts";

// The timeout is long: a request the receiver holds open must stay in flight however loaded the
// machine (the fixture's 500 ms would time it out and let its retry run beside it).
const fixture = useDeliveryFixture({
  WEBHOOK_ENDPOINT_CONCURRENCY: "1",
  WEBHOOK_RETRY_DELAYS_MS: "60000",
  WEBHOOK_TIMEOUT_MS: "10000",
});
const { receiver, register, createOrder, deliveries } = fixture;
let t: TestApp;
beforeAll(() => {
  t = fixture.t;
});

async function setStatus(key: string, id: string, status: "ACTIVE" | "DISABLED") {
  const res = await t.api.patch(`/api/vendor/webhooks/${id}`, { status }, { key });
  expect(res.status).toBe(200);
}

/** Every delivery of `eventId` to `webhookId`, straight from the table. */
async function deliveryRows(webhookId: string, eventId: string) {
  return queryRows<{ id: string; status: string }>(
    t.ctx.db,
    sql`select id, status from webhook_deliveries where webhook_id = ${webhookId} and event_id = ${eventId}
        order by created_at, id`,
  );
}

describe("a disabled spell loses nothing (issue 28 item 2)", () => {
  it("events while DISABLED are kept as SKIPPED deliveries, unsent, and recover sends them in order after re-enable", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx);
    const r = await receiver();
    const hook = await register(key, r.url, ["order.created"]);
    const before = await createOrder(key, "Before the spell");
    await r.waitFor(1);

    const spellStarted = new Date().toISOString();
    await setStatus(key, hook.id, "DISABLED");
    const during: string[] = [];
    for (const name of ["Ana", "Bea", "Carla", "Dora"]) {
      const res = await createOrder(key, name);
      expect(res.status).toBe(201);
      during.push(res.body.id);
    }
    // A type the endpoint does not subscribe to is not kept for it.
    const customer = await t.api.post(
      "/api/vendor/customers",
      { name: "Eva", email: "eva@example.com" },
      { key },
    );
    expect(customer.status).toBe(201);
    await deliveriesSettled(t, vendor.id);
    expect(r.requests).toHaveLength(1);

    const list = await deliveries(key, hook.id);
    const skipped = list.filter((d) => d.status === "SKIPPED");
    expect(skipped).toHaveLength(4);
    expect(skipped.every((d) => d.event === "order.created" && d.attemptCount === 0)).toBe(true);
    expect(skipped.every((d) => d.nextAttemptAt === null && d.attempts.length === 0)).toBe(true);

    await setStatus(key, hook.id, "ACTIVE");
    const recovered = await t.api.post(
      `/api/vendor/webhooks/${hook.id}/recover`,
      { since: spellStarted },
      { key },
    );
    expect(recovered.status).toBe(202);
    expect(recovered.body).toEqual({ count: 4 });
    await r.waitFor(5);
    await deliveriesSettled(t, vendor.id);
    expect(r.requests.map((q) => q.body.data.id)).toEqual([before.body.id, ...during]);

    // Recovered once: a second recover over the same window finds nothing left to send.
    const again = await t.api.post(
      `/api/vendor/webhooks/${hook.id}/recover`,
      { since: spellStarted },
      { key },
    );
    expect(again.body).toEqual({ count: 0 });
    expect(r.requests).toHaveLength(5);
  });

  it("recover sends the events of a spell in the order they happened, however many", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx);
    const r = await receiver();
    const hook = await register(key, r.url, ["order.created"]);
    const since = new Date().toISOString();
    await setStatus(key, hook.id, "DISABLED");
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push((await createOrder(key, `Spell ${i}`)).body.id);
    await setStatus(key, hook.id, "ACTIVE");
    const recovered = await t.api.post(`/api/vendor/webhooks/${hook.id}/recover`, { since }, { key });
    expect(recovered.body).toEqual({ count: 12 });
    await r.waitFor(12);
    await deliveriesSettled(t, vendor.id);
    expect(r.requests.map((q) => q.body.data.id)).toEqual(ids);
  });

  it("recovered deliveries are due one after another in the order their events happened, as stored", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx);
    const r = await receiver();
    const hook = await register(key, r.url, ["order.created"]);
    const since = new Date();
    await setStatus(key, hook.id, "DISABLED");
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push((await createOrder(key, `Stored ${i}`)).body.id);
    // Requeued as of tomorrow, so no dispatcher takes one before the test reads them. Due times are
    // stored to the millisecond: spaced a microsecond apart, all twelve were one instant, and a
    // claim took them in whatever order the rows lay.
    const tomorrow = new Date(Date.now() + 86_400_000);
    const n = await requeueRecoverable(
      t.ctx.db,
      { vendorId: vendor.id, id: hook.id },
      { since, until: tomorrow },
      tomorrow,
    );
    expect(n).toBe(12);
    const due = await queryRows<{ order_id: string; due: string }>(
      t.ctx.db,
      sql`select e.data->>'id' as order_id, to_char(d.next_attempt_at, 'YYYY-MM-DD HH24:MI:SS.US') as due
          from webhook_deliveries d join events e on e.id = d.event_id
          where d.webhook_id = ${hook.id} and d.status = 'PENDING'
          order by d.next_attempt_at, d.id`,
    );
    expect(due.map((d) => d.order_id)).toEqual(ids);
    expect(new Set(due.map((d) => d.due)).size).toBe(12);
    await t.ctx.db.execute(sql`delete from webhook_deliveries where webhook_id = ${hook.id}`);
  });
});

describe("at most one attempt of an event in flight per endpoint (issue 28 item 2)", () => {
  it("a redeliver while a retry is pending sends the pending delivery now instead of a second one beside it", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx);
    let fail = true;
    const r = await receiver(() => ({ status: fail ? 500 : 200 }));
    const hook = await register(key, r.url, ["order.created"]);
    await createOrder(key);
    await r.waitFor(1);
    const [pending] = await eventually(async () => {
      const list = await deliveries(key, hook.id);
      return list[0]?.status === "PENDING" && list[0].attemptCount === 1 && list;
    });
    // The retry is due in a minute.
    expect(new Date(pending.nextAttemptAt).getTime()).toBeGreaterThan(Date.now() + 30_000);

    fail = false;
    const redo = await t.api.post(
      `/api/vendor/webhooks/${hook.id}/deliveries/${pending.id}/redeliver`,
      undefined,
      { key },
    );
    expect(redo.status).toBe(202);
    expect(redo.body).toEqual({ deliveryId: pending.id, eventId: pending.eventId });
    const [, second] = await r.waitFor(2);
    expect(second?.headers["x-service-delivery"]).toBe(pending.id);
    expect(second?.headers["webhook-id"]).toBe(pending.eventId);
    await deliveriesSettled(t, vendor.id);
    expect(r.requests).toHaveLength(2);
    expect(await deliveryRows(hook.id, pending.eventId)).toEqual([{ id: pending.id, status: "SUCCEEDED" }]);
  });

  it("a redeliver while an attempt is in flight queues nothing beside it, and redelivers at once never queue two", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx);
    // The receiver holds every request open until the test lets go (`hold` makes a new gate).
    let release!: () => void;
    let gate!: Promise<void>;
    const hold = () => {
      gate = new Promise<void>((resolve) => {
        release = resolve;
      });
    };
    hold();
    let open = 0;
    let most = 0;
    const r = await receiver(() => {
      open++;
      most = Math.max(most, open);
      return { status: 200, until: gate.then(() => open--) };
    });
    const hook = await register(key, r.url, ["order.created"]);
    await createOrder(key);
    const [first] = await r.waitFor(1);
    const deliveryId = String(first?.headers["x-service-delivery"]);
    const eventId = String(first?.headers["webhook-id"]);

    // Five at once, while the first attempt is still in flight.
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        t.api.post(`/api/vendor/webhooks/${hook.id}/deliveries/${deliveryId}/redeliver`, undefined, { key }),
      ),
    );
    for (const a of answers) expect(a.body).toEqual({ deliveryId, eventId });
    expect(await deliveryRows(hook.id, eventId)).toEqual([{ id: deliveryId, status: "PENDING" }]);
    release();
    await deliveriesSettled(t, vendor.id);
    expect(r.requests).toHaveLength(1);
    expect(most).toBe(1);

    // Once the event is delivered, redelivers at once queue one new delivery between them (its
    // attempt held open meanwhile, so none of them finds the event delivered again).
    hold();
    const later = await Promise.all(
      Array.from({ length: 4 }, () =>
        t.api.post(`/api/vendor/webhooks/${hook.id}/deliveries/${deliveryId}/redeliver`, undefined, { key }),
      ),
    );
    const ids = new Set(later.map((a) => a.body.deliveryId));
    expect(ids.size).toBe(1);
    expect(ids.has(deliveryId)).toBe(false);
    await r.waitFor(2);
    release();
    await deliveriesSettled(t, vendor.id);
    expect(r.requests).toHaveLength(2);
    expect((await deliveryRows(hook.id, eventId)).map((d) => d.status)).toEqual(["SUCCEEDED", "SUCCEEDED"]);
  });
});
