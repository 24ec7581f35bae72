// Issue 12: an event no endpoint subscribes to costs the dispatchers no work. enqueueEvent fans
// the event out in the writing transaction and wakes dispatchers (NOTIFY) only when it queued a
// delivery. No dispatcher runs in this file: whatever exists after commit, the writer made.
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { events, webhookDeliveries } from "../../src/db/schema/index.ts";
import { EVENTS_CHANNEL } from "../../src/outbox/event-types.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

// A database of its own on PostgreSQL: NOTIFY reaches every listener of the database, and other
// files' writes would be counted here.
const t = useTestApp({ ownDatabase: true });
const notifications: string[] = [];
const onNotification = new Set<() => void>();
let unlisten: (() => Promise<void>) | undefined;
beforeAll(async () => {
  unlisten = await t.database.listen(EVENTS_CHANNEL, (payload) => {
    notifications.push(payload);
    for (const f of onNotification) f();
  });
});
afterAll(async () => {
  await unlisten?.();
});

/**
 * Resolves once every notification committed before this call has reached the listener: a marker
 * sent now arrives after them (PostgreSQL delivers a listener's notifications in commit order).
 */
async function notificationsSoFar() {
  const marker = `marker-${notifications.length}-${Date.now()}`;
  await t.database.db.execute(sql`select pg_notify(${EVENTS_CHANNEL}, ${marker})`);
  await new Promise<void>((resolve) => {
    const check = () => {
      if (!notifications.includes(marker)) return;
      onNotification.delete(check);
      resolve();
    };
    onNotification.add(check);
    check();
  });
  notifications.splice(notifications.indexOf(marker), 1);
}

const order = (key: string) =>
  t.api.post("/api/vendor/orders", { customerName: "Ana Lima", type: "BRIDAL_DRESS" }, { key });

describe("fan-out in the writing transaction", () => {
  it("an order for a vendor with no webhook wakes no dispatcher and leaves nothing to fan out", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx);
    const before = notifications.length;
    const created = await order(key);
    expect(created.status).toBe(201);
    await notificationsSoFar();
    expect(notifications.length).toBe(before);
    const rows = await t.database.db.select().from(events).where(eq(events.vendorId, vendor.id));
    // customer.created and order.created, both already dispatched: nothing left for a dispatcher.
    expect(rows.map((e) => e.type).sort()).toEqual(["customer.created", "order.created"]);
    expect(rows.filter((e) => e.dispatchedAt === null)).toEqual([]);
  });

  it("an event with a subscriber has its delivery queued at commit, and exactly one NOTIFY", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const hook = await t.api.post(
      "/api/vendor/webhooks",
      { url: "http://127.0.0.1:9/hook", events: ["order.created"] },
      { key },
    );
    expect(hook.status).toBe(201);
    const before = notifications.length;
    const created = await order(key);
    expect(created.status).toBe(201);
    const queued = await t.database.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.webhookId, hook.body.id));
    expect(queued).toHaveLength(1);
    expect(queued[0]).toMatchObject({ status: "PENDING", eventType: "order.created", attemptCount: 0 });
    expect(queued[0]?.id).toMatch(/^[a-z][0-9a-z]{1,31}$/);
    await notificationsSoFar();
    // order.created has a subscriber (one NOTIFY); customer.created has none (no NOTIFY).
    expect(notifications.length - before).toBe(1);
  });
});
