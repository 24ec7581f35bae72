// The circuit breaker per endpoint (CONTRACT 7: an endpoint that keeps timing out is backed off).
// Decided without I/O; the state lives on the webhook row so every dispatcher agrees.
//
// - closed: up to `endpointConcurrency` attempts in flight.
// - After `failures` consecutive failures that say the receiver is unwell (a timeout, a
//   connection error, a 5xx or a 429), the circuit opens: no attempt is sent until
//   `circuit_open_until`. The wait is as long as the outage so far, at least `cooldownMs` and at
//   most MAX_OPEN_MS, so each failed probe roughly doubles it.
// - half-open: once the wait is over, one attempt at a time (the probe). A success closes the
//   circuit; a failure opens it again, for longer.
// Queued deliveries wait while the circuit is open: they lose no attempt to it.
import type { AttemptResult } from "./deliver.ts";

export const MAX_OPEN_MS = 3_600_000;

export interface BreakerPolicy {
  /** Consecutive failures that open the circuit. */
  failures: number;
  /** The shortest open period. */
  cooldownMs: number;
}

/** Whether an answer counts against the endpoint's health (a 4xx other than 429 is an answer). */
export function isEndpointFailure(result: Pick<AttemptResult, "ok" | "statusCode">): boolean {
  if (result.ok) return false;
  const code = result.statusCode;
  return code === undefined || code >= 500 || code === 429;
}

/** When a run of failures opens the circuit, until when; undefined while it stays closed. */
export function openUntil(input: {
  consecutiveFailures: number;
  failingSince: Date;
  at: Date;
  policy: BreakerPolicy;
}): Date | undefined {
  const { consecutiveFailures, failingSince, at, policy } = input;
  if (consecutiveFailures < policy.failures) return undefined;
  const outage = at.getTime() - failingSince.getTime();
  const wait = Math.min(MAX_OPEN_MS, Math.max(policy.cooldownMs, outage));
  return new Date(at.getTime() + wait);
}

/**
 * Attempts one endpoint may have in flight: none while open, one probe when half-open. The claim
 * statement (claim.repository.ts claimDue) applies the same rule in SQL, under the webhook
 * row's lock; a property test (test/webhooks/batch-recorder.test.ts) holds it to this function.
 */
export function endpointSlots(input: {
  consecutiveFailures: number;
  circuitOpenUntil: Date | null;
  now: Date;
  policy: BreakerPolicy;
  endpointConcurrency: number;
}): number {
  if (input.circuitOpenUntil && input.circuitOpenUntil > input.now) return 0;
  if (input.consecutiveFailures >= input.policy.failures) return 1;
  return input.endpointConcurrency;
}
