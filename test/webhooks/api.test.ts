// The webhook endpoints API: registration rules, reads without the secret, updates, deletion.
import { describe, expect, it } from "vitest";
import { createKey, createRevokedKey, createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

const URL_A = "http://127.0.0.1:9/hook-a";
const body = (events: string[] = ["order.created"], url = URL_A) => ({ url, events });

describe("POST /api/vendor/webhooks", () => {
  it("answers 201 with id, url, events, status ACTIVE and the secret, which is never shown again", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const res = await t.api.post("/api/vendor/webhooks", body(["order.created", "customer.created"]), {
      key,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.any(String),
      url: URL_A,
      events: ["order.created", "customer.created"],
      status: "ACTIVE",
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const one = await t.api.get(`/api/vendor/webhooks/${res.body.id}`, { key });
    expect(one.status).toBe(200);
    expect(one.body).not.toHaveProperty("secret");
    expect(one.text).not.toContain(res.body.secret);
    const list = await t.api.get("/api/vendor/webhooks", { key });
    expect(list.body.webhooks).toHaveLength(1);
    // The URL reads back exactly as registered.
    const bare = await t.api.post("/api/vendor/webhooks", body(["order.created"], "http://127.0.0.1:9"), {
      key,
    });
    expect(bare.body.url).toBe("http://127.0.0.1:9");
    expect(list.text).not.toContain(res.body.secret);
  });

  it("refuses a sixth webhook with 409 webhook_limit_reached, also under concurrent registrations", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const results = await Promise.all(
      Array.from({ length: 8 }, () => t.api.post("/api/vendor/webhooks", body(), { key })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(5);
    const refused = results.filter((r) => r.status === 409);
    expect(refused).toHaveLength(3);
    expect(refused[0]?.body.code).toBe("webhook_limit_reached");
    // After a delete there is room again.
    const list = await t.api.get("/api/vendor/webhooks", { key });
    await t.api.delete(`/api/vendor/webhooks/${list.body.webhooks[0].id}`, { key });
    expect((await t.api.post("/api/vendor/webhooks", body(), { key })).status).toBe(201);
  });

  it.each([
    [{ url: URL_A, events: [] }, "events"],
    [{ url: URL_A, events: ["order.shipped"] }, "events.0"],
    [{ url: URL_A, events: ["order.created", "order.created"] }, "events"],
    [{ url: URL_A, events: ["webhook.test"] }, "events.0"],
    [{ url: "ftp://example.com/x", events: ["order.created"] }, "url"],
    [{ url: "/relative", events: ["order.created"] }, "url"],
    [{ url: "http://user:pw@127.0.0.1/x", events: ["order.created"] }, "url"],
    [{ events: ["order.created"] }, "url"],
    [{ url: URL_A, events: ["order.created"], secret: "mine" }, "secret"],
  ])("refuses %j with 400 validation_failed naming %s", async (input, field) => {
    const { key } = await createVendorWithKey(t.ctx);
    const res = await t.api.post("/api/vendor/webhooks", input, { key });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("validation_failed");
    expect(res.body.errors.map((e: any) => e.field)).toContain(field);
  });

  it("subscribing to an event needs its resource's read scope besides webhooks:write", async () => {
    const { vendor } = await createVendorWithKey(t.ctx);
    const key = await createKey(t.ctx, vendor.id, ["webhooks:write", "webhooks:read", "orders:read"]);
    expect((await t.api.post("/api/vendor/webhooks", body(["order.created"]), { key })).status).toBe(201);
    const refused = await t.api.post("/api/vendor/webhooks", body(["order.created", "customer.created"]), {
      key,
    });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("insufficient_scope");
    expect(refused.headers.get("www-authenticate")).toContain('scope="customers:read"');
    const readOnly = await createKey(t.ctx, vendor.id, ["webhooks:read", "orders:read"]);
    expect((await t.api.post("/api/vendor/webhooks", body(), { key: readOnly })).status).toBe(403);
  });

  it("answers 401 without credentials or with a revoked key", async () => {
    const { vendor } = await createVendorWithKey(t.ctx);
    expect((await t.api.post("/api/vendor/webhooks", body())).status).toBe(401);
    const revoked = await createRevokedKey(t.ctx, vendor.id);
    expect((await t.api.get("/api/vendor/webhooks", { key: revoked })).status).toBe(401);
  });
});

describe("scopes", () => {
  it("reads need webhooks:read and every change needs webhooks:write (403 insufficient_scope)", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx);
    const created = await t.api.post("/api/vendor/webhooks", body(), { key });
    const base = `/api/vendor/webhooks/${created.body.id}`;
    const reader = await createKey(t.ctx, vendor.id, ["webhooks:read", "orders:read"]);
    const none = await createKey(t.ctx, vendor.id, ["orders:read"]);
    const writes = await Promise.all([
      t.api.post("/api/vendor/webhooks", body(), { key: reader }),
      t.api.patch(base, { status: "DISABLED" }, { key: reader }),
      t.api.put(base, { status: "DISABLED" }, { key: reader }),
      t.api.delete(base, { key: reader }),
      t.api.post(`${base}/rotate-secret`, {}, { key: reader }),
      t.api.post(`${base}/test`, {}, { key: reader }),
      t.api.post(`${base}/recover`, { since: "2026-01-01T00:00:00.000Z" }, { key: reader }),
    ]);
    expect(writes.map((r) => r.status)).toEqual(Array(7).fill(403));
    expect(writes[0]?.headers.get("www-authenticate")).toContain('scope="webhooks:write"');
    const reads = await Promise.all([
      t.api.get("/api/vendor/webhooks", { key: none }),
      t.api.get(base, { key: none }),
      t.api.get(`${base}/deliveries`, { key: none }),
    ]);
    expect(reads.map((r) => r.status)).toEqual([403, 403, 403]);
    expect((await t.api.get(base, { key: reader })).status).toBe(200);
  });
});

describe("update, delete, rotate", () => {
  it("PATCH and PUT change url, events and status; fields left out are unchanged", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const created = await t.api.post("/api/vendor/webhooks", body(), { key });
    const id = created.body.id;
    const patched = await t.api.patch(
      `/api/vendor/webhooks/${id}`,
      { events: ["order.status_changed"] },
      { key },
    );
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ url: URL_A, events: ["order.status_changed"], status: "ACTIVE" });
    const put = await t.api.put(
      `/api/vendor/webhooks/${id}`,
      { url: "http://127.0.0.1:9/b", status: "DISABLED" },
      { key },
    );
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      url: "http://127.0.0.1:9/b",
      events: ["order.status_changed"],
      status: "DISABLED",
    });
    expect(put.body.disabledReason).toEqual(expect.any(String));
    const active = await t.api.patch(`/api/vendor/webhooks/${id}`, { status: "ACTIVE" }, { key });
    expect(active.body).toMatchObject({ status: "ACTIVE", disabledReason: null });
    for (const bad of [{ status: "PAUSED" }, { events: [] }, { url: "nope" }, { secret: "x" }]) {
      const res = await t.api.patch(`/api/vendor/webhooks/${id}`, bad, { key });
      expect(res.status).toBe(400);
    }
  });

  it("DELETE answers 204, then the webhook and its deliveries are 404", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const created = await t.api.post("/api/vendor/webhooks", body(), { key });
    const id = created.body.id;
    expect((await t.api.delete(`/api/vendor/webhooks/${id}`, { key })).status).toBe(204);
    expect((await t.api.get(`/api/vendor/webhooks/${id}`, { key })).status).toBe(404);
    expect((await t.api.get(`/api/vendor/webhooks/${id}/deliveries`, { key })).status).toBe(404);
    expect((await t.api.delete(`/api/vendor/webhooks/${id}`, { key })).status).toBe(404);
  });

  it("another vendor's webhook, or a malformed id, is 404 on every route", async () => {
    const a = await createVendorWithKey(t.ctx);
    const b = await createVendorWithKey(t.ctx);
    const created = await t.api.post("/api/vendor/webhooks", body(), { key: a.key });
    for (const id of [created.body.id, "not-an-id", "x".repeat(150)]) {
      const base = `/api/vendor/webhooks/${id}`;
      const results = await Promise.all([
        t.api.get(base, { key: b.key }),
        t.api.patch(base, { status: "DISABLED" }, { key: b.key }),
        t.api.put(base, { status: "DISABLED" }, { key: b.key }),
        t.api.delete(base, { key: b.key }),
        t.api.post(`${base}/rotate-secret`, {}, { key: b.key }),
        t.api.post(`${base}/test`, {}, { key: b.key }),
        t.api.get(`${base}/deliveries`, { key: b.key }),
        t.api.get(`${base}/deliveries/tz4a98xxat96iws9zmbrgj3a`, { key: b.key }),
        t.api.post(`${base}/deliveries/tz4a98xxat96iws9zmbrgj3a/redeliver`, {}, { key: b.key }),
        t.api.post(`${base}/recover`, { since: "2026-01-01T00:00:00.000Z" }, { key: b.key }),
      ]);
      expect(results.map((r) => r.status)).toEqual(Array(10).fill(404));
    }
    const still = await t.api.get(`/api/vendor/webhooks/${created.body.id}`, { key: a.key });
    expect(still.body.status).toBe("ACTIVE");
  });

  it("rotate-secret returns a new secret once, with the overlap's end (default 24 h)", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const created = await t.api.post("/api/vendor/webhooks", body(), { key });
    const before = Date.now();
    const res = await t.api.post(`/api/vendor/webhooks/${created.body.id}/rotate-secret`, undefined, { key });
    expect(res.status).toBe(200);
    expect(res.body.secret).not.toBe(created.body.secret);
    const ends = Date.parse(res.body.previousSecretExpiresAt);
    expect(ends - before).toBeGreaterThanOrEqual(86_400_000 - 5_000);
    expect(ends - before).toBeLessThanOrEqual(86_400_000 + 5_000);
    const bad = await t.api.post(
      `/api/vendor/webhooks/${created.body.id}/rotate-secret`,
      { overlapSeconds: -1 },
      { key },
    );
    expect(bad.status).toBe(400);
  });

  it("recover refuses a window that ends before it starts", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const created = await t.api.post("/api/vendor/webhooks", body(), { key });
    const res = await t.api.post(
      `/api/vendor/webhooks/${created.body.id}/recover`,
      { since: "2026-02-01T00:00:00.000Z", until: "2026-01-01T00:00:00.000Z" },
      { key },
    );
    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toBe("until");
  });
});

describe("OpenAPI", () => {
  it("describes every event payload in the 3.1 webhooks section", async () => {
    const doc = await t.api.get("/openapi.json");
    expect(doc.body.openapi).toBe("3.1.0");
    const names = Object.keys(doc.body.webhooks).sort();
    expect(names).toEqual(
      [
        "appointment.cancelled",
        "appointment.completed",
        "appointment.confirmed",
        "appointment.created",
        "appointment.deleted",
        "appointment.updated",
        "customer.created",
        "customer.deleted",
        "customer.updated",
        "inquiry.received",
        "order.at_risk",
        "order.created",
        "order.overdue",
        "order.status_changed",
        "order.updated",
        "webhook.test",
      ].sort(),
    );
    const changed = doc.body.webhooks["order.status_changed"].post;
    const schema = changed.requestBody.content["application/json"].schema;
    expect(Object.keys(schema.properties).sort()).toEqual(["data", "event", "id", "timestamp"]);
    const dataRef: string = schema.properties.data.$ref;
    const data = doc.body.components.schemas[dataRef.split("/").pop() as string];
    expect(Object.keys(data.properties)).toEqual(
      expect.arrayContaining(["id", "status", "previousStatus", "customerId", "updatedAt"]),
    );
    expect(changed.parameters.map((p: any) => p.name)).toContain("X-Service-Signature");
  });
});
