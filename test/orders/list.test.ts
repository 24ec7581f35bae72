import { describe, expect, it } from "vitest";
import { tickingClock } from "../helpers/clock.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { readSyncList } from "../helpers/sync.ts";
import { useTestApp } from "../helpers/test-app.ts";

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
// Every call to the clock moves 1 s, so "last updated" order is deterministic.
const t = useTestApp({ now: tickingClock(Date.parse("2026-11-01T09:00:00.000Z"), 1000) });

async function createOrders(key: string, n: number, prefix = "Customer"): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await t.api.post(
      "/api/vendor/orders",
      { customerName: `${prefix} ${i}`, type: "SUIT" },
      { key },
    );
    expect(res.status).toBe(201);
    ids.push(res.body.id);
  }
  return ids;
}

describe("GET /api/vendor/orders", () => {
  it("returns { orders: [], nextCursor: null } for a vendor with no orders", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const res = await t.api.get("/api/vendor/orders", { key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ orders: [], nextCursor: null });
  });

  it("sorts by last update, most recent first: a status update moves an order to the top", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const [a, b, c] = await createOrders(key, 3);
    let res = await t.api.get("/api/vendor/orders", { key });
    expect(res.body.orders.map((o: { id: string }) => o.id)).toEqual([c, b, a]);

    await t.api.put(`/api/vendor/orders/${a}/status`, { status: "IN_PRODUCTION" }, { key });
    res = await t.api.get("/api/vendor/orders", { key });
    expect(res.body.orders.map((o: { id: string }) => o.id)).toEqual([a, c, b]);
    const [first] = res.body.orders;
    expect(first.updatedAt > first.createdAt).toBe(true);
    for (const order of res.body.orders) {
      expect(order.createdAt).toMatch(ISO_MS);
      expect(order.updatedAt).toMatch(ISO_MS);
      for (const u of order.updates) expect(u.createdAt).toMatch(ISO_MS);
    }
  });

  it("lists each order in the same shape as the single-order read, history oldest first", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const [id] = await createOrders(key, 1);
    await t.api.put(
      `/api/vendor/orders/${id}/status`,
      { status: "IN_PRODUCTION", message: "Cutting" },
      { key },
    );
    await t.api.put(
      `/api/vendor/orders/${id}/status`,
      { status: "FITTING_READY", message: "Ready", imageUrl: "https://img.example.com/p.jpg" },
      { key },
    );
    const list = await t.api.get("/api/vendor/orders", { key });
    const one = await t.api.get(`/api/vendor/orders/${id}`, { key });
    expect(list.body.orders[0]).toEqual(one.body);
    expect(
      one.body.updates.map((u: { status: string; message: string | null }) => [u.status, u.message]),
    ).toEqual([
      ["ORDERED", "Order created"],
      ["IN_PRODUCTION", "Cutting"],
      ["FITTING_READY", "Ready"],
    ]);
    expect(one.body.updates[2].imageUrl).toBe("https://img.example.com/p.jpg");
  });

  it("returns the last 100 orders without parameters, and pages the rest with cursor and limit", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const ids = await createOrders(key, 105);
    const newestFirst = [...ids].reverse();

    const first = await t.api.get("/api/vendor/orders", { key });
    expect(first.body.orders).toHaveLength(100);
    expect(first.body.orders.map((o: { id: string }) => o.id)).toEqual(newestFirst.slice(0, 100));
    expect(first.body.nextCursor).toEqual(expect.any(String));

    const second = await t.api.get(`/api/vendor/orders?cursor=${encodeURIComponent(first.body.nextCursor)}`, {
      key,
    });
    expect(second.body.orders.map((o: { id: string }) => o.id)).toEqual(newestFirst.slice(100));
    expect(second.body.nextCursor).toBeNull();

    // Small pages walk the same sequence with no gap and no repeat.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const qs: string = `?limit=40${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
      const page = await t.api.get(`/api/vendor/orders${qs}`, { key });
      expect(page.status).toBe(200);
      expect(page.body.orders.length).toBeLessThanOrEqual(40);
      seen.push(...page.body.orders.map((o: { id: string }) => o.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(newestFirst);
  });

  it("a page exactly filling the limit reports no next page when nothing follows", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    await createOrders(key, 3);
    const res = await t.api.get("/api/vendor/orders?limit=3", { key });
    expect(res.body.orders).toHaveLength(3);
    expect(res.body.nextCursor).toBeNull();
  });

  it("updatedSince returns only orders updated at or after the instant", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const [a, b, c] = await createOrders(key, 3);
    const bRead = await t.api.get(`/api/vendor/orders/${b}`, { key });
    const since = bRead.body.updatedAt;
    const sinceUrl = `/api/vendor/orders?updatedSince=${encodeURIComponent(since)}`;
    let res = await readSyncList(t, sinceUrl, key, (body) => body.orders.length >= 2);
    expect(res.body.orders.map((o: { id: string }) => o.id)).toEqual([c, b]);

    await t.api.put(`/api/vendor/orders/${a}/status`, { status: "CANCELLED" }, { key });
    res = await readSyncList(t, sinceUrl, key, (body) => body.orders.length >= 3);
    expect(res.body.orders.map((o: { id: string }) => o.id)).toEqual([a, c, b]);

    // An offset other than Z names the same instant.
    const sinceMs = Date.parse(since);
    const inLisbonSummer = `${new Date(sinceMs + 3600_000).toISOString().slice(0, 23)}+01:00`;
    res = await t.api.get(`/api/vendor/orders?updatedSince=${encodeURIComponent(inLisbonSummer)}`, { key });
    expect(res.body.orders.map((o: { id: string }) => o.id)).toEqual([a, c, b]);
    res = await t.api.get(`/api/vendor/orders?updatedSince=${encodeURIComponent("2999-01-01T00:00:00Z")}`, {
      key,
    });
    expect(res.body.orders).toEqual([]);
  });

  it.each([
    ["limit=0", "limit"],
    ["limit=101", "limit"],
    ["limit=abc", "limit"],
    ["limit=1.5", "limit"],
    ["updatedSince=yesterday", "updatedSince"],
    ["updatedSince=2026-11-01T10:00:00", "updatedSince"],
    ["cursor=not-a-cursor", "cursor"],
  ])("bad query %s → 400 validation_failed naming the parameter", async (qs, field) => {
    const { key } = await createVendorWithKey(t.ctx);
    const res = await t.api.get(`/api/vendor/orders?${qs}`, { key });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("validation_failed");
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
  });

  it("never shows another vendor's orders", async () => {
    const a = await createVendorWithKey(t.ctx);
    const b = await createVendorWithKey(t.ctx);
    await createOrders(a.key, 2);
    const res = await t.api.get("/api/vendor/orders", { key: b.key });
    expect(res.body.orders).toEqual([]);
  });
});

describe("the order list is not N+1", () => {
  it("sends the same number of SQL statements for 1 order as for 60", async () => {
    const countFor = async (n: number) => {
      const { key } = await createVendorWithKey(t.ctx);
      const ids = await createOrders(key, n);
      for (const id of ids.slice(0, 3)) {
        await t.api.put(`/api/vendor/orders/${id}/status`, { status: "IN_PRODUCTION" }, { key });
      }
      await t.api.get("/api/vendor/orders", { key }); // warm: last-used bookkeeping happens on first use
      const before = t.database.queryCount();
      const res = await t.api.get("/api/vendor/orders", { key });
      const used = t.database.queryCount() - before;
      expect(res.body.orders).toHaveLength(n);
      return used;
    };
    const one = await countFor(1);
    const sixty = await countFor(60);
    expect(sixty).toBe(one);
    // API-key lookup + the list statement.
    expect(one).toBeLessThanOrEqual(2);
  });
});
