import type { Db } from "../db/client.ts";
import { decideOutcome } from "./attempt-outcome.ts";
import { type AttemptRecord, needsTransaction, recordAttempt } from "./attempts.repository.ts";
import type { AutoDisableRule } from "./auto-disable.ts";
import type { BatchRecorder } from "./batch-recorder.ts";
import { type BreakerPolicy, isEndpointFailure, openUntil } from "./circuit-breaker.ts";
import type { ClaimedDelivery } from "./claim.repository.ts";
import type { Deliverer } from "./deliver.ts";
import { buildDeliveryRequest } from "./delivery-request.ts";

export interface AttemptDeps {
  db: Db;
  deliverer: Deliverer;
  retryDelaysMs: readonly number[];
  autoDisable: AutoDisableRule;
  breaker: BreakerPolicy;
  now: () => Date;
  /** Where successes and neutral retries are recorded in batches; without it, one by one. */
  recorder?: BatchRecorder | undefined;
  /** Told every attempt's outcome once it is recorded (metrics and the attempt's log line). */
  report?: (claim: ClaimedDelivery, report: AttemptReport) => void;
  /**
   * Told when a POST has succeeded, before the attempt is recorded: its endpoint slot is free. A
   * failure keeps the slot until its record commits, since that record may open the circuit.
   */
  sent?: (claim: ClaimedDelivery) => void;
}

export interface AttemptReport {
  outcome: "succeeded" | "retrying" | "failed" | "skipped";
  attempt: number;
  at: Date;
  statusCode?: number | undefined;
  durationMs: number;
  error?: string | undefined;
  nextAttemptAt?: Date | undefined;
}

/** Only `webhook.test` reaches an endpoint that is not ACTIVE (the dashboard's "send test"). */
export function isSendable(claim: Pick<ClaimedDelivery, "webhookStatus" | "eventType">): boolean {
  return claim.webhookStatus === "ACTIVE" || claim.eventType === "webhook.test";
}

/** Runs one attempt and records it; returns what was reported. */
export async function runAttempt(deps: AttemptDeps, claim: ClaimedDelivery): Promise<AttemptReport> {
  const { db, now } = deps;
  const attempt = claim.attemptCount + 1;
  const base = {
    vendorId: claim.vendorId,
    deliveryId: claim.id,
    claimToken: claim.claimToken,
    webhookId: claim.webhookId,
    attempt,
  };
  if (!isSendable(claim)) {
    // DISABLED endpoints get nothing; what was queued for them is closed unsent.
    await recordAttempt(
      db,
      {
        ...base,
        at: now(),
        statusCode: undefined,
        durationMs: 0,
        error: "webhook disabled",
        responseBody: undefined,
        outcome: { status: "FAILED" },
        skipped: true,
      },
      deps.autoDisable,
    );
    const skipped: AttemptReport = {
      outcome: "skipped",
      attempt,
      at: now(),
      durationMs: 0,
      error: "webhook disabled",
    };
    deps.report?.(claim, skipped);
    return skipped;
  }
  const request = buildDeliveryRequest({ ...claim, deliveryId: claim.id }, now());
  const result = await deps.deliverer.post(claim.url, request.headers, request.body);
  if (result.ok) deps.sent?.(claim);
  const at = now();
  const decision = decideOutcome({ result, attempt, retryDelaysMs: deps.retryDelaysMs, at });
  const health = result.ok ? "ok" : isEndpointFailure(result) ? "failing" : "neutral";
  const record: AttemptRecord = {
    ...base,
    at,
    statusCode: result.statusCode,
    durationMs: result.durationMs,
    error: result.error,
    responseBody: result.responseBody,
    ...decision,
    health,
  };
  if (deps.recorder && !needsTransaction(record)) await deps.recorder.record(record);
  else {
    await recordAttempt(db, record, deps.autoDisable, (streak) =>
      openUntil({ ...streak, at, policy: deps.breaker }),
    );
  }
  const { outcome } = decision;
  const report: AttemptReport = {
    outcome:
      outcome.status === "SUCCEEDED" ? "succeeded" : outcome.status === "PENDING" ? "retrying" : "failed",
    attempt,
    at,
    statusCode: result.statusCode,
    durationMs: result.durationMs,
    error: result.error,
    nextAttemptAt: outcome.status === "PENDING" ? outcome.nextAttemptAt : undefined,
  };
  deps.report?.(claim, report);
  return report;
}
