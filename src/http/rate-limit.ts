// Rate limits (CONTRACT 8): fixed windows, counted by rate-limit-store.ts (rate-limiter-flexible:
// in process memory, in the cluster's primary, or in Redis when REDIS_URL is set so that every
// instance shares one budget). Shared counters that do not answer within 100 ms let requests
// through counted in memory (fail open): an outage of the counters must not become an outage of
// the service, nor its wait.
//
// Budgets, each a named policy:
// - "auth-failures": failed authentications per client address, under /api/vendor and at the
//   OAuth token and revocation endpoints. Counted after the lookup that failed, so a credential
//   that authenticates is never refused because others failed from its address (a neighbour
//   behind the same NAT, a stale integration); a made-up one costs that one indexed lookup, and
//   past the budget is answered 429 instead of 401;
// - "credential": requests per credential, counted once it authenticated (a bucket per random
//   string would be a free pass): per API key, and per OAuth grant, so that a refresh (a new
//   access token) does not open a fresh budget. 403 insufficient_scope answers count too;
// - per client address on public, sign-in, tracking, dashboard and OAuth routes.
// Addresses are counted in one spelling each, IPv6 per /64 (client-address.ts).
//
// Headers: RateLimit-Limit / -Remaining / -Reset (draft-ietf-httpapi-ratelimit-headers-00..06)
// and the current draft's structured `RateLimit-Policy: "<name>";q=<quota>;w=<window s>` and
// `RateLimit: "<name>";r=<remaining>;t=<reset s>`. Where two budgets apply to one request, the
// headers describe the one closer to running out. A 429 carries Retry-After (RFC 9110 10.2.3).
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Principal } from "../auth/principal.ts";
import { AppError } from "../errors.ts";
import { clientAddressKey } from "./client-address.ts";
import type { Budget, RateLimitStore } from "./rate-limit-store.ts";

export type { Budget, RateLimitStore } from "./rate-limit-store.ts";
export { openRateLimitStore } from "./rate-limit-store.ts";

export const WINDOW_MS = 60_000;
/** Per client address on public routes: stricter than the per-credential default (600). */
export const DEFAULT_ADDRESS_LIMIT_PER_MINUTE = 30;

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

/** Resolves once the store's shared counters answer (tests wait for it; the service does not need to). */
export function rateLimitStoreReady(store: RateLimitStore): Promise<void> {
  return store.ready();
}

/**
 * Counts one request against `budget` under `key` (or only reads the count with
 * `increment: false`). Always an answer: memory counts when the shared counters cannot.
 */
export async function consume(
  store: RateLimitStore,
  budget: Budget,
  key: string,
  options: { increment?: boolean } = {},
): Promise<Usage> {
  const windowMs = budget.windowMs ?? WINDOW_MS;
  const increment = options.increment ?? true;
  const { count, ttlMs } = increment
    ? await store.hit(budget, windowMs, key)
    : await store.peek(budget, windowMs, key);
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
export function writeRateLimitHeaders(reply: FastifyReply, usage: Usage): void {
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
): Promise<Usage> {
  const usage = await consume(store, budget, key);
  writeRateLimitHeaders(reply, usage);
  if (usage.exceeded) {
    reply.header("retry-after", String(usage.resetS));
    throw rateLimitedError(usage);
  }
  return usage;
}

/** The client address (request.ip honours TRUST_PROXY), as a store key: one per address, IPv6 per /64. */
export const addressKey = (request: FastifyRequest): string => `a:${clientAddressKey(request.ip)}`;

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

/** The budget of failed authentications per client address (CONTRACT 8). */
export const authFailuresBudget = (maxPerMinute: number): Budget => ({
  policy: "auth-failures",
  max: maxPerMinute,
});

/**
 * A failed authentication from the request's address: counted, and the headers written. Past
 * the budget it throws the 429 the caller answers instead of its own error.
 */
export async function countFailedAuthentication(
  store: RateLimitStore,
  budget: Budget,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  await enforce(store, budget, addressKey(request), reply);
}

/**
 * The limits of /api/vendor around authentication (authenticate.ts calls them): a failure counts
 * against the address; an authenticated request against its credential, before its scope is
 * checked, so a 403 insufficient_scope carries the headers and counts like any answer.
 */
export function credentialLimits(
  store: RateLimitStore,
  limits: { perMinute: number; failuresPerMinute: number },
) {
  const perCredential = { policy: "credential", max: limits.perMinute };
  const failures = authFailuresBudget(limits.failuresPerMinute);
  return {
    failed: (request: FastifyRequest, reply: FastifyReply) =>
      countFailedAuthentication(store, failures, request, reply),
    authenticated: async (principal: Principal, reply: FastifyReply) => {
      await enforce(store, perCredential, credentialKey(principal), reply);
    },
  };
}

/** One budget per API key, and per OAuth grant (every access token a grant's refreshes issue). */
function credentialKey(principal: Principal): string {
  const credential = principal.credential;
  return credential.kind === "api_key" ? `k:${credential.id}` : `g:${credential.grantId}`;
}

declare module "fastify" {
  interface FastifyInstance {
    /** The rate-limit counters' store, for routes registered later (e.g. /login). */
    rateLimitStore: RateLimitStore;
  }
}
