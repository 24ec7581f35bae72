import { describe, expect, it } from "vitest";
import { DEFAULT_ADDRESS_LIMIT_PER_MINUTE } from "../../src/http/rate-limit.ts";
import { createApiKey } from "../../src/modules/api-keys/api-keys.service.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const LIMIT = 5;
// AUTH_FAILURES_PER_MINUTE unset: the failure budget takes its default.
const t = useTestApp({ env: { RATE_LIMIT_PER_MINUTE: String(LIMIT), AUTH_FAILURES_PER_MINUTE: "" } });

function expectHeaders(res: { headers: Headers }, policy: string, limit: number, remaining: number) {
  expect(res.headers.get("ratelimit-limit")).toBe(String(limit));
  expect(res.headers.get("ratelimit-remaining")).toBe(String(remaining));
  const reset = Number(res.headers.get("ratelimit-reset"));
  expect(reset).toBeGreaterThan(0);
  expect(reset).toBeLessThanOrEqual(60);
  expect(res.headers.get("ratelimit-policy")).toBe(`"${policy}";q=${limit};w=60`);
  expect(res.headers.get("ratelimit")).toBe(`"${policy}";r=${remaining};t=${reset}`);
}

describe("rate limit per credential (CONTRACT 8)", () => {
  it("every answer carries both header sets; past the limit it is 429 rate_limited with Retry-After", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    for (let i = 1; i <= LIMIT; i++) {
      const res = await t.api.get("/api/vendor/customers", { key });
      expect(res.status).toBe(200);
      expectHeaders(res, "credential", LIMIT, LIMIT - i);
    }
    const over = await t.api.get("/api/vendor/customers", { key });
    expect(over.status).toBe(429);
    expect(over.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(over.body).toMatchObject({ status: 429, code: "rate_limited", requestId: expect.any(String) });
    const retryAfter = Number(over.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expectHeaders(over, "credential", LIMIT, 0);
  });

  it("each credential has its own budget", async () => {
    const a = await createVendorWithKey(t.ctx);
    const b = await createVendorWithKey(t.ctx);
    for (let i = 0; i <= LIMIT; i++) await t.api.get("/api/vendor/profile", { key: a.key });
    expect((await t.api.get("/api/vendor/profile", { key: a.key })).status).toBe(429);
    const other = await t.api.get("/api/vendor/profile", { key: b.key });
    expect(other.status).toBe(200);
    expectHeaders(other, "credential", LIMIT, LIMIT - 1);
  });

  it("failed authentications carry the headers and count against the address (a bad key cannot probe without limit)", async () => {
    const bad = "vk_not-a-real-key-but-long-enough-to-look-like-one";
    const first = await t.api.get("/api/vendor/orders", { key: bad });
    expect(first.status).toBe(401);
    // The failure budget defaults to the smaller of 30 and the per-credential limit.
    expectHeaders(first, "auth-failures", LIMIT, LIMIT - 1);
    for (let i = 0; i < LIMIT; i++) await t.api.get("/api/vendor/orders", { key: `${bad}${i}` });
    expect((await t.api.get("/api/vendor/orders", { key: bad })).status).toBe(429);
  });
});

describe("403 insufficient_scope (issue 24 item 7)", () => {
  it("carries the credential's RateLimit headers and counts against its budget", async () => {
    const { vendor } = await createVendorWithKey(t.ctx);
    const { key } = await createApiKey(t.ctx, {
      vendorId: vendor.id,
      name: "narrow",
      scopes: ["orders:read"],
    });
    for (const [path, remaining] of [
      ["/api/vendor/customers", LIMIT - 1],
      ["/api/vendor/webhooks", LIMIT - 2],
    ] as const) {
      const res = await t.api.get(path, { key });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe("insufficient_scope");
      expectHeaders(res, "credential", LIMIT, remaining);
    }
    expectHeaders(await t.api.get("/api/vendor/orders", { key }), "credential", LIMIT, LIMIT - 3);
  });
});

describe("rate limit per client address on public routes", () => {
  it(`allows ${DEFAULT_ADDRESS_LIMIT_PER_MINUTE} a minute per address (policy "public"), then 429 with Retry-After`, async () => {
    const { vendor } = await createVendorWithKey(t.ctx);
    const path = `/api/public/vendors/${vendor.id}/inquiries`;
    // Malformed bodies are answered cheaply but still count against the address.
    for (let i = 1; i <= DEFAULT_ADDRESS_LIMIT_PER_MINUTE; i++) {
      const res = await t.api.post(path, { name: "Spam" });
      expect(res.status).toBe(400);
      expectHeaders(res, "public", DEFAULT_ADDRESS_LIMIT_PER_MINUTE, DEFAULT_ADDRESS_LIMIT_PER_MINUTE - i);
    }
    const over = await t.api.post(path, { name: "N", email: "n@example.com", message: "hi" });
    expect(over.status).toBe(429);
    expect(over.body.code).toBe("rate_limited");
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});
