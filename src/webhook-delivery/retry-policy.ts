// When a failed delivery is tried again (CONTRACT 7; the default schedule, about three days, is
// DEFAULT_WEBHOOK_RETRY_DELAYS_MS in config.ts): up to `delays.length` retries, each after
// its configured delay plus up to 10% jitter (so a receiver that was down is not hit by every
// delivery at the same instant). A Retry-After (RFC 9110 10.2.3) longer than the scheduled delay
// is honoured up to the next delay of the schedule, so a receiver can ask for a pause but never
// stall a delivery beyond the schedule's own horizon.

export const JITTER = 0.1;

/**
 * Milliseconds to wait before the next attempt after `attemptsMade` failed attempts, or
 * undefined when the attempts are exhausted.
 */
export function nextRetryDelay(
  delays: readonly number[],
  attemptsMade: number,
  retryAfterMs?: number | undefined,
  random: () => number = Math.random,
): number | undefined {
  const base = delays[attemptsMade - 1];
  if (base === undefined) return undefined;
  let wait = base;
  if (retryAfterMs !== undefined && retryAfterMs > base) {
    const cap = delays[attemptsMade] ?? base;
    wait = Math.min(retryAfterMs, Math.max(cap, base));
  }
  return Math.round(wait * (1 + JITTER * random()));
}

/** Retry-After as delay-seconds or an HTTP-date (RFC 9110 10.2.3); undefined when absent or bad. */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now.getTime());
}

/**
 * When each attempt of a delivery is due, in milliseconds after its first, without jitter: the
 * schedule the docs and the dashboard show (attempt n of `delays.length + 1`).
 */
export function retrySchedule(delays: readonly number[]): number[] {
  const at = [0];
  for (const delay of delays) at.push((at.at(-1) as number) + delay);
  return at;
}
