// A frozen Redis: a private redis-server this file starts, stopped with SIGSTOP.
// A rate-limited request waits for it at most a bounded time, then is counted in the process's
// memory with its RateLimit headers; /ready says degraded; one "unreachable" log line, and one
// "back" line once SIGCONT lets Redis answer again, after which Redis counts again.
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rateLimitStoreReady } from "../../src/http/rate-limit.ts";
import { DEFAULT_SHARED_WAIT_MS as SHARED_WAIT_MS } from "../../src/http/rate-limit-store.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { freePort } from "../helpers/ports.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";
import { eventually } from "../helpers/webhook-receiver.ts";

const LIMIT = 50;
let dir: string;
let server: ChildProcess;
let redis: Redis;
let t: TestApp;
const lines: string[] = [];
const logged = (text: string) => lines.filter((line) => line.includes(text));

beforeAll(async () => {
  dir = tempDir("frozen-redis");
  const port = await freePort();
  const out = fs.openSync(path.join(dir, "redis.log"), "w");
  server = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
    { stdio: ["ignore", out, out] },
  );
  redis = new Redis({ port, host: "127.0.0.1", retryStrategy: () => 50 });
  redis.on("error", () => {}); // refused until the server listens
  await eventually(async () => (await redis.ping().catch(() => undefined)) === "PONG");
  t = await startTestApp({
    env: { REDIS_URL: `redis://127.0.0.1:${port}`, RATE_LIMIT_PER_MINUTE: String(LIMIT), LOG_LEVEL: "info" },
    logStream: { write: (line) => lines.push(line) },
  });
  await rateLimitStoreReady(t.app.rateLimitStore);
});
afterAll(async () => {
  if (server && server.exitCode === null) {
    server.kill("SIGCONT");
    server.kill("SIGKILL");
  }
  redis?.disconnect();
  await t?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
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

const countersInRedis = async () => (await redis.keys("vendor-api:rl:credential*")).length;

describe("a frozen Redis", { timeout: 60_000 }, () => {
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

    server.kill("SIGSTOP");
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

    server.kill("SIGCONT");
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
