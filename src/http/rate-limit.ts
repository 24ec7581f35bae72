// Rate limits (CONTRACT 8): fixed windows counted in process memory, or in Redis when REDIS_URL
// is set so that every instance shares one budget. Redis being down lets requests through
// (fail open): an outage of the counters must not become an outage of the service.
//
// Budgets, each a named policy:
// - "auth-failures": failed authentications under /api/vendor, per client address. Checked
//   before any credential is looked up, so made-up keys cannot buy unlimited database lookups;
// - "credential": requests per credential, counted only once the credential authenticated
//   (a bucket per random string would be a free pass: every new string opens a fresh one);
// - per client address on public, sign-in, tracking, dashboard and OAuth routes;
// - "oauth-client": per client_id at the token, revocation and authorization endpoints.
//
// Headers: RateLimit-Limit / -Remaining / -Reset (draft-ietf-httpapi-ratelimit-headers-00..06)
// and the current draft's structured `RateLimit-Policy: "<name>";q=<quota>;w=<window s>` and
// `RateLimit: "<name>";r=<remaining>;t=<reset s>`. Where two budgets apply to one request, the
// headers describe the one closer to running out. A 429 carries Retry-After (RFC 9110 10.2.3).
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Redis } from "ioredis";
import { AppError } from "../errors.ts";
import { hashSecret } from "../lib/crypto.ts";

export const WINDOW_MS = 60_000;
/** Per client address on public routes: stricter than the per-credential default (600). */
export const DEFAULT_ADDRESS_LIMIT_PER_MINUTE = 30;

export interface RateLimitStore {
  /** Shared counters; undefined means counters in this process's memory. */
  readonly redis: Redis | undefined;
  /** Prefix of every Redis key, so deployments (and test runs) sharing a Redis never collide. */
  readonly prefix: string;
  /** The in-process counters (used when redis is undefined). */
  readonly memory: MemoryWindows;
}

export interface Budget {
  /** Policy name in the RateLimit-Policy / RateLimit fields, and part of the store key. */
  policy: string;
  max: number;
  windowMs?: number;
}

export interface Usage {
  policy: string;
  limit: number;
  windowMs: number;
  /** Requests counted in the current window, this one included when it was counted. */
  count: number;
  remaining: number;
  /** Seconds until the window ends. */
  resetS: number;
  exceeded: boolean;
}

/** Fixed windows in memory, bounded: expired windows are dropped as the map grows. */
export class MemoryWindows {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();

  hit(key: string, windowMs: number, increment: boolean): { count: number; ttlMs: number } {
    const now = Date.now();
    let w = this.windows.get(key);
    if (!w || w.resetAt <= now) {
      if (!increment) return { count: 0, ttlMs: windowMs };
      w = { count: 0, resetAt: now + windowMs };
      this.windows.set(key, w);
      this.prune(now);
    }
    if (increment) w.count += 1;
    return { count: w.count, ttlMs: w.resetAt - now };
  }

  private prune(now: number): void {
    if (this.windows.size < 50_000) return;
    for (const [key, w] of this.windows) if (w.resetAt <= now) this.windows.delete(key);
    // Still full of live windows (a flood of distinct keys): forget the oldest half rather than
    // grow without bound; an attacker gains at most a fresh window for keys it already spent.
    if (this.windows.size >= 50_000) {
      let drop = this.windows.size / 2;
      for (const key of this.windows.keys()) {
        if (drop-- <= 0) break;
        this.windows.delete(key);
      }
    }
  }
}

const INCR = `local c = redis.call('INCR', KEYS[1])
if c == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local t = redis.call('PTTL', KEYS[1])
if t < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); t = tonumber(ARGV[1]) end
return {c, t}`;
const READ = `local c = redis.call('GET', KEYS[1])
if not c then return {0, tonumber(ARGV[1])} end
local t = redis.call('PTTL', KEYS[1])
if t < 0 then t = tonumber(ARGV[1]) end
return {tonumber(c), t}`;

type CountingRedis = Redis & {
  vendorApiRateIncr(key: string, windowMs: number): Promise<[number, number]>;
  vendorApiRateRead(key: string, windowMs: number): Promise<[number, number]>;
};

/** Connects to Redis when a URL is given. Redis being down lets requests through (fail open). */
export function openRateLimitStore(
  redisUrl: string | undefined,
  prefix: string,
  log: { error(obj: unknown, msg: string): void },
): RateLimitStore & { close(): Promise<void> } {
  const memory = new MemoryWindows();
  if (!redisUrl) return { redis: undefined, prefix, memory, close: async () => {} };
  // No offline queue: while Redis is unreachable a command fails at once instead of stalling the
  // request, and the request goes through uncounted rather than turning an outage into 5xx.
  const redis = new Redis(redisUrl, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    lazyConnect: true,
  });
  redis.defineCommand("vendorApiRateIncr", { numberOfKeys: 1, lua: INCR });
  redis.defineCommand("vendorApiRateRead", { numberOfKeys: 1, lua: READ });
  redis.on("error", (err) => log.error({ err: { message: err.message } }, "rate-limit redis error"));
  redis.connect().catch(() => {});
  return {
    redis,
    prefix,
    memory,
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}

/** Resolves once the store can count (tests wait for it; the service does not need to). */
export async function rateLimitStoreReady(store: RateLimitStore): Promise<void> {
  const redis = store.redis;
  if (!redis || redis.status === "ready") return;
  await new Promise<void>((resolve, reject) => {
    redis.once("ready", () => resolve());
    redis.once("end", () => reject(new Error("redis connection ended")));
  });
}

/**
 * Counts one request against `budget` under `key` (or only reads the count with
 * `increment: false`). Undefined when the shared store is unreachable (fail open).
 */
export async function consume(
  store: RateLimitStore,
  budget: Budget,
  key: string,
  options: { increment?: boolean } = {},
): Promise<Usage | undefined> {
  const windowMs = budget.windowMs ?? WINDOW_MS;
  const increment = options.increment ?? true;
  const fullKey = `${budget.policy}:${key}`;
  let count: number;
  let ttlMs: number;
  if (store.redis) {
    try {
      const redis = store.redis as CountingRedis;
      const redisKey = `${store.prefix}rl:${fullKey}`;
      [count, ttlMs] = increment
        ? await redis.vendorApiRateIncr(redisKey, windowMs)
        : await redis.vendorApiRateRead(redisKey, windowMs);
    } catch {
      return undefined;
    }
  } else {
    ({ count, ttlMs } = store.memory.hit(fullKey, windowMs, increment));
  }
  return {
    policy: budget.policy,
    limit: budget.max,
    windowMs,
    count,
    remaining: Math.max(0, budget.max - count),
    resetS: Math.max(1, Math.ceil(ttlMs / 1000)),
    // Reading (no increment): the next request would be one too many once the budget is spent.
    exceeded: increment ? count > budget.max : count >= budget.max,
  };
}

const shown = new WeakMap<FastifyReply, Usage>();

/** Writes the RateLimit headers for `usage`, unless a budget closer to running out already did. */
export function writeRateLimitHeaders(reply: FastifyReply, usage: Usage | undefined): void {
  if (!usage) return;
  const previous = shown.get(reply);
  if (previous && previous.remaining <= usage.remaining && previous !== usage) return;
  shown.set(reply, usage);
  const windowS = usage.windowMs / 1000;
  reply.header("ratelimit-limit", String(usage.limit));
  reply.header("ratelimit-remaining", String(usage.remaining));
  reply.header("ratelimit-reset", String(usage.resetS));
  reply.header("ratelimit-policy", `"${usage.policy}";q=${usage.limit};w=${windowS}`);
  reply.header("ratelimit", `"${usage.policy}";r=${usage.remaining};t=${usage.resetS}`);
}

/** The 429 for a spent budget: problem code rate_limited with Retry-After. */
export function rateLimitedError(usage: Usage): AppError {
  return new AppError(
    "rate_limited",
    `Rate limit of ${usage.limit} requests per ${usage.windowMs / 1000} seconds exceeded; retry in ${usage.resetS} s`,
    { headers: { "retry-after": String(usage.resetS) } },
  );
}

/** Counts the request, writes the headers and throws the 429 when the budget is spent. */
export async function enforce(
  store: RateLimitStore,
  budget: Budget,
  key: string,
  reply: FastifyReply,
): Promise<Usage | undefined> {
  const usage = await consume(store, budget, key);
  writeRateLimitHeaders(reply, usage);
  if (usage?.exceeded) {
    reply.header("retry-after", String(usage.resetS));
    throw rateLimitedError(usage);
  }
  return usage;
}

/** The client address (request.ip honours TRUST_PROXY), as a store key. */
export const addressKey = (request: FastifyRequest): string => `a:${request.ip}`;

/**
 * Every route registered in `scope` afterwards counts against the client address: public
 * routes (inquiries), sign-in, tracking and dashboard pages, the OAuth endpoints. Several may
 * apply to one route (a scope inside another); each counts, the headers show the tighter one.
 */
export function registerAddressRateLimit(
  scope: FastifyInstance,
  store: RateLimitStore,
  options: { policy: string; maxPerMinute?: number },
): void {
  const budget = { policy: options.policy, max: options.maxPerMinute ?? DEFAULT_ADDRESS_LIMIT_PER_MINUTE };
  scope.addHook("onRequest", async (request, reply) => {
    await enforce(store, budget, addressKey(request), reply);
  });
}

const AUTH_FAILURE_CODES = new Set(["unauthenticated", "invalid_credentials", "ambiguous_credentials"]);

/**
 * Failed authentications count against the client address (CONTRACT 8). Register before the
 * authentication hook: once an address spent its failure budget, a credential is refused before
 * any lookup unless it authenticated within the current window (it has a live "credential"
 * counter): made-up strings cost nothing, while an integration in use behind the same address
 * (an office NAT, a proxy) keeps working. Every failure is counted and answered with the headers.
 */
export function registerFailedAuthenticationLimit(
  scope: FastifyInstance,
  store: RateLimitStore,
  maxPerMinute: number,
): void {
  const budget = { policy: "auth-failures", max: maxPerMinute };
  scope.addHook("onRequest", async (request, reply) => {
    if (!request.routeOptions.config.scope) return;
    const usage = await consume(store, budget, addressKey(request), { increment: false });
    if (usage?.exceeded && !(await recentlyAuthenticated(store, request))) {
      writeRateLimitHeaders(reply, usage);
      reply.header("retry-after", String(usage.resetS));
      throw rateLimitedError(usage);
    }
  });
  scope.addHook("onError", async (request, reply, error) => {
    if (!(error instanceof AppError) || !AUTH_FAILURE_CODES.has(error.code)) return;
    writeRateLimitHeaders(reply, await consume(store, budget, addressKey(request)));
  });
}

/** Whether the request's credential authenticated within the current window (no lookup). */
async function recentlyAuthenticated(store: RateLimitStore, request: FastifyRequest): Promise<boolean> {
  const seen = await consume(store, CREDENTIAL_POLICY_PROBE, credentialKey(request), { increment: false });
  return (seen?.count ?? 0) > 0;
}

const CREDENTIAL_POLICY = "credential";
/** Reads the "credential" counters (the max is irrelevant to a read). */
const CREDENTIAL_POLICY_PROBE = { policy: CREDENTIAL_POLICY, max: 1 };

/**
 * Per credential (CONTRACT 8), for requests that authenticated: register after the
 * authentication hook. The key is a hash of the API key or bearer token, never the secret
 * itself, so Redis holds nothing usable.
 */
export function registerCredentialRateLimit(
  scope: FastifyInstance,
  store: RateLimitStore,
  maxPerMinute: number,
): void {
  const budget = { policy: CREDENTIAL_POLICY, max: maxPerMinute };
  scope.addHook("onRequest", async (request, reply) => {
    if (!request.principal) return;
    await enforce(store, budget, credentialKey(request), reply);
  });
}

function credentialKey(request: FastifyRequest): string {
  const apiKey = request.headers["x-api-key"];
  if (typeof apiKey === "string" && apiKey) return `k:${hashSecret(apiKey.trim())}`;
  const authorization = request.headers.authorization ?? "";
  return `t:${hashSecret(authorization.replace(/^\s*Bearer\s+/i, "").trim())}`;
}

declare module "fastify" {
  interface FastifyInstance {
    /** The rate-limit counters' store, for routes registered later (e.g. /login). */
    rateLimitStore: RateLimitStore;
  }
}
