// A sync list's page with tombstones (CONTRACT 12, Deletions). With `updatedSince` and
// `includeDeleted=true`, a list of orders, customers or appointments is ordered by (updatedAt,
// id), newest first, and what was deleted in the window shows in that order as
// `{ id, deleted: true, updatedAt }` (updatedAt = the deletion's time). The rows and the
// tombstones are each read as `limit + 1` after the cursor in that order, within the same window
// (updatedSince to the pass's sync horizon), and merged: the first `limit` of the merge are
// exactly the first `limit` of the union, so the next page, which starts after the last item's
// (updatedAt, id) whichever kind it was, skips nothing and repeats nothing.
import type { Executor } from "../../db/client.ts";
import { fieldError } from "../../errors.ts";
import type { Cursor } from "../../lib/cursor.ts";
import { requireDateTime } from "../../lib/instants.ts";
import { toPage } from "../../lib/pagination.ts";
import type { SyncedResource } from "./record-deletion.repository.ts";
import { listTombstones } from "./tombstones.repository.ts";

export interface Tombstone {
  id: string;
  deleted: true;
  updatedAt: string;
}

/** A row of the list with its sort key (updatedAt as ISO text) and what the page shows of it. */
export interface KeyedItem<T> {
  t: string;
  id: string;
  value: T;
}

/** Tombstones belong to an incremental sync: they have no place in a list without its window. */
export function assertIncludeDeletedHasWindow(query: { includeDeleted?: boolean; updatedSince?: string }) {
  if (query.includeDeleted && query.updatedSince === undefined) {
    throw fieldError(
      "validation_failed",
      "includeDeleted",
      "needs updatedSince (tombstones are part of an incremental sync)",
    );
  }
}

/** The window's start of a list with includeDeleted (400 naming includeDeleted without one). */
export function includeDeletedSince(query: { includeDeleted?: boolean; updatedSince?: string }): Date {
  assertIncludeDeletedHasWindow(query);
  return requireDateTime("updatedSince", query.updatedSince as string);
}

const newestFirst = (a: KeyedItem<unknown>, b: KeyedItem<unknown>) =>
  a.t !== b.t ? (a.t < b.t ? 1 : -1) : a.id === b.id ? 0 : a.id < b.id ? 1 : -1;

/**
 * Merges the rows (already `limit + 1` after the cursor, newest first) with the resource's
 * tombstones of the same window into one page.
 */
export async function pageWithTombstones<T>(
  db: Executor,
  vendorId: string,
  resource: SyncedResource,
  window: { limit: number; cursor: Cursor | undefined; updatedSince: Date; horizon: string },
  rows: KeyedItem<T>[],
  showTombstone: (tombstone: Tombstone) => T,
): Promise<{ items: T[]; nextCursor: string | null }> {
  const dead = await listTombstones(db, vendorId, resource, window);
  const merged = [
    ...rows,
    ...dead.map((d) => {
      const updatedAt = d.deletedAt.toISOString();
      return { t: updatedAt, id: d.id, value: showTombstone({ id: d.id, deleted: true, updatedAt }) };
    }),
  ].sort(newestFirst);
  const page = toPage(merged, window.limit, (item) => ({ t: item.t, id: item.id, h: window.horizon }));
  return { items: page.rows.map((item) => item.value), nextCursor: page.nextCursor };
}
