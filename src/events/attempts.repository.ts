// Recording a delivery attempt: the attempt row, the delivery's new state and, when the outcome
// calls for it, the webhook's state (410 Gone, sustained failure), written only by the claim that
// owns the delivery. Never held open across a POST.
import { and, eq, gt, sql } from "drizzle-orm";
import type { Db, Executor } from "../db/client.ts";
import { queryRows } from "../db/client.ts";
import { webhookAttempts, webhookDeliveries, webhooks } from "../db/schema/index.ts";
import { newId } from "../lib/ids.ts";

export interface AttemptRecord {
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
  outcome: { status: "PENDING"; nextAttemptAt: Date } | { status: "SUCCEEDED" | "FAILED" };
  /** Set when the answer disables the webhook at once (410 Gone). */
  disableReason?: string | undefined;
  /** Whether this attempt was skipped (endpoint disabled): no attempt row is written. */
  skipped?: boolean;
}

/**
 * Records an attempt and the delivery's new state in one transaction. Only the claim that owns
 * the delivery may record it; a stale claim (its lease ended) writes nothing.
 */
export async function recordAttempt(db: Db, record: AttemptRecord, autoDisable: AutoDisableRule) {
  const needsWebhookChange =
    record.skipped || record.disableReason !== undefined || record.outcome.status === "FAILED";
  if (!needsWebhookChange) return recordAttemptFast(db, record);
  return db.transaction(async (tx) => {
    const final = record.outcome.status !== "PENDING";
    const updated = await tx
      .update(webhookDeliveries)
      .set({
        status: record.outcome.status,
        attemptCount: record.skipped ? webhookDeliveries.attemptCount : record.attempt,
        nextAttemptAt: record.outcome.status === "PENDING" ? record.outcome.nextAttemptAt : null,
        claimToken: null,
        lastStatusCode: record.statusCode ?? null,
        lastError: record.error ?? null,
        completedAt: final ? record.at : null,
        updatedAt: record.at,
      })
      .where(
        and(eq(webhookDeliveries.id, record.deliveryId), eq(webhookDeliveries.claimToken, record.claimToken)),
      )
      .returning({ id: webhookDeliveries.id });
    if (updated.length === 0) return false;
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
      await disableWebhook(tx, record.webhookId, record.disableReason, record.at);
    } else if (record.outcome.status === "FAILED" && !record.skipped) {
      await maybeAutoDisable(tx, record.webhookId, record.at, autoDisable);
    }
    return true;
  });
}

/**
 * The common case (a success, or a failure to retry) as one statement: one round trip and one
 * commit per attempt, which is what bounds delivery throughput. Data-modifying CTEs all run, and
 * the attempt row and last_success_at are written only if the claim still owns the delivery.
 * last_success_at moves at most once a minute, so concurrent successes do not queue on the
 * webhook's row lock (the 5-day auto-disable rule needs no finer grain).
 */
async function recordAttemptFast(db: Db, record: AttemptRecord): Promise<boolean> {
  const at = record.at.toISOString();
  const pending = record.outcome.status === "PENDING";
  const next = record.outcome.status === "PENDING" ? record.outcome.nextAttemptAt.toISOString() : null;
  const rows = await queryRows<{ id: string }>(
    db,
    sql`with d as (
          update webhook_deliveries set
            status = ${record.outcome.status},
            attempt_count = ${record.attempt},
            next_attempt_at = ${next}::timestamptz,
            claim_token = null,
            last_status_code = ${record.statusCode ?? null}::int,
            last_error = ${record.error ?? null},
            completed_at = ${pending ? null : at}::timestamptz,
            updated_at = ${at}::timestamptz
          where id = ${record.deliveryId} and claim_token = ${record.claimToken}
          returning id
        ), a as (
          insert into webhook_attempts (id, delivery_id, attempt, status_code, duration_ms, error, response_body, created_at)
          select ${newId()}, d.id, ${record.attempt}, ${record.statusCode ?? null}::int, ${record.durationMs},
                 ${record.error ?? null}, ${record.responseBody ?? null}, ${at}::timestamptz
          from d
        ), w as (
          update webhooks set last_success_at = ${at}::timestamptz
          where ${!pending}::boolean and id = ${record.webhookId} and exists (select 1 from d)
            and (last_success_at is null or last_success_at < ${at}::timestamptz - interval '1 minute')
        )
        select id from d`,
  );
  return rows.length > 0;
}

export interface AutoDisableRule {
  /** No success for this long … */
  quietMs: number;
  /** … and at least this many exhausted deliveries since the last success. */
  exhausted: number;
}

async function disableWebhook(tx: Executor, webhookId: string, reason: string, at: Date) {
  await tx
    .update(webhooks)
    .set({ status: "DISABLED", disabledReason: reason, updatedAt: at })
    .where(and(eq(webhooks.id, webhookId), eq(webhooks.status, "ACTIVE")));
}

/** CONTRACT 7: no successful delivery for 5 days and at least 10 exhausted deliveries. */
async function maybeAutoDisable(tx: Executor, webhookId: string, at: Date, rule: AutoDisableRule) {
  const [hook] = await tx
    .select({ createdAt: webhooks.createdAt, lastSuccessAt: webhooks.lastSuccessAt, status: webhooks.status })
    .from(webhooks)
    .where(eq(webhooks.id, webhookId));
  if (hook?.status !== "ACTIVE") return;
  const since = hook.lastSuccessAt ?? hook.createdAt;
  if (at.getTime() - since.getTime() < rule.quietMs) return;
  const [row] = await tx
    .select({ n: sql<number>`count(*)::int` })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.webhookId, webhookId),
        eq(webhookDeliveries.status, "FAILED"),
        gt(webhookDeliveries.completedAt, since),
      ),
    );
  if ((row?.n ?? 0) >= rule.exhausted) {
    const days = Math.round(rule.quietMs / 86_400_000);
    await disableWebhook(
      tx,
      webhookId,
      `No successful delivery for ${days} days and ${row?.n} failed deliveries`,
      at,
    );
  }
}
