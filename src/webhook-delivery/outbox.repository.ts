// The dispatcher's queries. Each function is one short transaction or statement: nothing here is
// ever held open across a POST (STACK-NOTES: PGlite serializes every caller on one thread).
import { asc, inArray, isNull, lt, type Placeholder, sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { preparedStatement } from "../db/prepared.ts";
import { events, webhookDeliveries, webhooks } from "../db/schema/index.ts";
import { newId } from "../lib/ids.ts";

/**
 * Turns up to `limit` undispatched events into one PENDING delivery per ACTIVE endpoint of the
 * event's vendor that subscribes to it, and marks them dispatched, in one transaction: a crash
 * before commit leaves the events undispatched, to be fanned out again. SKIP LOCKED lets several
 * dispatchers fan out different events side by side. Returns how many events it took.
 */
export async function fanOutEvents(db: Db, now: Date, limit: number): Promise<number> {
  return db.transaction(async (tx) => {
    const batch = await tx
      .select({ id: events.id, vendorId: events.vendorId, type: events.type, target: events.targetWebhookId })
      .from(events)
      .where(isNull(events.dispatchedAt))
      .orderBy(asc(events.createdAt))
      .limit(limit)
      .for("update", { skipLocked: true });
    if (batch.length === 0) return 0;
    const vendorIds = [...new Set(batch.map((e) => e.vendorId))];
    const endpoints = await tx
      .select({
        id: webhooks.id,
        vendorId: webhooks.vendorId,
        events: webhooks.events,
        status: webhooks.status,
      })
      .from(webhooks)
      .where(inArray(webhooks.vendorId, vendorIds));
    const rows: (typeof webhookDeliveries.$inferInsert)[] = [];
    for (const event of batch) {
      for (const endpoint of endpoints) {
        if (endpoint.vendorId !== event.vendorId) continue;
        const wanted = event.target
          ? endpoint.id === event.target
          : endpoint.status === "ACTIVE" && endpoint.events.includes(event.type);
        if (!wanted) continue;
        rows.push({
          id: newId(),
          webhookId: endpoint.id,
          vendorId: event.vendorId,
          eventId: event.id,
          eventType: event.type,
          status: "PENDING",
          nextAttemptAt: now,
          createdAt: now,
          updatedAt: now,
        });
      }
    }
    if (rows.length > 0) await tx.insert(webhookDeliveries).values(rows);
    await tx
      .update(events)
      .set({ dispatchedAt: now })
      .where(
        inArray(
          events.id,
          batch.map((e) => e.id),
        ),
      );
    return batch.length;
  });
}

export interface ClaimedDelivery {
  id: string;
  claimToken: string;
  attemptCount: number;
  eventId: string;
  eventType: string;
  data: Record<string, unknown>;
  webhookId: string;
  url: string;
  webhookStatus: string;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  /** For the commit→delivery latency metric and the attempt's log line. */
  eventCreatedAt: Date;
  vendorId: string;
}

export interface ClaimResult {
  claims: ClaimedDelivery[];
  /** The earliest future due time of a PENDING delivery (a retry, or a lease that ends). */
  nextDueAt: Date | undefined;
  /**
   * Whether deliveries due now were left unclaimed (caps, the limit, an endpoint another claim
   * held): a finished attempt may free a slot for them, so it should wake the dispatcher.
   */
  heldBack: boolean;
}

export interface ClaimPolicy {
  /** The most deliveries to claim (the dispatcher's free capacity). */
  limit: number;
  /** Attempts one endpoint may have in flight while its circuit is closed. */
  endpointConcurrency: number;
  /** Consecutive failures after which a closed-again circuit allows one probe at a time. */
  breakerFailures: number;
  /**
   * Deliveries this dispatcher claimed whose POST has succeeded and whose attempt is not recorded
   * yet. They keep their lease (no one else may take them) but are no longer in flight to their
   * endpoint, so they do not count against its cap: a slot is reused as soon as its POST ends,
   * not a record's commit later. (A failure is not listed: its record may open the circuit.)
   */
  sent?: readonly string[];
}

/**
 * One statement per dispatcher turn: finds the endpoints with deliveries due, works out their
 * slots as `endpointSlots` (circuit-breaker.ts) does, deals the capacity as `shareClaims`
 * (fair-claims.ts) does, and claims. The rules, step by step:
 * - the endpoints with deliveries due are found by a skip scan of the PENDING index (one probe
 *   per endpoint with pending deliveries, whatever the backlog's size);
 * - each endpoint's webhook row is locked SKIP LOCKED (one claim per endpoint at a time, across
 *   dispatchers), and under that lock its slots are worked out as `endpointSlots` does (none
 *   while the circuit is open, one probe when half-open, else the concurrency cap) less the
 *   attempts in flight (leased by any dispatcher, less this one's `sent`);
 * - each endpoint's oldest due deliveries up to its free slots are locked SKIP LOCKED, and the
 *   capacity is dealt as `shareClaims` deals it: round by round (each endpoint's first, then
 *   second, ...), in a random order of endpoints within a round;
 * - the picked deliveries are leased (due time past the lease, a fresh claim token).
 */
export async function claimDue(
  db: Db,
  now: Date,
  leaseMs: number,
  policy: ClaimPolicy,
): Promise<ClaimResult> {
  if (policy.limit <= 0) return { claims: [], nextDueAt: undefined, heldBack: true };
  const token = newId();
  const rows = await claimStatement(db, {
    at: now.toISOString(),
    leaseEnd: new Date(now.getTime() + leaseMs).toISOString(),
    token,
    limit: policy.limit,
    cap: policy.endpointConcurrency,
    failures: policy.breakerFailures,
    sent: JSON.stringify(policy.sent ?? []),
  });
  const nextDue = rows[0]?.nextDue;
  const claims = rows
    .filter((r) => r.id !== null)
    .map(({ nextDue: _, heldBack: __, ...r }) => ({
      ...r,
      id: r.id as string,
      data: typeof r.data === "string" ? JSON.parse(r.data) : r.data,
      previousSecretExpiresAt:
        r.previousSecretExpiresAt === null ? null : new Date(r.previousSecretExpiresAt),
      eventCreatedAt: new Date(r.eventCreatedAt),
      claimToken: token,
    }));
  return { claims, nextDueAt: nextDue ? new Date(nextDue) : undefined, heldBack: rows[0]?.heldBack ?? true };
}

// The endpoints with PENDING deliveries, found by a skip scan of webhook_deliveries_endpoint_due_idx:
// one probe per endpoint, whatever the backlog's size. A recursive CTE named `pending`.
const pendingEndpoints = sql`pending(webhook_id) as (
      (select webhook_id from webhook_deliveries where status = 'PENDING' order by webhook_id limit 1)
      union all
      select (select d.webhook_id from webhook_deliveries d
              where d.status = 'PENDING' and d.webhook_id > p.webhook_id
              order by d.webhook_id limit 1)
      from pending p where p.webhook_id is not null
    )`;

/** The earliest due time after `at` (a retry, or a lease that ends), read per pending endpoint. */
const earliestFutureDue = (at: Placeholder) => sql`select min(f.at) as at from pending p cross join lateral (
        select d.next_attempt_at as at from webhook_deliveries d
        where d.webhook_id = p.webhook_id and d.status = 'PENDING'
          and d.next_attempt_at > ${at}::timestamptz
        order by d.webhook_id, d.next_attempt_at limit 1
      ) f`;

// Every index read below names the endpoint and orders by (webhook_id, next_attempt_at), so each
// is a short range of webhook_deliveries_endpoint_due_idx, never a scan of the whole backlog.
// There is deliberately no index on next_attempt_at alone: the planner took one for these reads
// (webhook_id as a filter), and each then walked every other endpoint's due or leased rows
// (test/webhooks/claim-plan.test.ts).
export const claimStatement = preparedStatement<
  Omit<ClaimedDelivery, "claimToken" | "id"> & {
    id: string | null;
    nextDue: string | Date | null;
    heldBack: boolean;
  },
  "at" | "leaseEnd" | "token" | "limit" | "cap" | "failures" | "sent"
>(
  "webhook_claim_due",
  (p) => sql`with recursive ${pendingEndpoints}, due as (
      select p.webhook_id from pending p
      cross join lateral (
        select 1 from webhook_deliveries d
        where d.webhook_id = p.webhook_id and d.status = 'PENDING'
          and d.next_attempt_at <= ${p.at}::timestamptz
        order by d.webhook_id, d.next_attempt_at limit 1
      ) one
    ), locked as (
      select w.id, w.consecutive_failures, w.circuit_open_until, random() as k
      from due join webhooks w on w.id = due.webhook_id
      for no key update of w skip locked
    ), free as (
      select l.id, l.k,
        (case when l.circuit_open_until > ${p.at}::timestamptz then 0
              when l.consecutive_failures >= ${p.failures}::int then 1
              else ${p.cap}::int end)
        - (select count(*) from (
             select 1 from webhook_deliveries b
             where b.webhook_id = l.id and b.status = 'PENDING'
               and b.next_attempt_at > ${p.at}::timestamptz and b.claim_token is not null
               and b.id <> all (select jsonb_array_elements_text(${p.sent}::jsonb))
             order by b.webhook_id, b.next_attempt_at limit ${p.cap}::int) f) as n
      from locked l
    ), candidates as (
      select x.id, x.next_attempt_at, f.id as webhook_id, f.k from free f cross join lateral (
        select d.id, d.next_attempt_at from webhook_deliveries d
        where d.webhook_id = f.id and d.status = 'PENDING'
          and d.next_attempt_at <= ${p.at}::timestamptz
        order by d.webhook_id, d.next_attempt_at
        limit greatest(0, least(f.n, ${p.limit}::int))
        for update skip locked
      ) x
    ), picked as (
      select c.id from (
        select id, k, row_number() over (partition by webhook_id order by next_attempt_at) as round
        from candidates
      ) c
      order by c.round, c.k
      limit ${p.limit}::int
    ), claimed as (
      update webhook_deliveries d
      set next_attempt_at = ${p.leaseEnd}::timestamptz, claim_token = ${p.token}::text
      from picked, webhooks w, events e
      -- The ids as an array too, so even a generic plan reads them by primary key.
      where d.id = any(array(select id from picked))
        and d.id = picked.id and w.id = d.webhook_id and e.id = d.event_id
      returning d.id, d.attempt_count as "attemptCount", d.event_id as "eventId",
        d.event_type as "eventType", e.data, w.id as "webhookId", w.url, w.status as "webhookStatus",
        w.secret, w.previous_secret as "previousSecret",
        w.previous_secret_expires_at as "previousSecretExpiresAt",
        e.created_at as "eventCreatedAt", w.vendor_id as "vendorId"
    )
    -- The earliest future due time too (what nextDueAt reads), so an idle dispatcher knows how
    -- long to sleep without another round trip: one row even when nothing was claimed.
    -- And whether anything due was left: an endpoint another claim held (SKIP LOCKED), one at
    -- its cap or with more due than its free slots, or more candidates than the limit.
    select c.*, n.at as "nextDue",
      (select count(*) from due) > (select count(*) from locked)
      or (select count(*) from candidates) > (select count(*) from picked)
      or exists (select 1 from free f
                 where f.n <= (select count(*) from candidates x where x.webhook_id = f.id)) as "heldBack"
    from (
      ${earliestFutureDue(p.at)}
    ) n
    -- Committed without waiting for the WAL to reach disk: a claim that a crash of PostgreSQL
    -- loses only makes its deliveries due again, to be sent again (at-least-once, CONTRACT 7),
    -- while other dispatchers see it at once either way. Attempt records still wait.
    cross join (select set_config('synchronous_commit', 'off', true)) async
    left join claimed c on true`,
);

/**
 * The earliest future due time of a PENDING delivery (a retry, or a lease that ends), so an idle
 * dispatcher sleeps exactly until then. Deliveries already due but held back (their endpoint at
 * its cap or its circuit open) are not counted: a finished attempt or the poll wakes for those.
 */
export async function nextDueAt(db: Db, now: Date): Promise<Date | undefined> {
  const [row] = await nextDueStatement(db, { at: now.toISOString() });
  return row?.at ? new Date(row.at) : undefined;
}

// Per endpoint, as claimDue reads it.
const nextDueStatement = preparedStatement<{ at: string | Date | null }, "at">(
  "webhook_next_due",
  (p) => sql`with recursive ${pendingEndpoints}
    ${earliestFutureDue(p.at)}`,
);

/** Retention: events (and, by cascade, their deliveries and attempts) older than `before`. */
export async function pruneOlderThan(db: Db, before: Date): Promise<number> {
  const deleted = await db.delete(events).where(lt(events.createdAt, before)).returning({ id: events.id });
  return deleted.length;
}
