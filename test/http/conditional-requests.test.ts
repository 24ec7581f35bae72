// Conditional requests (CONTRACT 10): an ETag on every single resource and list
// page, If-None-Match → 304 with no body, If-Match on an update → 412 precondition_failed when
// stale. The order list's first page (what integrations poll) has a weak ETag from its rows'
// version stamps, and a poll that changed nothing reads only those.
import { describe, expect, it } from "vitest";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

async function vendorWithOrders(n: number) {
  const { vendor, key } = await createVendorWithKey(t.ctx);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await t.api.post(
      "/api/vendor/orders",
      { customerName: `C${i}`, customerEmail: `c${i}-${vendor.id}@example.test`, type: "SUIT" },
      { key },
    );
    expect(res.status).toBe(201);
    ids.push(res.body.id);
  }
  return { key, ids };
}

const conditional = (key: string, etag: string) => ({ key, headers: { "if-none-match": etag } });

describe("If-None-Match", () => {
  it("a single order has a strong ETag; naming it is 304 with no body, until the order changes", async () => {
    const { key, ids } = await vendorWithOrders(1);
    const path = `/api/vendor/orders/${ids[0]}`;
    const first = await t.api.get(path, { key });
    const etag = first.headers.get("etag") as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect((await t.api.get(path, { key })).headers.get("etag")).toBe(etag);

    const unchanged = await t.api.get(path, conditional(key, etag));
    expect(unchanged.status).toBe(304);
    expect(unchanged.text).toBe("");
    expect(unchanged.headers.get("etag")).toBe(etag);
    // Weak comparison, lists of tags and * (RFC 9110 13.1.2).
    expect((await t.api.get(path, conditional(key, `"other", W/${etag}`))).status).toBe(304);
    expect((await t.api.get(path, conditional(key, "*"))).status).toBe(304);
    expect((await t.api.get(path, conditional(key, '"other"'))).status).toBe(200);

    expect((await t.api.patch(path, { size: "52" }, { key })).status).toBe(200);
    const changed = await t.api.get(path, conditional(key, etag));
    expect(changed.status).toBe(200);
    expect(changed.body.size).toBe("52");
    expect(changed.headers.get("etag")).not.toBe(etag);
  });

  it("the order list's first page: a weak ETag, 304 from one statement, a new ETag after any change on it", async () => {
    const { key, ids } = await vendorWithOrders(3);
    const path = "/api/vendor/orders?limit=2";
    const page = await t.api.get(path, { key });
    const etag = page.headers.get("etag") as string;
    expect(etag).toMatch(/^W\/"o2-2-[0-9a-f]{32}"$/);

    const before = t.database.queryCount();
    const unchanged = await t.api.get(path, conditional(key, etag));
    expect(unchanged.status).toBe(304);
    expect(unchanged.text).toBe("");
    expect(t.database.queryCount() - before).toBe(1); // the page's version, no JSON built

    // Another page size is another representation.
    expect((await t.api.get("/api/vendor/orders?limit=3", conditional(key, etag))).status).toBe(200);
    // A status move (a history entry) of the oldest order, off the page until then.
    const moved = await t.api.put(
      `/api/vendor/orders/${ids[0]}/status`,
      { status: "IN_PRODUCTION" },
      { key },
    );
    expect(moved.status).toBe(200);
    const after = await t.api.get(path, conditional(key, etag));
    expect(after.status).toBe(200);
    expect(after.body.orders[0].id).toBe(ids[0]);
    const etag2 = after.headers.get("etag") as string;
    expect(etag2).not.toBe(etag);
    // A detail changed on an order of the page.
    expect((await t.api.get(path, conditional(key, etag2))).status).toBe(304);
    expect((await t.api.patch(`/api/vendor/orders/${ids[2]}`, { color: "navy" }, { key })).status).toBe(200);
    expect((await t.api.get(path, conditional(key, etag2))).status).toBe(200);
  });

  it("a first page's ETag says what is on it, whoever asks", async () => {
    const a = await createVendorWithKey(t.ctx);
    const b = await createVendorWithKey(t.ctx);
    const etag = (await t.api.get("/api/vendor/orders", { key: a.key })).headers.get("etag") as string;
    // Empty pages are the same data: 304 is right, and it says nothing about the other vendor.
    expect((await t.api.get("/api/vendor/orders", conditional(b.key, etag))).status).toBe(304);
    await t.api.post("/api/vendor/orders", { customerName: "B", type: "SUIT" }, { key: b.key });
    expect((await t.api.get("/api/vendor/orders", conditional(b.key, etag))).status).toBe(200);
  });

  it("other lists and later pages carry the strong ETag of their bytes", async () => {
    const { key } = await vendorWithOrders(3);
    for (const path of [
      "/api/vendor/customers",
      "/api/vendor/orders?status=ORDERED",
      "/api/vendor/profile",
    ]) {
      const res = await t.api.get(path, { key });
      expect(res.status, path).toBe(200);
      const etag = res.headers.get("etag") as string;
      expect(etag, path).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
      expect((await t.api.get(path, conditional(key, etag))).status, path).toBe(304);
    }
  });
});

describe("If-Match on updates", () => {
  it("the current ETag lets the update through; a stale or weak one is 412 precondition_failed and changes nothing", async () => {
    const { key, ids } = await vendorWithOrders(1);
    const path = `/api/vendor/orders/${ids[0]}`;
    const etag = (await t.api.get(path, { key })).headers.get("etag") as string;
    const ok = await t.api.patch(path, { size: "48" }, { key, headers: { "if-match": etag } });
    expect(ok.status).toBe(200);

    const stale = await t.api.patch(path, { size: "50" }, { key, headers: { "if-match": etag } });
    expect(stale.status).toBe(412);
    expect(stale.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(stale.body).toMatchObject({ status: 412, code: "precondition_failed" });
    const weak = await t.api.put(
      `${path}/status`,
      { status: "IN_PRODUCTION" },
      { key, headers: { "if-match": `W/${ok.headers.get("etag")}` } },
    );
    expect(weak.status).toBe(412);
    const now = await t.api.get(path, { key });
    expect(now.body).toMatchObject({ size: "48", status: "ORDERED" });
    expect(now.body.updates).toHaveLength(1);

    const current = now.headers.get("etag") as string;
    const moved = await t.api.put(
      `${path}/status`,
      { status: "IN_PRODUCTION" },
      { key, headers: { "if-match": current } },
    );
    expect(moved.status).toBe(200);
    expect((await t.api.patch(path, { size: "49" }, { key, headers: { "if-match": "*" } })).status).toBe(200);
  });

  it("two updates sent with the same ETag at once: exactly one is applied", async () => {
    const { key, ids } = await vendorWithOrders(1);
    const path = `/api/vendor/orders/${ids[0]}`;
    const etag = (await t.api.get(path, { key })).headers.get("etag") as string;
    const answers = await Promise.all(
      ["40", "42", "44", "46"].map((size) =>
        t.api.patch(path, { size }, { key, headers: { "if-match": etag } }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 412, 412, 412]);
  });

  it("another vendor's order is 404 whatever If-Match says", async () => {
    const { ids } = await vendorWithOrders(1);
    const other = await createVendorWithKey(t.ctx);
    const res = await t.api.patch(
      `/api/vendor/orders/${ids[0]}`,
      { size: "1" },
      { key: other.key, headers: { "if-match": '"anything"' } },
    );
    expect(res.status).toBe(404);
  });
});
