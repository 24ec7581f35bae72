// Recording a delivery attempt: the attempt row, the delivery's new state and, when the outcome
// calls for it, the webhook's state (410 Gone, sustained failure), written only by the claim that
// owns the delivery. Never held open across a POST.
import { and, eq, gt, isNull, lt, or, sql } from "drizzle-orm";
import type { Db, Executor } from "../db/client.ts";
import { queryRows } from "../db/client.ts";
import { webhookAttempts, webhookDeliveries, webhooks } from "../db/schema/index.ts";
import { newId } from "../lib/ids.ts";
import type { DeliveryOutcome } from "./attempt-outcome.ts";
import { type AutoDisableRule, autoDisableReason, quietSince } from "./auto-disable.ts";

export interface AttemptRecord {
  /** The vendor whose delivery and webhook these are: every write below states it (STYLE 3). */
  vendorId: string;
  deliveryId: string;
  claimToken: string;
  webhookId: string;
  attempt: number;
  at: Date;
  statusCode: number | undefined;
  durationMs: number;
  error: string | undefined;
  responseBody: string | undefined;
  /** PENDING with the next due time, or a final SUCCEEDED / FAILED. */
  outcome: DeliveryOutcome;
  /** Set when the answer disables the webhook at once (410 Gone). */
  disableReason?: string | undefined;
  /** Whether this attempt was skipped (endpoint disabled): no attempt row is written. */
  skipped?: boolean;
  /**
   * What the attempt says about the endpoint, for the circuit breaker: `ok` ends a failure
   * streak, `failing` extends it, `neutral` (a 4xx answer, a skip) leaves it.
   */
  health?: "ok" | "failing" | "neutral";
}

/** The endpoint's failure streak after a `failing` attempt, for the circuit breaker to judge. */
export interface FailureStreak {
  consecutiveFailures: number;
  failingSince: Date;
}

export interface Recorded {
  /** False when the claim no longer owned the delivery (its lease ended): nothing was written. */
  recorded: boolean;
  streak?: FailureStreak | undefined;
}

const changesWebhook = (record: AttemptRecord) =>
  record.skipped === true || record.disableReason !== undefined || record.outcome.status === "FAILED";

/**
 * Whether recording the attempt takes a transaction with the webhook's row lock: a skip, a final
 * failure (410, auto-disable) or a failure that extends the breaker's streak. The rest (a
 * success, a retry after a neutral answer) is one statement, and may be batched
 * (attempts-batch.repository.ts).
 */
export function needsTransaction(record: AttemptRecord): boolean {
  return changesWebhook(record) || record.health === "failing";
}

/**
 * Records an attempt and the delivery's new state in one transaction. Only the claim that owns
 * the delivery may record it; a stale claim (its lease ended) writes nothing.
 */
export async function recordAttempt(
  db: Db,
  record: AttemptRecord,
  autoDisable: AutoDisableRule,
  /** The breaker's verdict on a failure streak: until when the circuit opens, if it does. */
  circuitOpenUntil: (streak: FailureStreak) => Date | undefined = () => undefined,
): Promise<Recorded> {
  const needsWebhookChange = changesWebhook(record);
  // A success, or a retry after an answer that says nothing about the endpoint's health, is one
  // statement. After a failure the streak and the circuit it may open commit together, so no
  // claim in between sees a streak long enough to probe with the circuit not yet open.
  if (!needsTransaction(record)) return recordAttemptFast(db, record);
  return db.transaction(async (tx) => {
    // The webhook row first, as DELETE's cascade takes it (webhook, then its deliveries), so the
    // two never wait on each other in opposite orders (a deadlock).
    await tx.execute(
      sql`select 1 from webhooks where id = ${record.webhookId} and vendor_id = ${record.vendorId} for no key update`,
    );
    if (!needsWebhookChange) {
      const recorded = await recordAttemptFast(tx, record);
      await openCircuitIfDue(tx, record, recorded.streak, circuitOpenUntil);
      return recorded;
    }
    const final = record.outcome.status !== "PENDING";
    const updated = await tx
      .update(webhookDeliveries)
      .set({
        status: record.outcome.status,
        attemptCount: record.skipped ? webhookDeliveries.attemptCount : record.attempt,
        nextAttemptAt: record.outcome.status === "PENDING" ? record.outcome.nextAttemptAt : null,
        claimToken: null,
        leasedBy: null,
        lastStatusCode: record.statusCode ?? null,
        lastError: record.error ?? null,
        completedAt: final ? record.at : null,
        updatedAt: record.at,
      })
      .where(
        and(
          eq(webhookDeliveries.vendorId, record.vendorId),
          eq(webhookDeliveries.id, record.deliveryId),
          eq(webhookDeliveries.claimToken, record.claimToken),
        ),
      )
      .returning({ id: webhookDeliveries.id });
    if (updated.length === 0) return { recorded: false };
    if (!record.skipped) {
      await tx.insert(webhookAttempts).values({
        id: newId(),
        deliveryId: record.deliveryId,
        attempt: record.attempt,
        statusCode: record.statusCode ?? null,
        durationMs: record.durationMs,
        error: record.error ?? null,
        responseBody: record.responseBody ?? null,
        createdAt: record.at,
      });
    }
    if (record.disableReason) {
      await disableWebhook(tx, record, record.disableReason);
    } else if (record.outcome.status === "FAILED" && !record.skipped) {
      await maybeAutoDisable(tx, record, autoDisable);
    }
    const streak = await recordEndpointHealth(tx, record);
    await openCircuitIfDue(tx, record, streak, circuitOpenUntil);
    return { recorded: true, streak };
  });
}

/**
 * The common case (a success, or a failure to retry) as one statement: one round trip and one
 * commit per attempt, which is what bounds delivery throughput. Data-modifying CTEs all run, and
 * the attempt row and last_success_at are written only if the claim still owns the delivery.
 * last_success_at moves at most once a minute, so concurrent successes do not queue on the
 * webhook's row lock (the 5-day auto-disable rule needs no finer grain); a success touches the
 * breaker's columns only when a failure streak is running. A failure extends the streak and
 * returns it, for the caller to decide whether the circuit opens.
 */
async function recordAttemptFast(db: Executor, record: AttemptRecord): Promise<Recorded> {
  const at = record.at.toISOString();
  const pending = record.outcome.status === "PENDING";
  const failing = record.health === "failing";
  const next = record.outcome.status === "PENDING" ? record.outcome.nextAttemptAt.toISOString() : null;
  const rows = await queryRows<{ id: string; failures: number | null; since: string | Date | null }>(
    db,
    sql`with d as (
          update webhook_deliveries set
            status = ${record.outcome.status},
            attempt_count = ${record.attempt},
            next_attempt_at = ${next}::timestamptz,
            claim_token = null,
            leased_by = null,
            last_status_code = ${record.statusCode ?? null}::int,
            last_error = ${record.error ?? null},
            completed_at = ${pending ? null : at}::timestamptz,
            updated_at = ${at}::timestamptz
          where id = ${record.deliveryId} and claim_token = ${record.claimToken}
            and vendor_id = ${record.vendorId}
          returning id
        ), a as (
          insert into webhook_attempts (id, delivery_id, attempt, status_code, duration_ms, error, response_body, created_at)
          select ${newId()}, d.id, ${record.attempt}, ${record.statusCode ?? null}::int, ${record.durationMs},
                 ${record.error ?? null}, ${record.responseBody ?? null}, ${at}::timestamptz
          from d
        ), w as (
          update webhooks set
            last_success_at = case when last_success_at is null
              or last_success_at < ${at}::timestamptz - interval '1 minute' then ${at}::timestamptz
              else last_success_at end,
            consecutive_failures = 0, failing_since = null, circuit_open_until = null
          where ${!pending}::boolean and id = ${record.webhookId} and vendor_id = ${record.vendorId}
            and exists (select 1 from d)
            and (consecutive_failures > 0 or last_success_at is null
              or last_success_at < ${at}::timestamptz - interval '1 minute')
        ), f as (
          update webhooks set consecutive_failures = consecutive_failures + 1,
            failing_since = coalesce(failing_since, ${at}::timestamptz)
          where ${failing}::boolean and id = ${record.webhookId} and vendor_id = ${record.vendorId}
            and exists (select 1 from d)
          returning consecutive_failures, failing_since
        )
        select d.id, f.consecutive_failures as failures, f.failing_since as since from d left join f on true`,
  );
  const [row] = rows;
  if (!row) return { recorded: false };
  return {
    recorded: true,
    streak:
      row.failures === null || row.since === null
        ? undefined
        : { consecutiveFailures: Number(row.failures), failingSince: new Date(row.since) },
  };
}

/** The breaker's bookkeeping on the webhook row, inside the transaction of a final outcome. */
async function recordEndpointHealth(tx: Executor, record: AttemptRecord): Promise<FailureStreak | undefined> {
  if (record.health === "ok") {
    await tx
      .update(webhooks)
      .set({ consecutiveFailures: 0, failingSince: null, circuitOpenUntil: null })
      .where(and(ownWebhook(record), gt(webhooks.consecutiveFailures, 0)));
    return undefined;
  }
  if (record.health !== "failing") return undefined;
  const [row] = await tx
    .update(webhooks)
    .set({
      consecutiveFailures: sql`${webhooks.consecutiveFailures} + 1`,
      failingSince: sql`coalesce(${webhooks.failingSince}, ${record.at.toISOString()}::timestamptz)`,
    })
    .where(ownWebhook(record))
    .returning({ consecutiveFailures: webhooks.consecutiveFailures, failingSince: webhooks.failingSince });
  return row?.failingSince
    ? { consecutiveFailures: row.consecutiveFailures, failingSince: row.failingSince }
    : undefined;
}

/** The record's webhook, named with its vendor. */
const ownWebhook = (record: AttemptRecord) =>
  and(eq(webhooks.vendorId, record.vendorId), eq(webhooks.id, record.webhookId));

/** Opens the endpoint's circuit when the breaker says so (never shortening an open period). */
async function openCircuitIfDue(
  tx: Executor,
  record: AttemptRecord,
  streak: FailureStreak | undefined,
  decide: (streak: FailureStreak) => Date | undefined,
): Promise<void> {
  const until = streak && decide(streak);
  if (!until) return;
  await tx
    .update(webhooks)
    .set({ circuitOpenUntil: until })
    .where(
      and(
        ownWebhook(record),
        gt(webhooks.consecutiveFailures, 0),
        or(isNull(webhooks.circuitOpenUntil), lt(webhooks.circuitOpenUntil, until)),
      ),
    );
}

async function disableWebhook(tx: Executor, record: AttemptRecord, reason: string) {
  await tx
    .update(webhooks)
    .set({ status: "DISABLED", disabledReason: reason, updatedAt: record.at })
    .where(and(ownWebhook(record), eq(webhooks.status, "ACTIVE")));
}

/** Reads the facts auto-disable.ts decides on, and disables the webhook when they call for it. */
async function maybeAutoDisable(tx: Executor, record: AttemptRecord, rule: AutoDisableRule) {
  const at = record.at;
  const [hook] = await tx
    .select({ createdAt: webhooks.createdAt, lastSuccessAt: webhooks.lastSuccessAt, status: webhooks.status })
    .from(webhooks)
    .where(ownWebhook(record));
  if (hook?.status !== "ACTIVE") return;
  // Without a quiet period long enough no count is needed.
  if (!autoDisableReason({ ...hook, at, exhaustedSince: rule.exhausted, rule })) return;
  const [row] = await tx
    .select({ n: sql<number>`count(*)::int` })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.vendorId, record.vendorId),
        eq(webhookDeliveries.webhookId, record.webhookId),
        eq(webhookDeliveries.status, "FAILED"),
        gt(webhookDeliveries.completedAt, quietSince(hook)),
      ),
    );
  const reason = autoDisableReason({ ...hook, at, exhaustedSince: row?.n ?? 0, rule });
  if (reason) await disableWebhook(tx, record, reason);
}
