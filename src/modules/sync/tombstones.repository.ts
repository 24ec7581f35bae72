// Reading tombstones for a sync list (record-deletion.repository.ts writes them): the same
// window and keyset order as the list's rows with includeDeleted, (updatedAt, id) newest first.
import { and, eq, gte, sql } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { afterCursor, keysetOrder } from "../../db/keyset.ts";
import { tombstones } from "../../db/schema/index.ts";
import type { Cursor } from "../../lib/cursor.ts";
import type { SyncedResource } from "./record-deletion.repository.ts";

export interface TombstoneRow {
  id: string;
  deletedAt: Date;
}

export interface TombstoneWindow {
  limit: number;
  cursor?: Cursor | undefined;
  updatedSince: Date;
  /** Only tombstones stamped at or before the pass's sync horizon (db/sync-horizon.ts). */
  horizon: string;
}

/** `limit + 1` tombstones of the window after the cursor, newest first. */
export async function listTombstones(
  db: Executor,
  vendorId: string,
  resource: SyncedResource,
  window: TombstoneWindow,
): Promise<TombstoneRow[]> {
  const conditions = [
    eq(tombstones.vendorId, vendorId),
    eq(tombstones.resource, resource),
    gte(tombstones.deletedAt, window.updatedSince),
    sql`${tombstones.deletedAt} <= ${window.horizon}::timestamptz`,
  ];
  if (window.cursor) conditions.push(afterCursor(tombstones.deletedAt, tombstones.id, window.cursor, "desc"));
  return db
    .select({ id: tombstones.id, deletedAt: tombstones.deletedAt })
    .from(tombstones)
    .where(and(...conditions))
    .orderBy(...keysetOrder(tombstones.deletedAt, tombstones.id, "desc"))
    .limit(window.limit + 1);
}
