// The dispatcher's queries. Each function is one short transaction or statement: nothing here is
// ever held open across a POST (STACK-NOTES: PGlite serializes every caller on one thread).
import { and, asc, eq, inArray, isNull, lt, sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { queryRows } from "../db/client.ts";
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
}

/**
 * Claims up to `limit` due deliveries: one statement that locks them (SKIP LOCKED, so concurrent
 * dispatchers take disjoint rows) and moves their due time past a lease longer than the timeout,
 * with a fresh claim token. No other dispatcher can take them while the attempt is in flight.
 */
export async function claimDueDeliveries(
  db: Db,
  now: Date,
  leaseMs: number,
  limit: number,
): Promise<ClaimedDelivery[]> {
  const token = newId();
  const leaseEnd = new Date(now.getTime() + leaseMs);
  const claimed = await queryRows<{ id: string }>(
    db,
    sql`with due as (
          select id from webhook_deliveries
          where status = 'PENDING' and next_attempt_at <= ${now.toISOString()}::timestamptz
          order by next_attempt_at
          limit ${limit}
          for update skip locked
        )
        update webhook_deliveries d
        set next_attempt_at = ${leaseEnd.toISOString()}::timestamptz, claim_token = ${token}
        from due where d.id = due.id
        returning d.id`,
  );
  if (claimed.length === 0) return [];
  const rows = await db
    .select({
      id: webhookDeliveries.id,
      attemptCount: webhookDeliveries.attemptCount,
      eventId: webhookDeliveries.eventId,
      eventType: webhookDeliveries.eventType,
      data: events.data,
      webhookId: webhooks.id,
      url: webhooks.url,
      webhookStatus: webhooks.status,
      secret: webhooks.secret,
      previousSecret: webhooks.previousSecret,
      previousSecretExpiresAt: webhooks.previousSecretExpiresAt,
    })
    .from(webhookDeliveries)
    .innerJoin(webhooks, eq(webhooks.id, webhookDeliveries.webhookId))
    .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
    .where(
      and(
        inArray(
          webhookDeliveries.id,
          claimed.map((c) => c.id),
        ),
        eq(webhookDeliveries.claimToken, token),
      ),
    );
  return rows.map((r) => ({ ...r, claimToken: token }));
}

/** The earliest due time of a PENDING delivery, so an idle dispatcher sleeps exactly until then. */
export async function nextDueAt(db: Db): Promise<Date | undefined> {
  const [row] = await queryRows<{ at: string | Date | null }>(
    db,
    sql`select min(next_attempt_at) as at from webhook_deliveries where status = 'PENDING'`,
  );
  return row?.at ? new Date(row.at) : undefined;
}

/** Retention: events (and, by cascade, their deliveries and attempts) older than `before`. */
export async function pruneOlderThan(db: Db, before: Date): Promise<number> {
  const deleted = await db.delete(events).where(lt(events.createdAt, before)).returning({ id: events.id });
  return deleted.length;
}
