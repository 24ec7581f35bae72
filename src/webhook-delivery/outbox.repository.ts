// The dispatcher's queries. Each function is one short transaction or statement: nothing here is
// ever held open across a POST (STACK-NOTES: PGlite serializes every caller on one thread).
import { asc, inArray, isNull, lt, sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { queryRows } from "../db/client.ts";
import { events, webhookDeliveries, webhooks } from "../db/schema/index.ts";
import { newId } from "../lib/ids.ts";
import type { Quota } from "./fair-claims.ts";

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

export interface EndpointState {
  webhookId: string;
  consecutiveFailures: number;
  circuitOpenUntil: Date | null;
  /** Attempts leased (by any dispatcher) whose lease has not ended. */
  inFlight: number;
}

/**
 * The endpoints with deliveries due now, with what fair claiming needs to know about each: its
 * breaker state and how many of its attempts are in flight across all dispatchers.
 */
export async function endpointsWithDueDeliveries(db: Db, now: Date): Promise<EndpointState[]> {
  const at = now.toISOString();
  const rows = await queryRows<{
    id: string;
    failures: number;
    open_until: string | Date | null;
    in_flight: number;
  }>(
    db,
    sql`select w.id, w.consecutive_failures as failures, w.circuit_open_until as open_until,
          (select count(*)::int from webhook_deliveries b
           where b.webhook_id = w.id and b.status = 'PENDING' and b.claim_token is not null
             and b.next_attempt_at > ${at}::timestamptz) as in_flight
        from webhooks w
        where exists (select 1 from webhook_deliveries d
                      where d.webhook_id = w.id and d.status = 'PENDING'
                        and d.next_attempt_at <= ${at}::timestamptz)`,
  );
  return rows.map((r) => ({
    webhookId: r.id,
    consecutiveFailures: Number(r.failures),
    circuitOpenUntil: r.open_until === null ? null : new Date(r.open_until),
    inFlight: Number(r.in_flight),
  }));
}

/**
 * Claims, for each endpoint, up to its quota of due deliveries (oldest due first), in one
 * statement that locks them (SKIP LOCKED, so concurrent dispatchers take disjoint rows), moves
 * their due time past a lease longer than the timeout with a fresh claim token, and returns what
 * the attempt needs. No other dispatcher can take them while the attempt is in flight.
 */
export async function claimDueDeliveries(
  db: Db,
  now: Date,
  leaseMs: number,
  /** Per endpoint: how many to claim, and its slots (the cap on attempts in flight). */
  quotas: readonly (Quota & { slots: number })[],
): Promise<ClaimedDelivery[]> {
  if (quotas.length === 0) return [];
  const token = newId();
  const at = now.toISOString();
  const leaseEnd = new Date(now.getTime() + leaseMs).toISOString();
  const rows = await queryRows<Omit<ClaimedDelivery, "claimToken">>(
    db,
    sql`with quota as (
          select * from json_to_recordset(${JSON.stringify(quotas)}::json)
            as q("webhookId" text, n int, slots int)
        ), locked as (
          -- One claim per endpoint at a time: another dispatcher claiming for the same endpoint
          -- skips it, and the count in flight below is read under this lock, so the cap holds
          -- across dispatchers.
          select q.* from quota q join webhooks w on w.id = q."webhookId"
          for no key update of w skip locked
        ), picked as (
          select x.id from locked q cross join lateral (
            select d.id from webhook_deliveries d
            where d.webhook_id = q."webhookId" and d.status = 'PENDING'
              and d.next_attempt_at <= ${at}::timestamptz
            order by d.next_attempt_at
            limit greatest(0, least(q.n, q.slots - (
              select count(*) from webhook_deliveries b
              where b.webhook_id = q."webhookId" and b.status = 'PENDING' and b.claim_token is not null
                and b.next_attempt_at > ${at}::timestamptz)))
            for update skip locked
          ) x
        )
        update webhook_deliveries d
        set next_attempt_at = ${leaseEnd}::timestamptz, claim_token = ${token}
        from picked, webhooks w, events e
        where d.id = picked.id and w.id = d.webhook_id and e.id = d.event_id
        returning d.id, d.attempt_count as "attemptCount", d.event_id as "eventId",
          d.event_type as "eventType", e.data, w.id as "webhookId", w.url, w.status as "webhookStatus",
          w.secret, w.previous_secret as "previousSecret",
          w.previous_secret_expires_at as "previousSecretExpiresAt",
          e.created_at as "eventCreatedAt", w.vendor_id as "vendorId"`,
  );
  return rows.map((r) => ({
    ...r,
    data: typeof r.data === "string" ? JSON.parse(r.data) : r.data,
    previousSecretExpiresAt: r.previousSecretExpiresAt === null ? null : new Date(r.previousSecretExpiresAt),
    eventCreatedAt: new Date(r.eventCreatedAt),
    claimToken: token,
  }));
}

/**
 * The earliest future due time of a PENDING delivery (a retry, or a lease that ends), so an idle
 * dispatcher sleeps exactly until then. Deliveries already due but held back (their endpoint at
 * its cap or its circuit open) are not counted: a finished attempt or the poll wakes for those.
 */
export async function nextDueAt(db: Db, now: Date): Promise<Date | undefined> {
  const [row] = await queryRows<{ at: string | Date | null }>(
    db,
    sql`select min(next_attempt_at) as at from webhook_deliveries
        where status = 'PENDING' and next_attempt_at > ${now.toISOString()}::timestamptz`,
  );
  return row?.at ? new Date(row.at) : undefined;
}

/** Retention: events (and, by cascade, their deliveries and attempts) older than `before`. */
export async function pruneOlderThan(db: Db, before: Date): Promise<number> {
  const deleted = await db.delete(events).where(lt(events.createdAt, before)).returning({ id: events.id });
  return deleted.length;
}
