// Every statement the events API and the live event stream run against the events table.
import { and, eq, gte, inArray, lt, sql } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { afterCursor, keysetOrder } from "../../db/keyset.ts";
import { events } from "../../db/schema/index.ts";
import type { Cursor } from "../../lib/cursor.ts";

export type EventRow = typeof events.$inferSelect;

/**
 * A page of the vendor's events of `types` stamped at or after `since` (and at or before `syncTo`
 * when given: a sync pass), newest first, after `cursor`: `limit + 1` rows.
 */
export async function listEventRows(
  db: Executor,
  q: {
    vendorId: string;
    types: string[];
    since: Date;
    syncTo: string | undefined;
    cursor: Cursor | undefined;
    limit: number;
  },
): Promise<EventRow[]> {
  const conditions = [
    eq(events.vendorId, q.vendorId),
    inArray(events.type, q.types),
    gte(events.createdAt, q.since),
  ];
  if (q.syncTo) conditions.push(sql`${events.createdAt} <= ${q.syncTo}::timestamptz`);
  if (q.cursor) conditions.push(afterCursor(events.createdAt, events.id, q.cursor, "desc"));
  // Matches events_vendor_created_idx (DESC NULLS LAST) so the index is read in order.
  return db
    .select()
    .from(events)
    .where(and(...conditions))
    .orderBy(...keysetOrder(events.createdAt, events.id, "desc"))
    .limit(q.limit + 1);
}

/** The vendor's event `id` if it was stamped at or after `since`. */
export async function findEventRow(
  db: Executor,
  vendorId: string,
  id: string,
  since: Date,
): Promise<EventRow | undefined> {
  const [row] = await db
    .select()
    .from(events)
    .where(and(eq(events.vendorId, vendorId), eq(events.id, id), gte(events.createdAt, since)));
  return row;
}

/** Where the vendor's event `id` stands in the stream's order (its stamp and id). */
export async function findEventPosition(
  db: Executor,
  vendorId: string,
  id: string,
): Promise<{ at: Date; id: string } | undefined> {
  const [row] = await db
    .select({ at: events.createdAt, id: events.id })
    .from(events)
    .where(and(eq(events.vendorId, vendorId), eq(events.id, id)));
  return row;
}

/**
 * The vendor's events of `types` after (`after.at`, `after.id`), stamped at or after `kept` and
 * before `horizon` (exclusive), oldest first: at most `limit`.
 */
export async function listStreamRows(
  db: Executor,
  q: {
    vendorId: string;
    types: readonly string[];
    kept: Date;
    after: { at: Date; id: string };
    horizon: string;
    limit: number;
  },
): Promise<EventRow[]> {
  return db
    .select()
    .from(events)
    .where(
      and(
        eq(events.vendorId, q.vendorId),
        inArray(events.type, [...q.types]),
        gte(events.createdAt, q.kept),
        sql`(${events.createdAt}, ${events.id}) > (${q.after.at.toISOString()}::timestamptz, ${q.after.id})`,
        lt(events.createdAt, sql`${q.horizon}::timestamptz`),
      ),
    )
    .orderBy(events.createdAt, events.id)
    .limit(q.limit);
}
