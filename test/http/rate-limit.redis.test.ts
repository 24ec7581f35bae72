// Two instances with REDIS_URL share one budget (CONTRACT 8 and 9), on the machine's Redis.
import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.ts";
import { rateLimitStoreReady } from "../../src/http/rate-limit.ts";
import { hashSecret } from "../../src/lib/crypto.ts";
import { type ApiClient, apiClient } from "../helpers/api-client.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { freePort, startTestApp, type TestApp } from "../helpers/test-app.ts";

const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
// A prefix unique to this run, so parallel runs and other engineers' tests never share counters.
const PREFIX = `vendor-api-test:${randomUUID()}:`;
const LIMIT = 6;

let t: TestApp;
let second: FastifyInstance;
let secondApi: ApiClient;
let redis: Redis;
beforeAll(async () => {
  const env = { REDIS_URL, REDIS_KEY_PREFIX: PREFIX, RATE_LIMIT_PER_MINUTE: String(LIMIT) };
  t = await startTestApp({ env });
  second = await buildApp({ config: t.config, database: t.database });
  const port = await freePort();
  await second.listen({ port, host: "127.0.0.1" });
  secondApi = apiClient(`http://127.0.0.1:${port}`);
  await rateLimitStoreReady(t.app.rateLimitStore);
  await rateLimitStoreReady(second.rateLimitStore);
  redis = new Redis(REDIS_URL);
});
afterAll(async () => {
  const keys = await redis.keys(`${PREFIX}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
  await second.close();
  await t.close();
});

describe("rate limits in Redis", () => {
  it("two instances share one budget per credential", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT; i++) {
      const api = i % 2 === 0 ? t.api : secondApi;
      const res = await api.get("/api/vendor/profile", { key });
      statuses.push(res.status);
      expect(res.headers.get("ratelimit-remaining")).toBe(String(LIMIT - 1 - i));
    }
    expect(statuses).toEqual(Array(LIMIT).fill(200));
    expect((await t.api.get("/api/vendor/profile", { key })).status).toBe(429);
    const viaSecond = await secondApi.get("/api/vendor/profile", { key });
    expect(viaSecond.status).toBe(429);
    expect(viaSecond.body.code).toBe("rate_limited");
    expect(Number(viaSecond.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("with Redis unreachable, requests are still served (fail open), not turned into errors", async () => {
    const config = { ...t.config, redisUrl: "redis://127.0.0.1:1" };
    const isolated = await buildApp({ config, database: t.database });
    try {
      const { key } = await createVendorWithKey(t.ctx);
      const res = await isolated.inject({
        method: "GET",
        url: "/api/vendor/profile",
        headers: { "x-api-key": key },
      });
      expect(res.statusCode).toBe(200);
    } finally {
      await isolated.close();
    }
  });

  it("stores a hash of the credential as the key, never the secret", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    await t.api.get("/api/vendor/profile", { key });
    const keys = await redis.keys(`${PREFIX}*`);
    expect(keys.some((k) => k.includes(hashSecret(key)))).toBe(true);
    expect(keys.some((k) => k.includes(key))).toBe(false);
  });
});
