// The delivery decisions as tables: what an answer means for its delivery, when sustained failure
// disables a webhook, and the exact request a delivery sends.
import { describe, expect, it } from "vitest";
import { decideOutcome, GONE_REASON } from "../../src/webhook-delivery/attempt-outcome.ts";
import { autoDisableReason, DEFAULT_AUTO_DISABLE } from "../../src/webhook-delivery/auto-disable.ts";
import {
  endpointSlots,
  isEndpointFailure,
  MAX_OPEN_MS,
  openUntil,
} from "../../src/webhook-delivery/circuit-breaker.ts";
import { buildDeliveryRequest } from "../../src/webhook-delivery/delivery-request.ts";
import { shareClaims } from "../../src/webhook-delivery/fair-claims.ts";
import { hexSignature, standardSignature } from "../../src/webhook-delivery/signing.ts";

const at = new Date("2026-11-22T10:00:00.000Z");
const delays = [1_000, 2_000, 3_000];
const later = (ms: number) => ({ status: "PENDING", nextAttemptAt: new Date(at.getTime() + ms) });

describe("decideOutcome", () => {
  const rows: Array<
    [string, { ok: boolean; statusCode?: number; retryAfter?: string }, number, unknown, string?]
  > = [
    ["a 2xx succeeds", { ok: true, statusCode: 204 }, 1, { status: "SUCCEEDED" }],
    ["a 2xx on the last attempt succeeds", { ok: true, statusCode: 200 }, 4, { status: "SUCCEEDED" }],
    ["410 fails at once and disables", { ok: false, statusCode: 410 }, 1, { status: "FAILED" }, GONE_REASON],
    ["a 500 is retried after the first delay", { ok: false, statusCode: 500 }, 1, later(1_000)],
    ["a 3xx is retried (redirects are not followed)", { ok: false, statusCode: 302 }, 2, later(2_000)],
    ["a timeout is retried", { ok: false }, 3, later(3_000)],
    ["the 4th failed attempt is final", { ok: false, statusCode: 500 }, 4, { status: "FAILED" }],
    [
      "Retry-After is honoured up to the next delay",
      { ok: false, statusCode: 429, retryAfter: "60" },
      1,
      later(2_000),
    ],
  ];
  it.each(rows)("%s", (_name, result, attempt, outcome, disableReason) => {
    const decision = decideOutcome({
      result: { statusCode: undefined, retryAfter: undefined, ...result },
      attempt,
      retryDelaysMs: delays,
      at,
      random: () => 0,
    });
    expect(decision.outcome).toEqual(outcome);
    expect(decision.disableReason).toBe(disableReason);
  });
});

describe("autoDisableReason", () => {
  const day = 86_400_000;
  const created = new Date(at.getTime() - 30 * day);
  const rows: Array<
    [string, { status?: string; lastSuccessAt: Date | null; exhaustedSince: number }, boolean]
  > = [
    [
      "never succeeded, registered 30 days ago, 10 exhausted: disabled",
      { lastSuccessAt: null, exhaustedSince: 10 },
      true,
    ],
    ["9 exhausted is not enough", { lastSuccessAt: null, exhaustedSince: 9 }, false],
    [
      "a success 4 days ago keeps it",
      { lastSuccessAt: new Date(at.getTime() - 4 * day), exhaustedSince: 50 },
      false,
    ],
    [
      "a success 6 days ago and 10 exhausted: disabled",
      { lastSuccessAt: new Date(at.getTime() - 6 * day), exhaustedSince: 10 },
      true,
    ],
    [
      "already DISABLED: nothing to do",
      { status: "DISABLED", lastSuccessAt: null, exhaustedSince: 99 },
      false,
    ],
  ];
  it.each(rows)("%s", (_name, facts, disabled) => {
    const reason = autoDisableReason({
      status: "ACTIVE",
      createdAt: created,
      at,
      rule: DEFAULT_AUTO_DISABLE,
      ...facts,
    });
    expect(reason !== undefined).toBe(disabled);
    if (reason)
      expect(reason).toBe(`No successful delivery for 5 days and ${facts.exhaustedSince} failed deliveries`);
  });

  it("a webhook registered 2 days ago is not disabled however many deliveries failed", () => {
    const createdAt = new Date(at.getTime() - 2 * day);
    const facts = { status: "ACTIVE", createdAt, lastSuccessAt: null, at, exhaustedSince: 100 };
    expect(autoDisableReason({ ...facts, rule: DEFAULT_AUTO_DISABLE })).toBeUndefined();
  });
});

describe("buildDeliveryRequest", () => {
  const delivery = {
    deliveryId: "dlv_1",
    eventId: "evt_1",
    eventType: "order.created",
    data: { id: "ord_1" },
    secret: "whsk_new",
    previousSecret: "whsk_old",
    previousSecretExpiresAt: new Date(at.getTime() + 1_000),
  };

  it("sends { id, event, data, timestamp } with the event and delivery ids and both signature schemes", () => {
    const { headers, body } = buildDeliveryRequest({ ...delivery, previousSecret: null }, at);
    expect(JSON.parse(body)).toEqual({
      id: "evt_1",
      event: "order.created",
      data: { id: "ord_1" },
      timestamp: at.toISOString(),
    });
    const ts = String(Math.floor(at.getTime() / 1000));
    expect(headers).toEqual({
      "x-service-signature": hexSignature("whsk_new", body),
      "x-service-event": "order.created",
      "x-service-delivery": "dlv_1",
      "webhook-id": "evt_1",
      "webhook-timestamp": ts,
      "webhook-signature": standardSignature("whsk_new", "evt_1", Number(ts), body),
    });
  });

  it("during a rotation overlap signs with the old secret too; after it, with the new one only", () => {
    const during = buildDeliveryRequest(delivery, at);
    expect(during.headers["x-service-signature"]).toBe(hexSignature("whsk_old", during.body));
    expect(during.headers["webhook-signature"]?.split(" ")).toHaveLength(2);
    const after = buildDeliveryRequest(delivery, new Date(at.getTime() + 2_000));
    expect(after.headers["x-service-signature"]).toBe(hexSignature("whsk_new", after.body));
    expect(after.headers["webhook-signature"]?.split(" ")).toHaveLength(1);
  });
});

describe("circuit breaker", () => {
  const policy = { failures: 5, cooldownMs: 10_000 };
  it.each([
    ["a 2xx", { ok: true, statusCode: 200 }, false],
    ["a timeout or connection error", { ok: false, statusCode: undefined }, true],
    ["a 503", { ok: false, statusCode: 503 }, true],
    ["a 429", { ok: false, statusCode: 429 }, true],
    ["a 400 (the receiver answers: it is not unwell)", { ok: false, statusCode: 400 }, false],
    ["a 410", { ok: false, statusCode: 410 }, false],
  ])("%s counts against the endpoint: %s", (_name, result, counts) => {
    expect(isEndpointFailure(result)).toBe(counts);
  });

  const since = (ms: number) => new Date(at.getTime() - ms);
  it.each([
    ["4 failures: still closed", 4, since(0), undefined],
    ["5 failures in a quick burst: open for the cooldown", 5, since(500), 10_000],
    ["failing for 40 s: open for 40 s (each failed probe about doubles the wait)", 6, since(40_000), 40_000],
    ["failing for 3 days: open for at most an hour", 50, since(3 * 86_400_000), MAX_OPEN_MS],
  ])("%s", (_name, consecutiveFailures, failingSince, waitMs) => {
    const until = openUntil({ consecutiveFailures, failingSince, at, policy });
    expect(until === undefined ? undefined : until.getTime() - at.getTime()).toBe(waitMs);
  });

  it.each([
    ["closed: the endpoint's concurrency", 0, null, 16],
    ["open: nothing", 7, new Date(at.getTime() + 1), 0],
    ["half-open (the wait is over): one probe", 7, new Date(at.getTime() - 1), 1],
    ["a streak below the threshold: still closed", 4, null, 16],
  ] as const)("slots when %s", (_name, consecutiveFailures, circuitOpenUntil, slots) => {
    expect(
      endpointSlots({ consecutiveFailures, circuitOpenUntil, now: at, policy, endpointConcurrency: 16 }),
    ).toBe(slots);
  });
});

describe("shareClaims", () => {
  const sum = (q: { n: number }[]) => q.reduce((s, x) => s + x.n, 0);
  it("deals free capacity round-robin: a backlog of 1,000 gets no more than its share", () => {
    const quotas = shareClaims(
      [
        { webhookId: "big", free: 16 },
        { webhookId: "small", free: 16 },
        { webhookId: "tiny", free: 1 },
      ],
      9,
    );
    expect(Object.fromEntries(quotas.map((q) => [q.webhookId, q.n]))).toEqual({ big: 4, small: 4, tiny: 1 });
  });
  it("never exceeds an endpoint's free slots nor the limit, and skips endpoints with none", () => {
    const quotas = shareClaims(
      [
        { webhookId: "a", free: 2 },
        { webhookId: "b", free: 0 },
        { webhookId: "c", free: -3 },
      ],
      32,
    );
    expect(quotas).toEqual([{ webhookId: "a", n: 2 }]);
    expect(sum(shareClaims([{ webhookId: "a", free: 100 }], 32))).toBe(32);
  });
  it("when capacity runs out mid-round, which endpoint goes first is random", () => {
    const endpoints = [
      { webhookId: "a", free: 5 },
      { webhookId: "b", free: 5 },
    ];
    expect(shareClaims(endpoints, 1, () => 0)).not.toEqual(shareClaims(endpoints, 1, () => 0.99));
  });
});
