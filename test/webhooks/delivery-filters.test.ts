// CONTRACT 12: GET /api/vendor/webhooks/{id}/deliveries filters by `status`, `event` (the event
// type) and `eventId`, paged by keyset as the unfiltered log is, each filter checked (400 naming
// the field), one statement per page whatever its length, another shop's webhook a 404.
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.ts";
import { useDeliveryFixture } from "../helpers/delivery-fixture.ts";
import { deliveriesSettled } from "../helpers/events.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import type { TestApp } from "../helpers/test-app.ts";
import { eventually } from "../helpers/webhook-receiver.ts";

// One retry: a failing delivery is FAILED after two attempts.
const fixture = useDeliveryFixture({ WEBHOOK_RETRY_DELAYS_MS: "20" });
let t: TestApp;
let key: string;
let hookId: string;
let orderEventIds: string[];
let vendorId: string;

beforeAll(async () => {
  t = fixture.t;
  const vendor = await createVendorWithKey(t.ctx);
  key = vendor.key;
  vendorId = vendor.vendor.id;
  // Order events succeed; the test events fail, so the log holds both statuses and both types.
  const r = await fixture.receiver((req) => ({ status: req.body.event === "webhook.test" ? 500 : 204 }));
  hookId = (await fixture.register(key, r.url, ["order.created"])).id;
  for (let i = 0; i < 3; i++) expect((await fixture.createOrder(key, `Bride ${i}`)).status).toBe(201);
  for (let i = 0; i < 2; i++) {
    expect((await t.api.post(`/api/vendor/webhooks/${hookId}/test`, {}, { key })).status).toBe(202);
  }
  await deliveriesSettled(t, vendor.vendor.id);
  const all = await fixture.deliveries(key, hookId);
  orderEventIds = all.filter((d) => d.event === "order.created").map((d) => d.eventId);
});

const list = (query: string) => t.api.get(`/api/vendor/webhooks/${hookId}/deliveries?${query}`, { key });

describe("the delivery log's filters", () => {
  it("status keeps only the deliveries in that status", async () => {
    const failed = await list("status=FAILED");
    expect(failed.status).toBe(200);
    expect(failed.body.deliveries).toHaveLength(2);
    for (const d of failed.body.deliveries) {
      expect(d.status).toBe("FAILED");
      expect(d.event).toBe("webhook.test");
      expect(d.attempts).toHaveLength(2);
    }
    const succeeded = await list("status=SUCCEEDED");
    expect(succeeded.body.deliveries.map((d: { event: string }) => d.event)).toEqual([
      "order.created",
      "order.created",
      "order.created",
    ]);
    expect((await list("status=SKIPPED")).body.deliveries).toEqual([]);
  });

  it("event keeps one event type, and combines with status", async () => {
    const orders = await list("event=order.created");
    expect(orders.body.deliveries).toHaveLength(3);
    expect(new Set(orders.body.deliveries.map((d: { event: string }) => d.event))).toEqual(
      new Set(["order.created"]),
    );
    expect((await list("event=webhook.test")).body.deliveries).toHaveLength(2);
    expect((await list("event=webhook.test&status=SUCCEEDED")).body.deliveries).toEqual([]);
    expect((await list("event=order.updated")).body.deliveries).toEqual([]);
  });

  it("eventId finds the delivery of one event", async () => {
    const wanted = orderEventIds[1] as string;
    const found = await list(`eventId=${wanted}`);
    expect(found.status).toBe(200);
    expect(found.body.deliveries.map((d: { eventId: string }) => d.eventId)).toEqual([wanted]);
    expect((await list(`eventId=${wanted}&status=FAILED`)).body.deliveries).toEqual([]);
    // A well-formed id of no event of this webhook: an empty page, not an error.
    expect((await list("eventId=tz4a98xxat96iws9zmbrgj3a")).body.deliveries).toEqual([]);
  });

  it("pages a filtered log by keyset, newest first, the filter kept by the cursor's caller", async () => {
    const first = await list("event=order.created&limit=2");
    expect(first.body.deliveries).toHaveLength(2);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await list(
      `event=order.created&limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`,
    );
    expect(second.body.deliveries).toHaveLength(1);
    expect(second.body.nextCursor).toBeNull();
    const pages = [...first.body.deliveries, ...second.body.deliveries];
    expect(new Set(pages.map((d) => d.id)).size).toBe(3);
    expect(pages.every((d) => d.event === "order.created")).toBe(true);
    const created = pages.map((d) => d.createdAt);
    expect([...created].sort().reverse()).toEqual(created);
  });

  it("refuses an unknown status, event or a malformed event id, naming the field", async () => {
    for (const [query, field] of [
      ["status=LOST", "status"],
      ["status=failed", "status"],
      ["event=order.exploded", "event"],
      ["event=*", "event"],
      ["eventId=not%20an%20id", "eventId"],
    ] as const) {
      const res = await list(query);
      expect(res.status, query).toBe(400);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
      expect(res.body.code, query).toBe("validation_failed");
      expect(
        res.body.errors.map((e: { field: string }) => e.field),
        query,
      ).toContain(field);
    }
  });

  it("answers another shop's webhook 404, filters or not", async () => {
    const other = await createVendorWithKey(t.ctx);
    const res = await t.api.get(`/api/vendor/webhooks/${hookId}/deliveries?status=FAILED`, {
      key: other.key,
    });
    expect(res.status).toBe(404);
  });

  it("sends as many statements for a page of 3 as for a page of 1 (no N+1)", async () => {
    // Nothing else may send statements meanwhile: the dispatcher's polls would count.
    await fixture.stopDispatcher();
    // Warm: the API key is verified once and kept in memory, its use recorded off the request path.
    await list("status=SUCCEEDED");
    await eventually(async () => {
      const rows = await queryRows<{ id: string }>(
        t.ctx.db,
        sql`select id from api_keys where vendor_id = ${vendorId} and last_used_at is null`,
      );
      return rows.length === 0;
    });
    const count = async (query: string, rows: number) => {
      const before = t.database.queryCount();
      const res = await list(query);
      const n = t.database.queryCount() - before;
      expect(res.body.deliveries).toHaveLength(rows);
      return n;
    };
    const one = await count(`eventId=${orderEventIds[0]}`, 1);
    const three = await count("status=SUCCEEDED", 3);
    expect(three).toBe(one);
  });
});
