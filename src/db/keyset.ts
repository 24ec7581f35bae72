// Keyset pagination in SQL, one spelling for every list: a page is ordered by (sort column, id)
// and the next page starts strictly after the cursor's pair, compared as a row value, which
// PostgreSQL answers by reading the list's (vendor, sort, id) index from that point on.
import { type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { Cursor } from "../lib/cursor.ts";

/** "desc": newest first (most lists); "asc": soonest first (appointments by start). */
export type KeysetDirection = "desc" | "asc";

/** The rows after `cursor` in the list's order. */
export function afterCursor(
  sort: SQLWrapper,
  id: SQLWrapper,
  cursor: Cursor,
  direction: KeysetDirection,
): SQL {
  return direction === "desc"
    ? sql`(${sort}, ${id}) < (${cursor.t}::timestamptz, ${cursor.id})`
    : sql`(${sort}, ${id}) > (${cursor.t}::timestamptz, ${cursor.id})`;
}

/**
 * The list's ORDER BY. Descending is spelled DESC NULLS LAST, as the indexes are declared
 * (Drizzle's `.desc()`), so PostgreSQL reads the index in order instead of sorting: the query builder's
 * `desc()` is DESC NULLS FIRST, which makes it sort (check with EXPLAIN).
 */
export function keysetOrder(sort: SQLWrapper, id: SQLWrapper, direction: KeysetDirection): SQL[] {
  return direction === "desc"
    ? [sql`${sort} desc nulls last`, sql`${id} desc nulls last`]
    : [sql`${sort}`, sql`${id}`];
}
