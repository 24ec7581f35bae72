import { describe, expect, it } from "vitest";
import { createKey, createRevokedKey, createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

describe("authentication (CONTRACT 2-3)", () => {
  it("no credentials → 401 unauthenticated with WWW-Authenticate: Bearer realm", async () => {
    const res = await t.api.get("/api/vendor/orders");
    expect(res.status).toBe(401);
    expect(res.body.code).toBe("unauthenticated");
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="vendor-api"');
  });

  it.each([
    ["an unknown key", "vk_thisKeyDoesNotExistAnywhere0000000000000000"],
    ["a key without the vk_ prefix", "abc"],
    ["an empty key", ""],
  ])("%s → 401 invalid_credentials with error=invalid_token", async (_name, key) => {
    const res = await t.api.get("/api/vendor/orders", { headers: { "x-api-key": key } });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe("invalid_credentials");
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="vendor-api", error="invalid_token"');
  });

  it("a revoked key → 401 invalid_credentials", async () => {
    const { vendor } = await createVendorWithKey(t.ctx);
    const revoked = await createRevokedKey(t.ctx, vendor.id);
    const res = await t.api.get("/api/vendor/orders", { key: revoked });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe("invalid_credentials");
  });

  it("an unknown bearer token → 401 invalid_credentials", async () => {
    const res = await t.api.get("/api/vendor/orders", { token: "vat_unknown" });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe("invalid_credentials");
  });

  it("a malformed Authorization header → 401 invalid_credentials", async () => {
    const res = await t.api.get("/api/vendor/orders", { headers: { authorization: "Basic Zm9vOmJhcg==" } });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe("invalid_credentials");
  });

  it("both X-Api-Key and Authorization → 400 ambiguous_credentials", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const res = await t.api.get("/api/vendor/orders", { key, token: "vat_x" });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("ambiguous_credentials");
  });

  it("a token in the query string is never accepted", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const res = await t.api.get(`/api/vendor/orders?access_token=${key}`);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe("unauthenticated");
  });

  it("authentication comes before body validation: no credentials and a bad body → 401", async () => {
    const res = await t.api.request("POST", "/api/vendor/orders", {
      raw: "{bad",
      contentType: "application/json",
    });
    expect(res.status).toBe(401);
  });

  it("a key restricted to orders:read may list but not create: 403 insufficient_scope naming the scope", async () => {
    const { vendor } = await createVendorWithKey(t.ctx);
    const readOnly = await createKey(t.ctx, vendor.id, ["orders:read"]);
    expect((await t.api.get("/api/vendor/orders", { key: readOnly })).status).toBe(200);
    const res = await t.api.post(
      "/api/vendor/orders",
      { customerName: "A", type: "SUIT" },
      { key: readOnly },
    );
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("insufficient_scope");
    expect(res.headers.get("www-authenticate")).toBe(
      'Bearer realm="vendor-api", error="insufficient_scope", scope="orders:write"',
    );
  });

  it("a key restricted to customers:read cannot read orders", async () => {
    const { vendor } = await createVendorWithKey(t.ctx);
    const k = await createKey(t.ctx, vendor.id, ["customers:read"]);
    const res = await t.api.get("/api/vendor/orders", { key: k });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("insufficient_scope");
  });

  it("keys are stored only as hashes", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx);
    const { apiKeys } = await import("../../src/db/schema/index.ts");
    const { eq } = await import("drizzle-orm");
    const rows = await t.ctx.db.select().from(apiKeys).where(eq(apiKeys.vendorId, vendor.id));
    expect(JSON.stringify(rows)).not.toContain(key);
    expect(key).toMatch(/^vk_[A-Za-z0-9_-]{43}$/);
  });

  it("records the key's last use", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx);
    await t.api.get("/api/vendor/orders", { key });
    const { listApiKeys } = await import("../../src/modules/api-keys/api-keys.repository.ts");
    await expect
      .poll(async () => (await listApiKeys(t.ctx.db, vendor.id))[0]?.lastUsedAt)
      .toBeInstanceOf(Date);
  });
});

describe("request ids (CONTRACT 1)", () => {
  it("every response carries X-Request-Id, and a safe inbound one is echoed", async () => {
    const plain = await t.api.get("/health");
    expect(plain.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const echoed = await t.api.get("/api/vendor/orders", { headers: { "x-request-id": "trace-abc.123" } });
    expect(echoed.headers.get("x-request-id")).toBe("trace-abc.123");
    expect(echoed.body.requestId).toBe("trace-abc.123");
  });

  it("an unsafe or over-long inbound id is replaced", async () => {
    for (const bad of ["<script>", "a".repeat(129), "has space"]) {
      const res = await t.api.get("/health", { headers: { "x-request-id": bad } });
      expect(res.headers.get("x-request-id")).not.toBe(bad);
    }
  });
});
