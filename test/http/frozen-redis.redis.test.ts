// A frozen Redis: a private redis-server this file starts, stopped with SIGSTOP.
// A rate-limited request waits for it at most a bounded time, then is counted in the process's
// memory with its RateLimit headers; /ready says degraded; one "unreachable" log line, and one
// "back" line once SIGCONT lets Redis answer again, after which Redis counts again.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rateLimitStoreReady } from "../../src/http/rate-limit.ts";
import { DEFAULT_SHARED_WAIT_MS as SHARED_WAIT_MS } from "../../src/http/rate-limit-store.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import {
  hasRedisServer,
  type PrivateRedis,
  redisServerMissing,
  startPrivateRedis,
} from "../helpers/private-redis.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";
import { eventually } from "../helpers/webhook-receiver.ts";

const LIMIT = 50;
let redis: PrivateRedis;
let t: TestApp;
const lines: string[] = [];
const logged = (text: string) => lines.filter((line) => line.includes(text));

beforeAll(async () => {
  if (!hasRedisServer) return;
  redis = await startPrivateRedis("frozen-redis");
  t = await startTestApp({
    env: { REDIS_URL: redis.url, RATE_LIMIT_PER_MINUTE: String(LIMIT), LOG_LEVEL: "info" },
    logStream: { write: (line) => lines.push(line) },
  });
  await rateLimitStoreReady(t.app.rateLimitStore);
});
afterAll(async () => {
  // Redis first: a service closing against a frozen Redis would wait for it.
  await redis?.destroy();
  await t?.close();
});

/** A request with a 5 s client timeout (a frozen Redis held requests for the whole freeze). */
async function timed(key: string) {
  const started = performance.now();
  const res = await fetch(`${t.url}/api/vendor/profile`, {
    headers: { "x-api-key": key },
    signal: AbortSignal.timeout(5_000),
  });
  return { res, ms: performance.now() - started };
}

const countersInRedis = async () => (await redis.client.keys("vendor-api:rl:credential*")).length;

if (!hasRedisServer) console.warn(redisServerMissing);

describe.skipIf(!hasRedisServer)("a frozen Redis", { timeout: 60_000 }, () => {
  it("costs a request a bounded wait, then memory counts with headers; /ready degraded; one line each way", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const before = await timed(key);
    expect(before.res.status).toBe(200);
    expect(before.res.headers.get("ratelimit-remaining")).toBe(String(LIMIT - 1));
    expect(await countersInRedis()).toBeGreaterThan(0);
    // On a loaded machine an answer may already have come later than the bound (memory counted
    // it, and Redis came back): start from the counters shared, and count log lines from here.
    await eventually(async () => (await (await fetch(`${t.url}/ready`)).json()).status === "ok");
    const unreachableBefore = logged("Redis unreachable").length;
    const backBefore = logged("Redis back").length;

    redis.freeze();
    const frozen = [];
    for (let i = 0; i < 5; i++) frozen.push(await timed(key));
    for (const { res } of frozen) {
      expect(res.status).toBe(200);
      expect(res.headers.get("ratelimit-policy")).toBe(`"credential";q=${LIMIT};w=60`);
    }
    // Memory counts, one by one: the headers go out, the budget is this process's.
    const remaining = frozen.map(({ res }) => Number(res.headers.get("ratelimit-remaining")));
    expect(remaining[0]).toBeLessThan(LIMIT);
    expect(remaining).toEqual(remaining.map((_, i) => (remaining[0] ?? 0) - i));
    // The first request waits for Redis at most SHARED_WAIT_MS, the next ones not at all; the
    // margins are the requests' own time on a loaded machine (the freeze itself never ends here,
    // and held every request until the client gave up).
    expect(frozen[0]?.ms ?? 0).toBeLessThan(SHARED_WAIT_MS + 1_500);
    expect(frozen.reduce((sum, { ms }) => sum + ms, 0)).toBeLessThan(SHARED_WAIT_MS + 4_000);

    const ready = await fetch(`${t.url}/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({
      status: "degraded",
      reason: expect.stringContaining("Redis"),
    });
    expect(logged("Redis unreachable")).toHaveLength(unreachableBefore + 1);

    redis.thaw();
    await eventually(async () => (await (await fetch(`${t.url}/ready`)).json()).status === "ok");
    expect(logged("Redis back")).toHaveLength(backBefore + 1);
    expect(logged("Redis unreachable")).toHaveLength(unreachableBefore + 1);
    // Redis counts again: a new credential's counter appears there.
    const other = await createVendorWithKey(t.ctx);
    const counters = await countersInRedis();
    expect((await timed(other.key)).res.status).toBe(200);
    expect(await countersInRedis()).toBe(counters + 1);
  });
});
