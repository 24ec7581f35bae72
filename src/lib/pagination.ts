// The other half of keyset pagination (src/db/keyset.ts builds the SQL): a list query fetches
// `limit + 1` rows, so one more row than the page holds means another page follows.
import { type Cursor, encodeCursor } from "./cursor.ts";

export interface Page<T> {
  rows: T[];
  /** The opaque cursor of the next page; null on the last page. */
  nextCursor: string | null;
}

/** Cuts the fetched rows to the page and makes the next page's cursor from its last row. */
export function toPage<T>(fetched: readonly T[], limit: number, keyOf: (row: T) => Cursor): Page<T> {
  const rows = fetched.slice(0, limit);
  const last = rows.at(-1);
  return { rows, nextCursor: fetched.length > limit && last ? encodeCursor(keyOf(last)) : null };
}
