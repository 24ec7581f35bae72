import { describe, expect, it } from "vitest";
import { nextRetryDelay, parseRetryAfter } from "../../src/webhook-delivery/retry-policy.ts";

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

describe("parseRetryAfter", () => {
  const now = new Date("2026-11-22T10:00:00.000Z");
  it("reads delay-seconds and HTTP-dates (RFC 9110 10.2.3), and ignores nonsense", () => {
    expect(parseRetryAfter("120", now)).toBe(120_000);
    expect(parseRetryAfter("Sun, 22 Nov 2026 10:01:00 GMT", now)).toBe(60_000);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
