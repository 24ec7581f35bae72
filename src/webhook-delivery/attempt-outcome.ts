// What an attempt's answer means for its delivery (CONTRACT 7), decided without I/O so every rule
// is a row in a table test: a 2xx succeeds; 410 Gone fails the delivery and disables the webhook
// at once; anything else (another status, a connection error, a timeout) is retried on the
// schedule of retry-policy.ts until the attempts are exhausted, then fails.
import type { AttemptResult } from "./deliver.ts";
import { nextRetryDelay, parseRetryAfter } from "./retry-policy.ts";

export type DeliveryOutcome = { status: "PENDING"; nextAttemptAt: Date } | { status: "SUCCEEDED" | "FAILED" };

export interface AttemptDecision {
  outcome: DeliveryOutcome;
  /** Set when the answer disables the webhook at once. */
  disableReason?: string | undefined;
}

export const GONE_REASON = "The receiver answered 410 Gone";

export function decideOutcome(input: {
  result: Pick<AttemptResult, "ok" | "statusCode" | "retryAfter">;
  /** This attempt's number, 1 for the first. */
  attempt: number;
  retryDelaysMs: readonly number[];
  at: Date;
  random?: () => number;
}): AttemptDecision {
  const { result, attempt, at } = input;
  if (result.ok) return { outcome: { status: "SUCCEEDED" } };
  // 410 Gone: the receiver says the endpoint is gone for good (RFC 9110 15.5.11).
  if (result.statusCode === 410) return { outcome: { status: "FAILED" }, disableReason: GONE_REASON };
  const delay = nextRetryDelay(
    input.retryDelaysMs,
    attempt,
    parseRetryAfter(result.retryAfter, at),
    input.random,
  );
  return delay === undefined
    ? { outcome: { status: "FAILED" } }
    : { outcome: { status: "PENDING", nextAttemptAt: new Date(at.getTime() + delay) } };
}
