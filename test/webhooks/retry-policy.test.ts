import { describe, expect, it } from "vitest";
import { DEFAULT_WEBHOOK_RETRY_DELAYS_MS, loadConfig } from "../../src/config.ts";
import { nextRetryDelay, parseRetryAfter, retrySchedule } from "../../src/webhook-delivery/retry-policy.ts";

const delays = [60_000, 1_800_000, 21_600_000];

describe("nextRetryDelay", () => {
  it("follows the configured delays, then stops after 3 retries (4 attempts)", () => {
    expect([1, 2, 3, 4].map((n) => nextRetryDelay(delays, n, undefined, () => 0))).toEqual([
      60_000,
      1_800_000,
      21_600_000,
      undefined,
    ]);
  });

  it("adds at most 10% jitter", () => {
    expect(nextRetryDelay(delays, 1, undefined, () => 0.999)).toBeLessThanOrEqual(66_000);
    expect(nextRetryDelay(delays, 1, undefined, () => 0.5)).toBe(63_000);
  });

  it("honours a longer Retry-After up to the next delay of the schedule, and ignores a shorter one", () => {
    expect(nextRetryDelay(delays, 1, 120_000, () => 0)).toBe(120_000);
    expect(nextRetryDelay(delays, 1, 99_999_999, () => 0)).toBe(1_800_000);
    expect(nextRetryDelay(delays, 1, 1_000, () => 0)).toBe(60_000);
    expect(nextRetryDelay(delays, 3, 99_999_999, () => 0)).toBe(21_600_000);
  });
});

describe("the default schedule (CONTRACT 12: about three days, as Stripe's)", () => {
  const HOUR = 3_600_000;
  it("is what an unconfigured service uses", () => {
    expect(loadConfig({ NODE_ENV: "test" }).webhookRetryDelaysMs).toEqual(DEFAULT_WEBHOOK_RETRY_DELAYS_MS);
  });

  it("backs off: each delay at least the one before, the first a minute", () => {
    const d = DEFAULT_WEBHOOK_RETRY_DELAYS_MS;
    expect(d[0]).toBe(60_000);
    for (let i = 1; i < d.length; i++) expect(d[i]).toBeGreaterThanOrEqual(d[i - 1] as number);
  });

  it("makes its last attempt about three days after the first, 10 attempts in all", () => {
    const at = retrySchedule(DEFAULT_WEBHOOK_RETRY_DELAYS_MS);
    expect(at).toHaveLength(10);
    const last = at.at(-1) as number;
    expect(last).toBeGreaterThan(66 * HOUR);
    expect(last).toBeLessThan(78 * HOUR);
    // With the most jitter every delay can take, still within about three days and a half.
    const jittered = DEFAULT_WEBHOOK_RETRY_DELAYS_MS.reduce(
      (sum, _d, i) =>
        sum + (nextRetryDelay(DEFAULT_WEBHOOK_RETRY_DELAYS_MS, i + 1, undefined, () => 0.999999) ?? 0),
      0,
    );
    expect(jittered).toBeGreaterThan(last);
    expect(jittered).toBeLessThan(84 * HOUR);
    // After the last delay there is no further retry.
    expect(nextRetryDelay(DEFAULT_WEBHOOK_RETRY_DELAYS_MS, 10, undefined, () => 0)).toBeUndefined();
  });

  it("retrySchedule adds the delays up, from 0 for the first attempt", () => {
    expect(retrySchedule([60_000, 1_800_000])).toEqual([0, 60_000, 1_860_000]);
    expect(retrySchedule([])).toEqual([0]);
  });
});

describe("parseRetryAfter", () => {
  const now = new Date("2026-11-22T10:00:00.000Z");
  it("reads delay-seconds and HTTP-dates (RFC 9110 10.2.3), and ignores nonsense", () => {
    expect(parseRetryAfter("120", now)).toBe(120_000);
    expect(parseRetryAfter("Sun, 22 Nov 2026 10:01:00 GMT", now)).toBe(60_000);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
