// Rate limits (CONTRACT 8) on @fastify/rate-limit: a fixed window per credential under
// /api/vendor and a stricter one per client address on public routes. The counters live in
// process memory, or in Redis when REDIS_URL is set so that every instance shares one budget.
//
// Headers: the plugin's draft-spec mode writes RateLimit-Limit / -Remaining / -Reset (the
// widely deployed draft-ietf-httpapi-ratelimit-headers-00..06 names); this module adds the
// current draft's structured fields, `RateLimit-Policy: "<name>";q=<quota>;w=<window s>` and
// `RateLimit: "<name>";r=<remaining>;t=<reset s>` (draft-ietf-httpapi-ratelimit-headers-09+).
// A 429 is a problem body with code rate_limited and Retry-After (RFC 9110 10.2.3).
import rateLimit from "@fastify/rate-limit";
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
}

/** Connects to Redis when a URL is given. Redis being down lets requests through (fail open). */
export function openRateLimitStore(
  redisUrl: string | undefined,
  prefix: string,
  log: { error(obj: unknown, msg: string): void },
): RateLimitStore & { close(): Promise<void> } {
  if (!redisUrl) return { redis: undefined, prefix, close: async () => {} };
  // No offline queue: while Redis is unreachable a command fails at once instead of stalling the
  // request; skipOnError then lets the request through rather than turning an outage into 5xx.
  const redis = new Redis(redisUrl, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    lazyConnect: true,
  });
  redis.on("error", (err) => log.error({ err }, "rate-limit redis error"));
  redis.connect().catch(() => {});
  return {
    redis,
    prefix,
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

interface LimiterOptions {
  /** Policy name in the RateLimit-Policy / RateLimit fields, and part of the store key. */
  policy: string;
  max: number;
  keyGenerator: (request: FastifyRequest) => string;
}

async function registerLimiter(scope: FastifyInstance, store: RateLimitStore, options: LimiterOptions) {
  // The plugin decorates the scope; a second limiter in the same scope (or below one) would
  // silently reuse the first one's settings, so each limiter needs its own encapsulated scope.
  if (scope.hasDecorator("rateLimit")) {
    throw new Error(`rate limiter "${options.policy}": register it in its own scope (one limiter per scope)`);
  }
  await scope.register(rateLimit, {
    global: false,
    max: options.max,
    timeWindow: WINDOW_MS,
    enableDraftSpec: true,
    skipOnError: true,
    keyGenerator: options.keyGenerator,
    ...(store.redis ? { redis: store.redis, nameSpace: `${store.prefix}rl:${options.policy}:` } : {}),
    errorResponseBuilder: (_request, context) =>
      new AppError(
        "rate_limited",
        `Rate limit of ${context.max} requests per minute exceeded; retry in ${context.after}`,
      ),
  });
  // Added as a scope hook (not per route) so it runs before authentication: floods of bad
  // credentials are counted too, and every answer, errors included, carries the headers.
  scope.addHook("onRequest", scope.rateLimit());
  scope.addHook("onSend", async (_request, reply, payload) => {
    addStructuredHeaders(reply, options.policy);
    return payload;
  });
}

function addStructuredHeaders(reply: FastifyReply, policy: string): void {
  const limit = reply.getHeader("ratelimit-limit");
  const remaining = reply.getHeader("ratelimit-remaining");
  const reset = reply.getHeader("ratelimit-reset");
  if (limit === undefined || remaining === undefined || reset === undefined) return;
  reply.header("ratelimit-policy", `"${policy}";q=${limit};w=${WINDOW_MS / 1000}`);
  reply.header("ratelimit", `"${policy}";r=${remaining};t=${reset}`);
}

/** The client address as the socket reports it (set Fastify's trustProxy behind a proxy). */
const addressKey = (request: FastifyRequest) => `a:${request.ip}`;

/**
 * Per credential (CONTRACT 8): the key is a hash of the API key or bearer token, never the
 * secret itself, so Redis holds nothing usable. Requests without credentials count per address.
 */
function credentialKey(request: FastifyRequest): string {
  const apiKey = request.headers["x-api-key"];
  if (typeof apiKey === "string" && apiKey) return `k:${hashSecret(apiKey.trim())}`;
  const authorization = request.headers.authorization;
  if (typeof authorization === "string" && authorization) {
    return `t:${hashSecret(authorization.replace(/^\s*Bearer\s+/i, "").trim())}`;
  }
  return addressKey(request);
}

/** Every route registered in `scope` afterwards counts against the caller's credential. */
export async function registerCredentialRateLimit(
  scope: FastifyInstance,
  store: RateLimitStore,
  maxPerMinute: number,
): Promise<void> {
  await registerLimiter(scope, store, {
    policy: "credential",
    max: maxPerMinute,
    keyGenerator: credentialKey,
  });
}

/**
 * Every route registered in `scope` afterwards counts against the client address: for public
 * routes (inquiries) and sign-in pages. `policy` separates budgets (e.g. "public", "login").
 * Give each limiter its own encapsulated scope, e.g. for the sign-in page:
 *
 *   await app.register(async (login) => {
 *     await registerAddressRateLimit(login, app.rateLimitStore, { policy: "login", maxPerMinute: 10 });
 *     login.get("/login", …);
 *   });
 */
export async function registerAddressRateLimit(
  scope: FastifyInstance,
  store: RateLimitStore,
  options: { policy: string; maxPerMinute?: number },
): Promise<void> {
  await registerLimiter(scope, store, {
    policy: options.policy,
    max: options.maxPerMinute ?? DEFAULT_ADDRESS_LIMIT_PER_MINUTE,
    keyGenerator: addressKey,
  });
}

declare module "fastify" {
  interface FastifyInstance {
    /** The rate-limit counters' store, for routes registered later (e.g. /login). */
    rateLimitStore: RateLimitStore;
  }
}
