// What a deletion leaves for clients that sync by polling (CONTRACT 12, Deletions): a tombstone
// `{ id, deleted: true, updatedAt }` that the resource's `updatedSince` list shows with
// `includeDeleted=true` for 30 days. Called inside the transaction that deletes (an appointment's
// DELETE, an erasure, a customer merge), so the tombstone commits or rolls back with the deletion;
// `at` is the transaction's stamp, taken inside it, so the sync horizon (db/sync-horizon.ts)
// holds for tombstones as for rows.
import { sql } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { tombstones } from "../../db/schema/index.ts";

export type SyncedResource = "orders" | "customers" | "appointments";

export interface Deletion {
  vendorId: string;
  resource: SyncedResource;
  /** One id, or every id the same change removed. */
  id: string | readonly string[];
  /** When it was deleted: the updatedAt its tombstone shows. */
  at: Date;
}

export async function recordDeletion(db: Executor, deletion: Deletion): Promise<void> {
  const ids = typeof deletion.id === "string" ? [deletion.id] : [...deletion.id];
  if (ids.length === 0) return;
  await db
    .insert(tombstones)
    .values(
      ids.map((id) => ({
        vendorId: deletion.vendorId,
        resource: deletion.resource,
        id,
        deletedAt: deletion.at,
      })),
    )
    // An id deleted twice (it cannot come back, but a merge may name one an erasure took): the
    // later stamp stands, so the tombstone never moves back behind a client's `since`.
    .onConflictDoUpdate({
      target: [tombstones.vendorId, tombstones.resource, tombstones.id],
      set: { deletedAt: sql`greatest(${tombstones.deletedAt}, excluded.deleted_at)` },
    });
}
