import { and, asc, eq, gt, inArray, isNull, sql } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { afterCursor, keysetOrder } from "../../db/keyset.ts";
import { queryRows } from "../../db/query-rows.ts";
import { vendors, webhookAttempts, webhookDeliveries, webhooks } from "../../db/schema/index.ts";
import { isoTimestamp } from "../../db/sql.ts";
import type { Cursor } from "../../lib/cursor.ts";

export type WebhookRow = typeof webhooks.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
export type AttemptRow = typeof webhookAttempts.$inferSelect;

/** Locks the vendor row so concurrent registrations count webhooks one at a time (limit 5). */
export async function lockVendor(db: Executor, vendorId: string): Promise<void> {
  await db.select({ id: vendors.id }).from(vendors).where(eq(vendors.id, vendorId)).for("update");
}

export async function countWebhooks(db: Executor, vendorId: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(webhooks)
    .where(eq(webhooks.vendorId, vendorId));
  return row?.n ?? 0;
}

export async function insertWebhook(db: Executor, row: typeof webhooks.$inferInsert): Promise<WebhookRow> {
  const [inserted] = await db.insert(webhooks).values(row).returning();
  if (!inserted) throw new Error("insert returned nothing");
  return inserted;
}

/** The vendor's webhooks, oldest first; with a limit, `limit + 1` rows after the cursor. */
export async function listWebhookRows(
  db: Executor,
  vendorId: string,
  page?: { limit: number; cursor: Cursor | undefined },
): Promise<WebhookRow[]> {
  const conditions = [eq(webhooks.vendorId, vendorId)];
  if (page?.cursor) conditions.push(afterCursor(webhooks.createdAt, webhooks.id, page.cursor, "asc"));
  const query = db
    .select()
    .from(webhooks)
    .where(and(...conditions))
    .orderBy(...keysetOrder(webhooks.createdAt, webhooks.id, "asc"));
  return page ? query.limit(page.limit + 1) : query;
}

export async function findWebhookById(
  db: Executor,
  vendorId: string,
  id: string,
): Promise<WebhookRow | undefined> {
  const [row] = await db
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.vendorId, vendorId), eq(webhooks.id, id)));
  return row;
}

/** The webhook, locked until the transaction ends (If-Match compares, then the update applies). */
export async function findWebhookForUpdate(
  db: Executor,
  vendorId: string,
  id: string,
): Promise<WebhookRow | undefined> {
  const [row] = await db
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.vendorId, vendorId), eq(webhooks.id, id)))
    .for("update");
  return row;
}

export async function updateWebhookRow(
  db: Executor,
  vendorId: string,
  id: string,
  set: Partial<typeof webhooks.$inferInsert>,
): Promise<WebhookRow | undefined> {
  const [row] = await db
    .update(webhooks)
    .set(set)
    .where(and(eq(webhooks.vendorId, vendorId), eq(webhooks.id, id)))
    .returning();
  return row;
}

/** Deletes the webhook; its deliveries and their attempts go with it (foreign-key cascade). */
export async function deleteWebhookRow(db: Executor, vendorId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(webhooks)
    .where(and(eq(webhooks.vendorId, vendorId), eq(webhooks.id, id)))
    .returning({ id: webhooks.id });
  return rows.length > 0;
}

/** What the delivery log may be narrowed to (GET …/deliveries, CONTRACT 12); all optional. */
export interface DeliveryFilter {
  status?: string | undefined;
  eventType?: string | undefined;
  eventId?: string | undefined;
}

/**
 * A page of a webhook's deliveries, newest first (limit + 1 rows, to know if more follow),
 * narrowed by `filter`: each filter is a range of an index that leads with the webhook
 * (webhook_deliveries_webhook_status_idx, _type_idx; an event id reads the event index).
 */
export async function listDeliveryRows(
  db: Executor,
  webhookId: string,
  limit: number,
  cursor: Cursor | undefined,
  filter: DeliveryFilter = {},
): Promise<DeliveryRow[]> {
  const conditions = [eq(webhookDeliveries.webhookId, webhookId)];
  if (filter.status) conditions.push(eq(webhookDeliveries.status, filter.status));
  if (filter.eventType) conditions.push(eq(webhookDeliveries.eventType, filter.eventType));
  if (filter.eventId) conditions.push(eq(webhookDeliveries.eventId, filter.eventId));
  if (cursor) conditions.push(afterCursor(webhookDeliveries.createdAt, webhookDeliveries.id, cursor, "desc"));
  return db
    .select()
    .from(webhookDeliveries)
    .where(and(...conditions))
    .orderBy(...keysetOrder(webhookDeliveries.createdAt, webhookDeliveries.id, "desc"))
    .limit(limit + 1);
}

export async function findDeliveryById(
  db: Executor,
  webhookId: string,
  id: string,
): Promise<DeliveryRow | undefined> {
  const [row] = await db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.webhookId, webhookId), eq(webhookDeliveries.id, id)));
  return row;
}

/** Attempts of several deliveries in one query (no N+1), oldest first. */
export async function listAttemptRows(db: Executor, deliveryIds: string[]): Promise<AttemptRow[]> {
  if (deliveryIds.length === 0) return [];
  return db
    .select()
    .from(webhookAttempts)
    .where(inArray(webhookAttempts.deliveryId, deliveryIds))
    .orderBy(asc(webhookAttempts.deliveryId), asc(webhookAttempts.attempt));
}

export async function insertDeliveries(
  db: Executor,
  rows: (typeof webhookDeliveries.$inferInsert)[],
): Promise<void> {
  if (rows.length > 0) await db.insert(webhookDeliveries).values(rows);
}

/**
 * Takes the webhook's row lock (the one `closeCircuit`'s update takes) for the rest of the
 * transaction: redeliveries and recoveries of one endpoint take turns, so two of them never both
 * find an event without a PENDING delivery and queue it twice.
 */
export async function lockWebhook(db: Executor, vendorId: string, id: string): Promise<void> {
  await db
    .select({ id: webhooks.id })
    .from(webhooks)
    .where(and(eq(webhooks.vendorId, vendorId), eq(webhooks.id, id)))
    .for("no key update");
}

/** The event's PENDING delivery to the webhook, if any (at most one: see lockWebhook). */
export async function findPendingDelivery(
  db: Executor,
  webhookId: string,
  eventId: string,
): Promise<DeliveryRow | undefined> {
  const [row] = await db
    .select()
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.webhookId, webhookId),
        eq(webhookDeliveries.eventId, eventId),
        eq(webhookDeliveries.status, "PENDING"),
      ),
    )
    .limit(1);
  return row;
}

/**
 * Makes a PENDING delivery that waits for its retry due at `at`. One that a dispatcher holds (a
 * claim token: its attempt is in flight, or leased in reserve) is left alone: that attempt stands,
 * and sending it again beside it would put two attempts of the event in flight to the endpoint.
 */
export async function makeDueNow(db: Executor, deliveryId: string, at: Date): Promise<void> {
  await db
    .update(webhookDeliveries)
    .set({ nextAttemptAt: at, updatedAt: at })
    .where(
      and(
        eq(webhookDeliveries.id, deliveryId),
        eq(webhookDeliveries.status, "PENDING"),
        isNull(webhookDeliveries.claimToken),
        gt(webhookDeliveries.nextAttemptAt, at),
      ),
    );
}

/**
 * Re-queues the events of the webhook's FAILED and SKIPPED deliveries created in [since, until)
 * that have no PENDING or SUCCEEDED delivery to it since: one new PENDING delivery per event, so
 * recovering twice never queues an event twice. They are due in the order the events happened
 * (a millisecond apart from `at`: due times are stored to the millisecond, and a microsecond
 * apart they were one instant, taken in whatever order the rows lay), so the dispatcher sends them
 * in that order. Returns how many.
 * Run under lockWebhook.
 */
export async function requeueRecoverable(
  db: Executor,
  hook: { vendorId: string; id: string },
  window: { since: Date; until: Date },
  at: Date,
): Promise<number> {
  const now = at.toISOString();
  const [row] = await queryRows<{ n: number }>(
    db,
    sql`with found as (
          select distinct on (d.event_id) d.event_id, d.event_type, d.id as delivery_id,
                 e.created_at as event_at
          from webhook_deliveries d join events e on e.id = d.event_id
          where d.webhook_id = ${hook.id} and d.vendor_id = ${hook.vendorId}
            and d.status in ('FAILED', 'SKIPPED')
            and d.created_at >= ${window.since.toISOString()}::timestamptz
            and d.created_at < ${window.until.toISOString()}::timestamptz
            and not exists (select 1 from webhook_deliveries o
                            where o.webhook_id = d.webhook_id and o.event_id = d.event_id
                              and o.status in ('PENDING', 'SUCCEEDED'))
          order by d.event_id, d.created_at desc
        ), queued as (
          insert into webhook_deliveries
            (id, webhook_id, vendor_id, event_id, event_type, status, next_attempt_at, redelivery_of,
             created_at, updated_at)
          select 'd' || substr(replace(gen_random_uuid()::text, '-', ''), 1, 24), ${hook.id},
                 ${hook.vendorId}, f.event_id, f.event_type, 'PENDING',
                 ${now}::timestamptz
                   + (row_number() over (order by f.event_at, f.event_id) - 1) * interval '1 millisecond',
                 f.delivery_id, ${now}::timestamptz, ${now}::timestamptz
          from found f
          returning id
        )
        select count(*)::int as n from queued`,
  );
  return Number(row?.n ?? 0);
}

/** One row per webhook of the vendor: its last success and its failure counts (one grouped query). */
export async function listWebhookHealthRows(db: Executor, vendorId: string) {
  return queryRows<{
    id: string;
    lastSuccessAt: string | null;
    streak: number;
    givenUp: number;
    retrying: number;
  }>(
    db,
    sql`select w.id as "id", ${isoTimestamp(sql`w.last_success_at`)} as "lastSuccessAt",
          w.consecutive_failures as "streak",
          count(d.id) filter (where d.status = 'FAILED'
            and d.created_at > coalesce(w.last_success_at, 'epoch'::timestamptz))::int as "givenUp",
          count(d.id) filter (where d.status = 'PENDING' and d.attempt_count > 0)::int as "retrying"
        from webhooks w left join webhook_deliveries d on d.webhook_id = w.id and d.vendor_id = w.vendor_id
        where w.vendor_id = ${vendorId}
        group by w.id, w.last_success_at, w.consecutive_failures`,
  );
}

/** The id and payload (`data`) of the vendor's own events among `eventIds` (not empty). */
export async function listEventPayloadRows(db: Executor, vendorId: string, eventIds: string[]) {
  return queryRows<{ id: string; data: unknown }>(
    db,
    sql`select id as "id", data as "data" from events
        where vendor_id = ${vendorId} and id in (${sql.join(
          eventIds.map((id) => sql`${id}`),
          sql`, `,
        )})`,
  );
}
