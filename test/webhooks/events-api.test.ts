// GET /api/vendor/events: the pull fallback (CONTRACT 7).
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { enqueueEvent } from "../../src/outbox/enqueue.ts";
import { EVENT_RETENTION_MS } from "../../src/outbox/event-types.ts";
import { pruneOlderThan } from "../../src/webhook-delivery/outbox.repository.ts";
import { sampleOrderPayload } from "../helpers/events.ts";
import { createKey, createVendorWithKey } from "../helpers/factories.ts";
import { readSyncList } from "../helpers/sync.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

const createOrder = (key: string, email: string) =>
  t.api.post("/api/vendor/orders", { customerName: "Ana", type: "SUIT", customerEmail: email }, { key });

describe("GET /api/vendor/events", () => {
  it("lists the vendor's events newest first, with type and since filters and cursor pages", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const other = await createVendorWithKey(t.ctx);
    await createOrder(other.key, "x@example.com");
    const first = await createOrder(key, "a@example.com");
    const second = await createOrder(key, "b@example.com");
    await t.api.put(`/api/vendor/orders/${first.body.id}/status`, { status: "IN_PRODUCTION" }, { key });

    const all = await t.api.get("/api/vendor/events", { key });
    expect(all.status).toBe(200);
    expect(all.body.nextCursor).toBeNull();
    // An order and its new customer share one timestamp, so only the order across changes is fixed.
    expect(all.body.events[0].event).toBe("order.status_changed");
    expect(all.body.events.map((e: any) => e.event).sort()).toEqual(
      [
        "order.status_changed",
        "order.created",
        "customer.created",
        "order.created",
        "customer.created",
      ].sort(),
    );
    const times = all.body.events.map((e: any) => e.createdAt);
    expect([...times].sort().reverse()).toEqual(times);
    expect(all.body.events.find((e: any) => e.data.id === second.body.id)).toEqual({
      id: expect.any(String),
      event: "order.created",
      data: JSON.parse(second.text),
      createdAt: second.body.createdAt,
    });

    const orders = await t.api.get("/api/vendor/events?type=order.created", { key });
    expect(orders.body.events.map((e: any) => e.data.id)).toEqual([second.body.id, first.body.id]);

    const since = await readSyncList(
      t,
      `/api/vendor/events?since=${encodeURIComponent(second.body.createdAt)}`,
      key,
      (b) => b.events.length >= 3,
    );
    expect(since.body.events).toHaveLength(3);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const q: string = cursor ? `&cursor=${cursor}` : "";
      const page: any = await t.api.get(`/api/vendor/events?limit=2${q}`, { key });
      seen.push(...page.body.events.map((e: any) => e.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all.body.events.map((e: any) => e.id));

    const one = await t.api.get(`/api/vendor/events/${all.body.events[0].id}`, { key });
    expect(one.body).toEqual(all.body.events[0]);
    expect((await t.api.get(`/api/vendor/events/${all.body.events[0].id}`, { key: other.key })).status).toBe(
      404,
    );
    expect((await t.api.get("/api/vendor/events/nope", { key })).status).toBe(404);
  });

  it("shows only event types whose read scope the credential has, and needs webhooks:read", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx);
    await createOrder(key, "c@example.com");
    const ordersOnly = await createKey(t.ctx, vendor.id, ["webhooks:read", "orders:read"]);
    const res = await t.api.get("/api/vendor/events", { key: ordersOnly });
    expect(res.body.events.map((e: any) => e.event)).toEqual(["order.created"]);
    const all = await t.api.get("/api/vendor/events", { key });
    const customerEvent = all.body.events.find((e: any) => e.event === "customer.created");
    expect((await t.api.get(`/api/vendor/events/${customerEvent.id}`, { key: ordersOnly })).status).toBe(404);
    const noWebhooks = await createKey(t.ctx, vendor.id, ["orders:read"]);
    expect((await t.api.get("/api/vendor/events", { key: noWebhooks })).status).toBe(403);
  });

  it("keeps to the last 30 days", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx);
    const old = await t.ctx.db.transaction((tx) =>
      enqueueEvent(tx, {
        vendorId: vendor.id,
        type: "order.created",
        data: sampleOrderPayload("old"),
        createdAt: new Date(Date.now() - 31 * 86_400_000),
      }),
    );
    const res = await t.api.get("/api/vendor/events?since=2020-01-01T00:00:00.000Z", { key });
    expect(res.body.events).toEqual([]);
    expect((await t.api.get(`/api/vendor/events/${old}`, { key })).status).toBe(404);
  });

  it("retention pruning deletes events older than 30 days, and only those", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx);
    const emit = (ageMs: number) =>
      t.ctx.db.transaction((tx) =>
        enqueueEvent(tx, {
          vendorId: vendor.id,
          type: "order.created",
          data: sampleOrderPayload("retention"),
          createdAt: new Date(Date.now() - ageMs),
        }),
      );
    const old = await emit(EVENT_RETENTION_MS + 60_000);
    const recent = await emit(EVENT_RETENTION_MS - 60_000);
    expect(await pruneOlderThan(t.ctx.db, new Date(Date.now() - EVENT_RETENTION_MS))).toBeGreaterThanOrEqual(
      1,
    );
    const rows = await t.database.db.execute(sql`select id from events where id in (${old}, ${recent})`);
    expect((rows as any).rows.map((r: any) => r.id)).toEqual([recent]);
    expect((await t.api.get(`/api/vendor/events/${recent}`, { key })).status).toBe(200);
  });
});
