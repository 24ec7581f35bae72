// Recording a delivery attempt: the attempt row, the delivery's new state and, when the outcome
// calls for it, the webhook's state (410 Gone, sustained failure), written only by the claim that
// owns the delivery. Never held open across a POST.
import { and, eq, gt, isNull, lt, or, type SQL, sql } from "drizzle-orm";
import type { Db, Executor } from "../db/client.ts";
import { queryRows } from "../db/query-rows.ts";
import { webhookAttempts, webhookDeliveries, webhooks } from "../db/schema/index.ts";
import { newId } from "../lib/ids.ts";
import { enqueueMail } from "../mail/enqueue.ts";
import { mailCte, notifyMailWhenAny } from "../mail/outbox.repository.ts";
import type { WebhookHealthMailData } from "../mail/templates/webhook-health.ts";
import type { DeliveryOutcome } from "./attempt-outcome.ts";
import { type AutoDisableRule, autoDisableReason, quietSince } from "./auto-disable.ts";
import { failureText, marksFailing } from "./endpoint-health-mail.ts";

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
  return changesWebhook(record) || record.health === "failing" || marksFailing(record);
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
      if (recorded.recorded && marksFailing(record)) await markFailing(tx, record);
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
    let disabled: string | undefined;
    if (record.disableReason) {
      if (await disableWebhook(tx, record, record.disableReason)) disabled = record.disableReason;
    } else if (record.outcome.status === "FAILED" && !record.skipped) {
      disabled = await maybeAutoDisable(tx, record, autoDisable);
    }
    // The owners are told (endpoint-health-mail.ts): disabled, else perhaps starting to fail.
    if (disabled !== undefined) await mailDisabled(tx, record, disabled);
    else if (marksFailing(record)) await markFailing(tx, record);
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
        ), lk as (
          select id, vendor_id, failing_notified_at as notified from webhooks
          where ${!pending}::boolean and id = ${record.webhookId} and vendor_id = ${record.vendorId}
            and exists (select 1 from d)
            and (consecutive_failures > 0 or last_success_at is null
              or last_success_at < ${at}::timestamptz - interval '1 minute'
              or failing_notified_at is not null)
          for no key update
        ), w as (
          update webhooks set
            last_success_at = case when last_success_at is null
              or last_success_at < ${at}::timestamptz - interval '1 minute' then ${at}::timestamptz
              else last_success_at end,
            consecutive_failures = 0, failing_since = null, circuit_open_until = null,
            failing_notified_at = null
          from lk where webhooks.id = lk.id and webhooks.vendor_id = lk.vendor_id
          returning webhooks.id, webhooks.vendor_id, webhooks.url, lk.notified, ${at}::timestamptz as at
        ), ${mailCte(recoveredMailRows("w"))}, f as (
          update webhooks set consecutive_failures = consecutive_failures + 1,
            failing_since = coalesce(failing_since, ${at}::timestamptz)
          where ${failing}::boolean and id = ${record.webhookId} and vendor_id = ${record.vendorId}
            and exists (select 1 from d)
          returning consecutive_failures, failing_since
        )
        select d.id, f.consecutive_failures as failures, f.failing_since as since, ${notifyMailWhenAny}
        from d left join f on true`,
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

/**
 * Rule 2 of endpoint-health-mail.ts, for a statement that records successes: a "recovered" mail
 * (a `mailCte` source) for each row of the CTE `from` (id, vendor_id, url, notified, at: webhooks
 * whose success this statement wrote, `notified` their failing_notified_at before it cleared it,
 * read under their row lock) that had been mailed as failing; none for a sandbox.
 */
export function recoveredMailRows(from: string): SQL {
  const w = sql.raw(from);
  return sql`select 'm' || substr(replace(gen_random_uuid()::text, '-', ''), 1, 24) as id,
           v.id as vendor_id, null::text as customer_id, null::text as inquiry_id,
           'webhook_recovered'::text as kind, coalesce(v.notification_email, v.email) as to_address,
           jsonb_build_object('shopName', v.name, 'webhookId', ${w}.id, 'url', ${w}.url,
             'language', 'en', 'timeZone', v.time_zone) as data,
           null::text as secret, null::text as unsubscribe_token_hash, ${w}.at as created_at
         from ${w} join vendors v on v.id = ${w}.vendor_id
         where ${w}.notified is not null and v.sandbox_of is null`;
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

/** Disables an ACTIVE webhook; whether this record did (it happens once). */
async function disableWebhook(tx: Executor, record: AttemptRecord, reason: string): Promise<boolean> {
  const rows = await tx
    .update(webhooks)
    .set({ status: "DISABLED", disabledReason: reason, updatedAt: record.at })
    .where(and(ownWebhook(record), eq(webhooks.status, "ACTIVE")))
    .returning({ id: webhooks.id });
  return rows.length > 0;
}

/**
 * Rule 1 of endpoint-health-mail.ts: marks the ACTIVE endpoint failing and mails its shop, unless
 * it is marked already. Under the webhook's row lock (recordAttempt took it): one mail a spell.
 */
async function markFailing(tx: Executor, record: AttemptRecord): Promise<void> {
  const [row] = await tx
    .update(webhooks)
    .set({ failingNotifiedAt: record.at })
    .where(and(ownWebhook(record), isNull(webhooks.failingNotifiedAt), eq(webhooks.status, "ACTIVE")))
    .returning({ failingSince: webhooks.failingSince });
  if (!row) return;
  // The streak's start (5xx, timeouts); for refusals (4xx), which the breaker does not count, the
  // delivery's first attempt.
  let since = row.failingSince;
  if (!since) {
    const [first] = await tx
      .select({ at: sql<string>`min(${webhookAttempts.createdAt})` })
      .from(webhookAttempts)
      .where(eq(webhookAttempts.deliveryId, record.deliveryId));
    since = first?.at ? new Date(first.at) : record.at;
  }
  await mailShop(tx, record, "webhook_failing", { since: since.toISOString(), error: failureText(record) });
}

/** Rule 3: the service disabled the endpoint; its shop is told, and a later spell starts afresh. */
async function mailDisabled(tx: Executor, record: AttemptRecord, reason: string): Promise<void> {
  await tx.update(webhooks).set({ failingNotifiedAt: null }).where(ownWebhook(record));
  await mailShop(tx, record, "webhook_disabled", { reason });
}

/** A mail about the record's endpoint to its shop's notification e-mail; none for a sandbox. */
async function mailShop(
  tx: Executor,
  record: AttemptRecord,
  kind: "webhook_failing" | "webhook_disabled",
  extra: Partial<WebhookHealthMailData>,
): Promise<void> {
  const [shop] = await queryRows<{
    name: string;
    to: string;
    timeZone: string;
    sandboxOf: string | null;
    url: string;
  }>(
    tx,
    sql`select v.name as "name", coalesce(v.notification_email, v.email) as "to", v.time_zone as "timeZone",
               v.sandbox_of as "sandboxOf", w.url as "url"
        from webhooks w join vendors v on v.id = w.vendor_id
        where w.id = ${record.webhookId} and w.vendor_id = ${record.vendorId}`,
  );
  if (!shop || shop.sandboxOf !== null) return;
  await enqueueMail(tx, {
    kind,
    to: shop.to,
    data: {
      shopName: shop.name,
      webhookId: record.webhookId,
      url: shop.url,
      // The shop has no language of its own yet: its mail is English (src/i18n falls back to it).
      language: "en",
      timeZone: shop.timeZone,
      ...extra,
    },
    vendorId: record.vendorId,
    createdAt: record.at,
  });
}

/**
 * Reads the facts auto-disable.ts decides on, and disables the webhook when they call for it;
 * the reason when this record disabled it.
 */
async function maybeAutoDisable(
  tx: Executor,
  record: AttemptRecord,
  rule: AutoDisableRule,
): Promise<string | undefined> {
  const at = record.at;
  const [hook] = await tx
    .select({ createdAt: webhooks.createdAt, lastSuccessAt: webhooks.lastSuccessAt, status: webhooks.status })
    .from(webhooks)
    .where(ownWebhook(record));
  if (hook?.status !== "ACTIVE") return undefined;
  // Without a quiet period long enough no count is needed.
  if (!autoDisableReason({ ...hook, at, exhaustedSince: rule.exhausted, rule })) return undefined;
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
  if (reason && (await disableWebhook(tx, record, reason))) return reason;
  return undefined;
}
