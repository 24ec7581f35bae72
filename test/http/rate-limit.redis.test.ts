// Two instances with REDIS_URL share one budget (CONTRACT 8 and 9), on a redis-server of the
// file's own.
import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.ts";
import { rateLimitStoreReady } from "../../src/http/rate-limit.ts";
import { hashSecret } from "../../src/lib/crypto.ts";
import { createApiKey } from "../../src/modules/api-keys/api-keys.service.ts";
import { type ApiClient, apiClient } from "../helpers/api-client.ts";
import { createVendor, createVendorWithKey, TEST_PASSWORD } from "../helpers/factories.ts";
import { freePort } from "../helpers/ports.ts";
import {
  hasRedisServer,
  type PrivateRedis,
  redisServerMissing,
  startPrivateRedis,
} from "../helpers/private-redis.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";

// A prefix of the run's own: the counters are found by it, and no default key is shared.
const PREFIX = `vendor-api-test:${randomUUID()}:`;
const LIMIT = 6;

let t: TestApp;
let second: FastifyInstance;
let secondApi: ApiClient;
let secondUrl: string;
let redis: PrivateRedis;
beforeAll(async () => {
  if (!hasRedisServer) return;
  redis = await startPrivateRedis("rate-limit-redis");
  const env = {
    REDIS_URL: redis.url,
    REDIS_KEY_PREFIX: PREFIX,
    RATE_LIMIT_PER_MINUTE: String(LIMIT),
    SIGN_IN_FAILURES_PER_ACCOUNT: "3",
    // Sharing is what this file checks: on a loaded machine Redis may answer later than the
    // default 100 ms, and this process would count alone (fail open, frozen-redis.redis.test.ts).
    REDIS_WAIT_MS: "5000",
  };
  t = await startTestApp({ env });
  second = await buildApp({ config: t.config, database: t.database });
  const port = await freePort();
  await second.listen({ port, host: "127.0.0.1" });
  secondUrl = `http://127.0.0.1:${port}`;
  secondApi = apiClient(secondUrl);
  await rateLimitStoreReady(t.app.rateLimitStore);
  await rateLimitStoreReady(second.rateLimitStore);
});
afterAll(async () => {
  await second?.close();
  await t?.close();
  await redis?.destroy();
});

async function signIn(url: string, email: string, password: string) {
  const page = await fetch(`${url}/login`);
  const cookie = page.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? "";
  return fetch(`${url}/login`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ _csrf: csrf, email, password }).toString(),
  });
}

if (!hasRedisServer) console.warn(redisServerMissing);

describe.skipIf(!hasRedisServer)("rate limits in Redis", () => {
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

  it("the sign-in throttle is shared: failures on one instance lock the account on the other (CONTRACT 8)", async () => {
    const vendor = await createVendor(t.ctx);
    const urls = [t.url, secondUrl];
    for (let i = 0; i < 3; i++) {
      expect((await signIn(urls[i % 2] ?? "", vendor.email, `wrong ${i}`)).status).toBe(401);
    }
    for (const url of urls) expect((await signIn(url, vendor.email, TEST_PASSWORD)).status).toBe(429);
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

  it("keys a credential's counter by its id, never by the secret or its hash", async () => {
    const { vendor } = await createVendorWithKey(t.ctx);
    const { row, key } = await createApiKey(t.ctx, { vendorId: vendor.id, name: "counted" });
    await t.api.get("/api/vendor/profile", { key });
    const keys = await redis.client.keys(`${PREFIX}*`);
    expect(keys.some((k) => k.includes(row.id))).toBe(true);
    expect(keys.some((k) => k.includes(key) || k.includes(hashSecret(key)))).toBe(false);
  });
});
