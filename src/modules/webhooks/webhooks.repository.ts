import { and, asc, desc, eq, gte, inArray, lt, sql } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { afterCursor, keysetOrder } from "../../db/keyset.ts";
import { vendors, webhookAttempts, webhookDeliveries, webhooks } from "../../db/schema/index.ts";
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

/** A page of a webhook's deliveries, newest first (limit + 1 rows, to know if more follow). */
export async function listDeliveryRows(
  db: Executor,
  webhookId: string,
  limit: number,
  cursor: Cursor | undefined,
): Promise<DeliveryRow[]> {
  const conditions = [eq(webhookDeliveries.webhookId, webhookId)];
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
 * The events of the webhook's FAILED deliveries created in [since, until) that have no PENDING or
 * SUCCEEDED delivery to it since: one per event, so recovering twice never queues an event twice.
 */
export async function findRecoverableEvents(
  db: Executor,
  webhookId: string,
  since: Date,
  until: Date,
): Promise<{ eventId: string; eventType: string; deliveryId: string }[]> {
  const failed = await db
    .selectDistinctOn([webhookDeliveries.eventId], {
      eventId: webhookDeliveries.eventId,
      eventType: webhookDeliveries.eventType,
      deliveryId: webhookDeliveries.id,
    })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.webhookId, webhookId),
        eq(webhookDeliveries.status, "FAILED"),
        gte(webhookDeliveries.createdAt, since),
        lt(webhookDeliveries.createdAt, until),
        sql`not exists (select 1 from webhook_deliveries o
                        where o.webhook_id = ${webhookDeliveries.webhookId}
                          and o.event_id = ${webhookDeliveries.eventId}
                          and o.status in ('PENDING', 'SUCCEEDED'))`,
      ),
    )
    .orderBy(webhookDeliveries.eventId, desc(webhookDeliveries.createdAt));
  return failed;
}
