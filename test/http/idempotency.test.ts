import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.ts";
import { idempotencyKeys } from "../../src/db/schema/index.ts";
import { lockKey } from "../../src/http/idempotency.repository.ts";
import { createApiKey } from "../../src/modules/api-keys/api-keys.service.ts";
import { type ApiClient, apiClient } from "../helpers/api-client.ts";
import { adjustableClock } from "../helpers/clock.ts";
import { createKey, createVendorWithKey } from "../helpers/factories.ts";
import { freePort } from "../helpers/ports.ts";
import { useTestApp } from "../helpers/test-app.ts";

// A clock the tests can move forward, shared by both app instances.
const clock = adjustableClock();
const { now } = clock;
const HOUR = 3_600_000;

let second: FastifyInstance;
let secondApi: ApiClient;
const t = useTestApp({ now });
beforeAll(async () => {
  // A second instance on the same database, as a second process would be.
  second = await buildApp({ config: t.config, database: t.database, now });
  const port = await freePort();
  await second.listen({ port, host: "127.0.0.1" });
  secondApi = apiClient(`http://127.0.0.1:${port}`);
});
afterAll(async () => {
  await second.close();
});

const idem = (key: string) => ({ headers: { "idempotency-key": key } });
const customer = { name: "Idem", email: "idem@example.com" };

describe("Idempotency-Key on POST /api/vendor/*", () => {
  it("the same key and request replays the first answer with Idempotent-Replayed: true, creating once", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const first = await t.api.post("/api/vendor/customers", customer, { key, ...idem("k-1") });
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const again = await t.api.post("/api/vendor/customers", customer, { key, ...idem("k-1") });
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("content-type")).toMatch(/^application\/json/);
    expect(again.body).toEqual(first.body);
    const list = await t.api.get("/api/vendor/customers", { key });
    expect(list.body.customers).toHaveLength(1);
  });

  it("works across instances: a key used on one is replayed by another (the record is in the database)", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const body = { customerName: "Across", type: "SUIT" };
    const first = await t.api.post("/api/vendor/orders", body, { key, ...idem("k-across") });
    const again = await secondApi.post("/api/vendor/orders", body, { key, ...idem("k-across") });
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.text).toBe(first.text);
    expect((await t.api.get("/api/vendor/orders", { key })).body.orders).toHaveLength(1);
  });

  it("replays the pre-serialized order JSON byte for byte", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const body = { customerName: "Bytes", type: "RENTAL" };
    const first = await t.api.post("/api/vendor/orders", body, { key, ...idem("k-bytes") });
    const again = await t.api.post("/api/vendor/orders", body, { key, ...idem("k-bytes") });
    expect(again.text).toBe(first.text);
  });

  it("concurrent requests with one key on two instances create exactly one resource", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const body = { name: "Concurrent" };
    const results = await Promise.all(
      [t.api, secondApi, t.api, secondApi].map((api) =>
        api.post("/api/vendor/customers", body, { key, ...idem("k-concurrent") }),
      ),
    );
    for (const res of results) {
      if (res.status === 409) expect(res.body.code).toBe("idempotency_key_in_use");
      else expect(res.status).toBe(201);
    }
    const created = results.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThan(0);
    expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
    expect((await t.api.get("/api/vendor/customers", { key })).body.customers).toHaveLength(1);
  });

  it("the same key with a different body or path is 422 idempotency_key_reused", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    await t.api.post("/api/vendor/customers", customer, { key, ...idem("k-2") });
    const otherBody = await t.api.post(
      "/api/vendor/customers",
      { ...customer, name: "Else" },
      { key, ...idem("k-2") },
    );
    expect(otherBody.status).toBe(422);
    expect(otherBody.body.code).toBe("idempotency_key_reused");
    const otherPath = await t.api.post(
      "/api/vendor/orders",
      { customerName: "X", type: "SUIT" },
      { key, ...idem("k-2") },
    );
    expect(otherPath.status).toBe(422);
    expect((await t.api.get("/api/vendor/orders", { key })).body.orders).toHaveLength(0);
  });

  // PostgreSQL only: there the key is held by a transaction-scoped lock another session can take,
  // as another process running the first request does. (PGlite has one session: a second request
  // waits for the first's transaction and then replays it; see the concurrent test above.)
  it.skipIf(!process.env.TEST_DATABASE_URL)(
    "while the first request is still in flight the same key is 409 idempotency_key_in_use",
    async () => {
      const { vendor } = await createVendorWithKey(t.ctx);
      const { row, key } = await createApiKey(t.ctx, { vendorId: vendor.id, name: "k" });
      const scope = { vendorId: vendor.id, credential: `api_key:${row.id}`, key: "k-3" };
      let res: any;
      await t.database.db.transaction(async (tx) => {
        expect(await lockKey(tx, scope)).toBe(true);
        res = await t.api.post("/api/vendor/customers", customer, { key, ...idem("k-3") });
      });
      expect(res?.status).toBe(409);
      expect(res?.body.code).toBe("idempotency_key_in_use");
      expect(res?.headers.get("retry-after")).toBe("1");
      // Once that transaction is gone (committed, rolled back, or its process killed), it runs.
      const after = await t.api.post("/api/vendor/customers", customer, { key, ...idem("k-3") });
      expect(after.status).toBe(201);
    },
  );

  it("an in_flight record left by the earlier claim-then-run scheme does not block the key", async () => {
    const { vendor } = await createVendorWithKey(t.ctx);
    const { row, key } = await createApiKey(t.ctx, { vendorId: vendor.id, name: "k" });
    await t.ctx.db.insert(idempotencyKeys).values({
      vendorId: vendor.id,
      credential: `api_key:${row.id}`,
      key: "k-crash",
      fingerprint: "whatever",
      state: "in_flight",
      createdAt: now(),
    });
    const res = await t.api.post("/api/vendor/customers", customer, { key, ...idem("k-crash") });
    expect(res.status).toBe(201);
    const again = await t.api.post("/api/vendor/customers", customer, { key, ...idem("k-crash") });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.id).toBe(res.body.id);
  });

  it("keys are scoped to the credential: another key of the vendor, or another vendor, runs anew", async () => {
    const a = await createVendorWithKey(t.ctx);
    const aSecondKey = await createKey(t.ctx, a.vendor.id);
    const b = await createVendorWithKey(t.ctx);
    const first = await t.api.post("/api/vendor/customers", { name: "S" }, { key: a.key, ...idem("shared") });
    const otherKey = await t.api.post(
      "/api/vendor/customers",
      { name: "S" },
      { key: aSecondKey, ...idem("shared") },
    );
    const otherVendor = await t.api.post(
      "/api/vendor/customers",
      { name: "S" },
      { key: b.key, ...idem("shared") },
    );
    for (const res of [otherKey, otherVendor]) {
      expect(res.status).toBe(201);
      expect(res.headers.get("idempotent-replayed")).toBeNull();
      expect(res.body.id).not.toBe(first.body.id);
    }
  });

  it("a 4xx answer is replayed too (409 customer_email_taken)", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    await t.api.post("/api/vendor/customers", customer, { key });
    const first = await t.api.post("/api/vendor/customers", customer, { key, ...idem("k-409") });
    const again = await t.api.post("/api/vendor/customers", customer, { key, ...idem("k-409") });
    expect(first.status).toBe(409);
    expect(again.status).toBe(409);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(again.body).toEqual(first.body);
  });

  it("records are kept 24 h: replayed at 23 h, run anew at 25 h", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const body = { name: "Retained" };
    const first = await t.api.post("/api/vendor/customers", body, { key, ...idem("k-24h") });
    try {
      clock.setOffset(23 * HOUR);
      const replayed = await t.api.post("/api/vendor/customers", body, { key, ...idem("k-24h") });
      expect(replayed.headers.get("idempotent-replayed")).toBe("true");
      expect(replayed.body.id).toBe(first.body.id);
      clock.setOffset(25 * HOUR);
      const fresh = await t.api.post("/api/vendor/customers", body, { key, ...idem("k-24h") });
      expect(fresh.status).toBe(201);
      expect(fresh.headers.get("idempotent-replayed")).toBeNull();
      expect(fresh.body.id).not.toBe(first.body.id);
    } finally {
      clock.setOffset(0);
    }
  });

  it("a malformed Idempotency-Key is 400 validation_failed naming it", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const res = await t.api.post("/api/vendor/customers", customer, { key, ...idem("x".repeat(256)) });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: "Idempotency-Key", message: expect.any(String) }]);
  });

  it("applies to every POST under /api/vendor: orders, customers, appointments", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const c = await t.api.post("/api/vendor/customers", { name: "Every" }, { key });
    const bodies: Record<string, unknown> = {
      "/api/vendor/orders": { customerName: "Every", type: "SUIT" },
      "/api/vendor/customers": { name: "Every POST" },
      "/api/vendor/appointments": { customerId: c.body.id, type: "PICKUP", date: "2027-07-01T10:00:00Z" },
    };
    for (const [path, body] of Object.entries(bodies)) {
      const first = await t.api.post(path, body, { key, ...idem(`every-${path}`) });
      const again = await t.api.post(path, body, { key, ...idem(`every-${path}`) });
      expect(first.status, path).toBe(201);
      expect(again.headers.get("idempotent-replayed"), path).toBe("true");
      expect(again.body.id, path).toBe(first.body.id);
    }
  });

  it("without the header nothing is remembered: two POSTs create two resources", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    await t.api.post("/api/vendor/customers", { name: "One" }, { key });
    await t.api.post("/api/vendor/customers", { name: "One" }, { key });
    expect((await t.api.get("/api/vendor/customers", { key })).body.customers).toHaveLength(2);
  });
});
