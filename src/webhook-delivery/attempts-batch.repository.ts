// Recording many attempts in one statement: the fast path of attempts.repository.ts (a success,
// or a retry after an answer that says nothing about the endpoint's health) for a whole batch,
// so a busy dispatcher commits once per batch instead of once per attempt. Each delivery is
// written only if its claim token still owns it: a stale claim in the batch writes nothing, and
// its attempt row is not inserted, while the fresh ones beside it are recorded. A success on an
// endpoint whose shop was told it is failing writes the "recovered" mail in the same statement
// (endpoint-health-mail.ts).
import { sql } from "drizzle-orm";
import type { Executor } from "../db/client.ts";
import { preparedStatement } from "../db/prepared.ts";
import { newId } from "../lib/ids.ts";
import { mailCte, notifyMailWhenAny } from "../mail/outbox.repository.ts";
import { notifyWhenAny } from "../outbox/outbox-write.repository.ts";
import { type AttemptRecord, needsTransaction, recoveredMailRows } from "./attempts.repository.ts";

/**
 * Records the batch and returns the ids of the deliveries it wrote (those whose claim still
 * owned them). Every record must be one `needsTransaction` refuses: failures that touch the
 * circuit breaker or the webhook's status keep their own transaction.
 *
 * The webhook rows a success touches (last_success_at at most once a minute, the end of a
 * failure streak) are locked in id order, so two batches naming the same endpoints never wait
 * on each other in opposite orders; the deliveries of two batches are disjoint (claim tokens).
 */
export async function recordAttemptBatch(
  db: Executor,
  records: readonly AttemptRecord[],
): Promise<Set<string>> {
  if (records.length === 0) return new Set();
  const rows = records.map((r) => {
    if (needsTransaction(r)) throw new Error("recordAttemptBatch: this record needs its own transaction");
    return {
      id: r.deliveryId,
      token: r.claimToken,
      vendor: r.vendorId,
      webhook: r.webhookId,
      attempt: r.attempt,
      status: r.outcome.status,
      next: r.outcome.status === "PENDING" ? r.outcome.nextAttemptAt.toISOString() : null,
      code: r.statusCode ?? null,
      err: r.error ?? null,
      body: r.responseBody ?? null,
      dur: r.durationMs,
      at: r.at.toISOString(),
      aid: newId(),
    };
  });
  const written = await batchStatement(db, { rows: JSON.stringify(rows) });
  return new Set(written.map((w) => w.id));
}

const batchStatement = preparedStatement<{ id: string }, "rows">(
  "webhook_record_batch",
  (p) => sql`with r as (
          select * from json_to_recordset(${p.rows}::json) as r(
            id text, token text, vendor text, webhook text, attempt int, status text,
            next timestamptz, code int, err text, body text, dur int, at timestamptz, aid text)
        ), d as (
          update webhook_deliveries wd set
            status = r.status,
            attempt_count = r.attempt,
            next_attempt_at = r.next,
            claim_token = null,
            leased_by = null,
            last_status_code = r.code,
            last_error = r.err,
            completed_at = case when r.status = 'PENDING' then null else r.at end,
            updated_at = r.at
          from r
          -- The ids as an array too: a prepared statement's generic plan cannot see how few rows
          -- r holds and would scan the whole table for the join; = any() reads the primary key.
          where wd.id = any(array(select r.id from r))
            and wd.id = r.id and wd.claim_token = r.token and wd.vendor_id = r.vendor
          returning wd.id
        ), a as (
          insert into webhook_attempts (id, delivery_id, attempt, status_code, duration_ms, error, response_body, created_at)
          select r.aid, r.id, r.attempt, r.code, r.dur, r.err, r.body, r.at from r join d on d.id = r.id
        ), ok as (
          select r.webhook, r.vendor, max(r.at) as at from r join d on d.id = r.id
          where r.status = 'SUCCEEDED'
          group by r.webhook, r.vendor
        ), lk as (
          select w.id, w.vendor_id, ok.at, w.failing_notified_at as notified from webhooks w
          join ok on ok.webhook = w.id and ok.vendor = w.vendor_id
          where w.consecutive_failures > 0 or w.last_success_at is null
            or w.last_success_at < ok.at - interval '1 minute'
            or w.failing_notified_at is not null
          order by w.id
          for no key update of w
        ), w as (
          update webhooks set
            last_success_at = case when webhooks.last_success_at is null
              or webhooks.last_success_at < lk.at - interval '1 minute' then lk.at
              else webhooks.last_success_at end,
            consecutive_failures = 0, failing_since = null, circuit_open_until = null,
            failing_notified_at = null
          from lk
          where webhooks.id = lk.id and webhooks.vendor_id = lk.vendor_id
          returning webhooks.id, webhooks.vendor_id, webhooks.url, lk.notified, lk.at
        ), ${mailCte(recoveredMailRows("w"))}, waited as (
          -- A slot of an endpoint another dispatcher waits for (claim.repository.ts, contended) is
          -- free now: the dispatchers are woken, so the waiting one claims it at once rather than
          -- at its next poll (docs/decisions/0008).
          select 1 from webhooks wh
          where wh.id = any(array(select distinct r.webhook from r join d on d.id = r.id))
            and wh.claim_waiting_until > now()
        )
        select d.id, ${notifyWhenAny("waited")}, ${notifyMailWhenAny} from d`,
);
