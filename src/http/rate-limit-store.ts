// Where rate-limit counters live, counted by rate-limiter-flexible (docs/decisions/0009): our
// policies, keys and headers (rate-limit.ts) sit on top, this file only says which counter
// answers a request.
//
// - No REDIS_URL, one process: counters in this process's memory (RateLimiterMemory).
// - No REDIS_URL, API_PROCESSES=N: counters in the primary process, asked over node:cluster's IPC
//   (RateLimiterCluster; main.ts starts its RateLimiterClusterMaster), so N processes share one
//   budget instead of each granting it in full.
// - REDIS_URL: counters in Redis (RateLimiterRedis), shared by every process and instance.
//
// The shared counters are insured: a Redis (or primary) that does not answer within
// REDIS_WAIT_MS (100 ms by default), refuses, or is disconnected costs a request that wait at most, and the request
// is counted by this process's memory instead (RLWrapperTimeouts with an insurance limiter), with
// the same headers. The first such failure marks the shared counters unreachable: one log line,
// /ready says "degraded", and requests go straight to memory (no wait at all) while a probe pings
// Redis every PROBE_INTERVAL_MS; its first answer brings them back, with one log line.
//
// Guess counters (sign-in, two-step codes, current passwords) fail closed instead (`reserve`): an
// attempt is counted by the shared counters before its secret is checked, or not made at all
// (CountersUnavailable, after 10 x REDIS_WAIT_MS). Memory standing in for Redis would let every
// process, and every stretch of a slow Redis, grant the budget afresh, and its counts vanish when
// Redis answers.
import cluster from "node:cluster";
import type { Redis } from "ioredis";
import {
  type RateLimiterAbstract,
  RateLimiterCluster,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  RLWrapperTimeouts,
} from "rate-limiter-flexible";

/** The longest a request waits for Redis before memory counts it (CONTRACT 10); REDIS_WAIT_MS. */
export const DEFAULT_SHARED_WAIT_MS = 100;
/** While the shared counters are unreachable, how often they are tried again. */
const PROBE_INTERVAL_MS = 1_000;
/** The primary process answers over local IPC; a busy machine may delay it more than Redis. */
const CLUSTER_WAIT_MS = 500;

export interface Budget {
  /** Policy name in the RateLimit-Policy / RateLimit fields, and part of the counter's key. */
  policy: string;
  max: number;
  windowMs?: number;
}

export interface Count {
  /** Requests counted in the current window, this one included when it was counted. */
  count: number;
  /** Milliseconds until the window ends. */
  ttlMs: number;
}

export type SharedState = "none" | "up" | "unreachable";

/** The shared counters did not count a reservation (no answer within the wait, or an error). */
export class CountersUnavailable extends Error {
  constructor(reason: string) {
    super(`rate-limit counters unavailable: ${reason}`);
    this.name = "CountersUnavailable";
  }
}

export interface RateLimitStore {
  /** Counts one request against `budget` under `key`. Never fails: memory counts when shared counters cannot. */
  hit(budget: Budget, windowMs: number, key: string): Promise<Count>;
  /**
   * Counts one attempt under `key` in one atomic step, on the shared counters when there are any
   * (never memory in their place): rejects with CountersUnavailable when they do not count it
   * within the wait. The count it answers includes this attempt, so of N parallel reservations
   * exactly those numbered up to the budget are within it.
   */
  reserve(budget: Budget, windowMs: number, key: string): Promise<Count>;
  /** Gives one reserved attempt back (a success, or a reservation refused); best effort. */
  refund(budget: Budget, windowMs: number, key: string): Promise<void>;
  /** The current count without counting (0 when none). */
  peek(budget: Budget, windowMs: number, key: string): Promise<Count>;
  /** Forgets the key's count (a successful sign-in clears its failures). */
  forget(budget: Budget, windowMs: number, key: string): Promise<void>;
  /** "none" without shared counters; "unreachable" while memory stands in for them. */
  sharedState(): SharedState;
  /** Why the limits are degraded (for /ready), while the shared counters are unreachable. */
  degradation(): string | undefined;
  /** Resolves once the shared counters answer (tests wait for it; the service does not need to). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

interface Log {
  warn(obj: unknown, msg: string): void;
  info(obj: unknown, msg: string): void;
}

interface Limiters {
  /** Counts while the shared counters answer (insured by `memory`); undefined without them. */
  shared: RateLimiterAbstract | undefined;
  /** The shared counters alone, uninsured (reservations); undefined without them. */
  strict: RateLimiterAbstract | undefined;
  memory: RateLimiterMemory;
}

/**
 * Opens the counters' store: Redis when a URL is given, the cluster's primary in a forked API
 * process, else memory. ioredis is loaded only with a URL (docs/decisions/0016).
 */
export async function openRateLimitStore(
  redisUrl: string | undefined,
  prefix: string,
  log: Log,
  waitMs = DEFAULT_SHARED_WAIT_MS,
): Promise<RateLimitStore> {
  const redis = redisUrl ? connectRedis((await import("ioredis")).Redis, redisUrl, waitMs) : undefined;
  const viaPrimary = !redis && cluster.isWorker;
  const kind = redis ? "Redis" : viaPrimary ? "the primary process" : undefined;
  let state: SharedState = kind ? "up" : "none";
  let probe: NodeJS.Timeout | undefined;
  let closed = false;

  const unreachable = (reason: string) => {
    if (state !== "up" || closed) return;
    state = "unreachable";
    log.warn({ reason }, `${kind} unreachable: rate limits count in this process until it is back`);
    scheduleProbe();
  };
  const back = () => {
    if (state !== "unreachable") return;
    state = "up";
    clearTimeout(probe);
    log.info({}, `${kind} back: rate limits are shared again`);
  };
  const scheduleProbe = () => {
    clearTimeout(probe);
    if (closed || !redis) return; // the primary cannot be pinged: its limiter is retried per request
    probe = setTimeout(() => {
      withTimeout(redis.ping(), waitMs).then(back, scheduleProbe);
    }, PROBE_INTERVAL_MS);
    probe.unref();
  };
  if (redis) {
    // A connection that drops or is refused is noticed at once; one that freezes, on its first timeout.
    redis.on("error", (err: Error) => unreachable(err.message));
    redis.on("close", () => unreachable("connection closed"));
    redis.on("ready", back);
  }

  const limiters = new Map<string, Limiters>();
  const limitersFor = (budget: Budget, windowMs: number): Limiters => {
    const id = `${budget.policy}|${budget.max}|${windowMs}`;
    let found = limiters.get(id);
    if (found) return found;
    const options = {
      keyPrefix: `${prefix}rl:${budget.policy}`,
      points: budget.max,
      duration: windowMs / 1000,
    };
    const memory = new RateLimiterMemory(options);
    // Memory counts what the shared counters could not: the insurance marks them unreachable.
    const insurance = insured(memory, () =>
      unreachable(`no answer within ${redis ? waitMs : CLUSTER_WAIT_MS} ms`),
    );
    let shared: RateLimiterAbstract | undefined;
    let strict: RateLimiterAbstract | undefined;
    if (redis) {
      strict = new RateLimiterRedis({ ...options, storeClient: redis, rejectIfRedisNotReady: true });
      shared = new RLWrapperTimeouts({
        limiter: strict,
        timeoutMs: waitMs,
        insuranceLimiter: insurance,
      }) as unknown as RateLimiterAbstract;
    } else if (viaPrimary) {
      strict = new RateLimiterCluster({ ...options, timeoutMs: CLUSTER_WAIT_MS * 2 });
      shared = new RLWrapperTimeouts({
        limiter: strict,
        timeoutMs: CLUSTER_WAIT_MS,
        insuranceLimiter: insurance,
      }) as unknown as RateLimiterAbstract;
    }
    found = { shared, strict, memory };
    limiters.set(id, found);
    return found;
  };
  const limiterOf = (budget: Budget, windowMs: number): RateLimiterAbstract => {
    const { shared, memory } = limitersFor(budget, windowMs);
    return shared && state === "up" ? shared : memory;
  };
  // A reservation may wait longer than a request's count: it is refused, not let through, when
  // no answer comes, and it precedes a slow password hash anyway. The bound is the one each
  // Redis command has (commandTimeout), and the cluster limiter's own.
  const strictWaitMs = redis ? waitMs * 10 : CLUSTER_WAIT_MS * 2;
  /** The counter that reserves: the shared one, tried even while marked unreachable, else memory. */
  const strictOf = (budget: Budget, windowMs: number): { limiter: RateLimiterAbstract; bounded: boolean } => {
    const { strict, memory } = limitersFor(budget, windowMs);
    return strict ? { limiter: strict, bounded: true } : { limiter: memory, bounded: false };
  };

  return {
    async hit(budget, windowMs, key) {
      let res: RateLimiterRes;
      try {
        res = await limiterOf(budget, windowMs).consume(key);
      } catch (err) {
        // A spent budget rejects with its result; anything else was already insured.
        if (!(err instanceof RateLimiterRes)) throw err;
        res = err;
      }
      return toCount(res, windowMs);
    },
    async reserve(budget, windowMs, key) {
      const { limiter, bounded } = strictOf(budget, windowMs);
      let res: RateLimiterRes;
      try {
        const counting = limiter.consume(key);
        res = await (bounded ? withTimeout(counting, strictWaitMs) : counting);
      } catch (err) {
        if (err instanceof RateLimiterRes) {
          res = err;
        } else {
          // A late answer may still count this attempt: the budget errs against the guesser.
          const reason = err instanceof Error ? err.message : String(err);
          if (bounded) unreachable(reason);
          throw new CountersUnavailable(reason);
        }
      }
      return toCount(res, windowMs);
    },
    async refund(budget, windowMs, key) {
      const { limiter, bounded } = strictOf(budget, windowMs);
      const giving = limiter.reward(key, 1);
      // Not given back, the attempt stays counted: the error errs against the guesser.
      await (bounded ? withTimeout(giving, strictWaitMs) : giving).catch(() => {});
    },
    async peek(budget, windowMs, key) {
      const res = await limiterOf(budget, windowMs).get(key);
      return res ? toCount(res, windowMs) : { count: 0, ttlMs: windowMs };
    },
    async forget(budget, windowMs, key) {
      await limiterOf(budget, windowMs).delete(key);
    },
    sharedState: () => state,
    degradation: () =>
      state === "unreachable" ? `${kind} does not answer: rate limits are counted per process` : undefined,
    async ready() {
      if (!redis || redis.status === "ready") return;
      await new Promise<void>((resolve, reject) => {
        redis.once("ready", () => resolve());
        redis.once("end", () => reject(new Error("redis connection ended")));
      });
    },
    async close() {
      closed = true;
      clearTimeout(probe);
      if (redis) await redis.quit().catch(() => redis.disconnect());
    },
  };
}

function connectRedis(RedisClient: typeof Redis, url: string, waitMs: number): Redis {
  const redis = new RedisClient(url, {
    // While Redis is unreachable a command fails at once instead of queueing behind the outage.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    // A frozen Redis (the connection open, nothing answering) still ends each command: later
    // than the request's own bound, so that the command does not pile up for the whole freeze.
    commandTimeout: waitMs * 10,
    keepAlive: 10_000,
    lazyConnect: true,
  });
  redis.connect().catch(() => {});
  return redis;
}

/** `memory`, calling `onUse` whenever it stands in for the shared counters. */
function insured(memory: RateLimiterMemory, onUse: () => void): RateLimiterMemory {
  return new Proxy(memory, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        onUse();
        return value.apply(target, args);
      };
    },
  });
}

function toCount(res: RateLimiterRes, windowMs: number): Count {
  return { count: res.consumedPoints, ttlMs: res.msBeforeNext >= 0 ? res.msBeforeNext : windowMs };
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
