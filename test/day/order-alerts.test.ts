// CONTRACT 12, Dates of an order: order.at_risk once per risk rule an order crosses, order.overdue
// once when a rental passes its dueBackDate not RETURNED, the customer's reminder mail once the day
// before, all through the outboxes to a real webhook receiver and a real SMTP server; and exactly
// once however many sweeps run at the same time (the (order, kind) primary key of order_alerts).
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.ts";
import { sweepOrderAlerts } from "../../src/modules/orders/order-alerts.service.ts";
import { type Dispatcher, startDispatcher } from "../../src/webhook-delivery/dispatcher.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useMailSender } from "../helpers/smtp.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";
import { eventually, type Receiver, startReceiver } from "../helpers/webhook-receiver.ts";
import { day } from "./seed.ts";

let t: TestApp;
let dispatcher: Dispatcher;
let receiver: Receiver;
beforeAll(async () => {
  t = await startTestApp({
    ownDatabase: true,
    env: { WEBHOOK_RETRY_DELAYS_MS: "50,100,150", WEBHOOK_TIMEOUT_MS: "2000" },
  });
  dispatcher = await startDispatcher({ config: t.config, database: t.database });
  receiver = await startReceiver();
});
afterAll(async () => {
  await dispatcher?.stop(1_000);
  await receiver?.close();
  await t?.close();
});
const mail = useMailSender(() => t);

async function shop() {
  const { key, vendor } = await createVendorWithKey(t.ctx);
  await t.ctx.db.execute(sql`update vendors set customer_mail = true where id = ${vendor.id}`);
  const hook = await t.api.post(
    "/api/vendor/webhooks",
    { url: receiver.url, events: ["order.at_risk", "order.overdue"] },
    { key },
  );
  expect(hook.status).toBe(201);
  return { key, vendorId: vendor.id };
}

/** What the receiver got about `orderId`: [type, rule key] in arrival order, and the event ids. */
function received(orderId: string) {
  const hits = receiver.requests.filter((r) => r.body?.data?.order?.id === orderId);
  return {
    kinds: hits.map((r) => [
      r.body.event,
      r.body.data.rule ? `${r.body.data.rule.status}:${r.body.data.rule.daysBefore}` : null,
    ]),
    ids: hits.map((r) => r.headers["webhook-id"]),
  };
}

async function eventsOf(orderId: string) {
  return queryRows<{ type: string; rule: string | null }>(
    t.ctx.db,
    sql`select type, (data->'rule'->>'status') || ':' || (data->'rule'->>'daysBefore') as rule from events
        where type in ('order.at_risk', 'order.overdue') and data->'order'->>'id' = ${orderId} order by created_at, id`,
  );
}

const move = async (key: string, id: string, status: string) =>
  expect((await t.api.put(`/api/vendor/orders/${id}/status`, { status }, { key })).status).toBe(200);

describe("order.at_risk", () => {
  it("is emitted once per rule crossed, when made and by the sweep, and delivered once each", async () => {
    const { key } = await shop();
    const customer = await t.api.post(
      "/api/vendor/customers",
      { name: "Rita", weddingDate: day(30) },
      { key },
    );
    const order = await t.api.post(
      "/api/vendor/orders",
      { customerId: customer.body.id, type: "BRIDAL_DRESS" },
      { key },
    );
    expect(order.status).toBe(201);
    // 30 days before the wedding and not FITTING_READY: the 56-day rule, at once.
    expect(await eventsOf(order.body.id)).toEqual([{ type: "order.at_risk", rule: "FITTING_READY:56" }]);
    await sweepOrderAlerts(t.ctx);
    await sweepOrderAlerts(t.ctx);
    expect(await eventsOf(order.body.id)).toHaveLength(1);
    // The wedding moves closer (a new date through the API): the 14-day rule too, once.
    const moved = await t.api.patch(
      `/api/vendor/customers/${customer.body.id}`,
      { weddingDate: day(10) },
      { key },
    );
    expect(moved.status).toBe(200);
    await sweepOrderAlerts(t.ctx);
    expect(await eventsOf(order.body.id)).toEqual([
      { type: "order.at_risk", rule: "FITTING_READY:56" },
      { type: "order.at_risk", rule: "READY_FOR_PICKUP:14" },
    ]);
    const got = await eventually(
      async () => received(order.body.id).ids.length >= 2 && received(order.body.id),
    );
    expect(got.kinds).toEqual([
      ["order.at_risk", "FITTING_READY:56"],
      ["order.at_risk", "READY_FOR_PICKUP:14"],
    ]);
    expect(new Set(got.ids).size).toBe(2);
    const body = receiver.requests.find((r) => r.body?.data?.order?.id === order.body.id)?.body;
    expect(body.data.order).toMatchObject({
      id: order.body.id,
      number: order.body.number,
      status: "ORDERED",
    });
    expect(body.data.rule).toEqual({ status: "FITTING_READY", daysBefore: 56 });
  });

  it("is not emitted for an order that reached the rule's status, a cancelled one or a past wedding", async () => {
    const { key } = await shop();
    const fitted = await t.api.post("/api/vendor/orders", { customerName: "Fay", type: "SUIT" }, { key });
    await move(key, fitted.body.id, "FITTING_READY");
    const cancelled = await t.api.post("/api/vendor/orders", { customerName: "Cleo", type: "SUIT" }, { key });
    await move(key, cancelled.body.id, "CANCELLED");
    const past = await t.api.post("/api/vendor/orders", { customerName: "Pia", type: "SUIT" }, { key });
    // Wedding dates written behind the API's back, so only the sweep sees them.
    for (const [id, wedding] of [
      [fitted.body.id, day(30)],
      [cancelled.body.id, day(5)],
      [past.body.id, day(-3)],
    ]) {
      await t.ctx.db.execute(sql`update orders set wedding_date = ${wedding}::date where id = ${id}`);
    }
    await sweepOrderAlerts(t.ctx);
    expect(await eventsOf(fitted.body.id)).toEqual([]);
    expect(await eventsOf(cancelled.body.id)).toEqual([]);
    expect(await eventsOf(past.body.id)).toEqual([]);
  });

  it("follows the shop's own rules", async () => {
    const { key, vendorId } = await shop();
    await t.ctx.db.execute(
      sql`update vendors set risk_rules = '[{"status":"IN_PRODUCTION","daysBefore":90}]' where id = ${vendorId}`,
    );
    const order = await t.api.post(
      "/api/vendor/orders",
      { customerName: "Uma", type: "BRIDAL_DRESS", weddingDate: day(80) },
      { key },
    );
    expect(await eventsOf(order.body.id)).toEqual([{ type: "order.at_risk", rule: "IN_PRODUCTION:90" }]);
  });

  it("happens once however many sweeps run at the same time", async () => {
    const { key } = await shop();
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const order = await t.api.post(
        "/api/vendor/orders",
        { customerName: `Con ${i}`, type: "SUIT" },
        { key },
      );
      ids.push(order.body.id);
    }
    // Both rules crossed, for six orders the API never evaluated.
    await t.ctx.db.execute(
      sql`update orders set wedding_date = ${day(7)}::date where id in (${sql.join(
        ids.map((id) => sql`${id}`),
        sql`, `,
      )})`,
    );
    const recorded = await Promise.all(Array.from({ length: 8 }, () => sweepOrderAlerts(t.ctx)));
    expect(recorded.reduce((a, b) => a + b, 0)).toBe(12);
    for (const id of ids) {
      expect((await eventsOf(id)).map((e) => e.rule).sort()).toEqual([
        "FITTING_READY:56",
        "READY_FOR_PICKUP:14",
      ]);
    }
  });
});

describe("rentals due back", () => {
  it("mail the customer once the day before, then order.overdue once when the date passes", async () => {
    const { key } = await shop();
    const email = `renter-${Date.now()}@example.test`;
    const rental = await t.api.post(
      "/api/vendor/orders",
      {
        customerName: "Rhea Renter",
        customerEmail: email,
        type: "RENTAL",
        pickupDate: day(-3),
        dueBackDate: day(1),
      },
      { key },
    );
    expect(rental.status).toBe(201);
    await move(key, rental.body.id, "READY_FOR_PICKUP");
    await move(key, rental.body.id, "PICKED_UP");
    await sweepOrderAlerts(t.ctx);
    await sweepOrderAlerts(t.ctx);
    const [reminder] = await mail.sink.waitFor(email, 1);
    expect(reminder?.parsed.subject).toContain(`#${rental.body.number}`);
    expect(reminder?.parsed.text).toContain("is due back on");
    expect(await eventsOf(rental.body.id)).toEqual([]);
    // The day passes (the due-back date moved behind the API's back, as time would move it).
    await t.ctx.db.execute(
      sql`update orders set due_back_date = ${day(-1)}::date where id = ${rental.body.id}`,
    );
    await Promise.all([sweepOrderAlerts(t.ctx), sweepOrderAlerts(t.ctx), sweepOrderAlerts(t.ctx)]);
    expect(await eventsOf(rental.body.id)).toEqual([{ type: "order.overdue", rule: null }]);
    const got = await eventually(
      async () => received(rental.body.id).ids.length >= 1 && received(rental.body.id),
    );
    expect(got.kinds).toEqual([["order.overdue", null]]);
    expect(mail.sink.to(email)).toHaveLength(1);
  });

  it("is no reminder and never overdue once RETURNED, and speaks the customer's language", async () => {
    const { key } = await shop();
    const returned = await t.api.post(
      "/api/vendor/orders",
      { customerName: "Ria", type: "RENTAL", pickupDate: day(-9), dueBackDate: day(-5) },
      { key },
    );
    // Made overdue already: order.overdue at once.
    expect(await eventsOf(returned.body.id)).toEqual([{ type: "order.overdue", rule: null }]);
    const back = await t.api.post(
      "/api/vendor/orders",
      { customerName: "Bea", type: "RENTAL", pickupDate: day(-9) },
      { key },
    );
    for (const s of ["READY_FOR_PICKUP", "PICKED_UP", "RETURNED"]) await move(key, back.body.id, s);
    await t.api.patch(`/api/vendor/orders/${back.body.id}`, { dueBackDate: day(-2) }, { key });
    await sweepOrderAlerts(t.ctx);
    expect(await eventsOf(back.body.id)).toEqual([]);
    const email = `lingua-${Date.now()}@example.test`;
    const customer = await t.api.post("/api/vendor/customers", { name: "Lena", email }, { key });
    expect(customer.status).toBe(201);
    // customers.language (CONTRACT 12), not yet in the API on this branch: set where it is kept.
    await t.ctx.db.execute(sql`update customers set language = 'de' where id = ${customer.body.id}`);
    const rental = await t.api.post(
      "/api/vendor/orders",
      { customerId: customer.body.id, type: "RENTAL", pickupDate: day(-1), dueBackDate: day(1) },
      { key },
    );
    expect(rental.status).toBe(201);
    const [de] = await mail.sink.waitFor(email, 1);
    expect(de?.parsed.text).toContain("Eine Erinnerung von");
  });
});
