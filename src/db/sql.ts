import { type SQL, sql } from "drizzle-orm";

/** A timestamptz as the API writes it: ISO 8601 UTC with milliseconds (CONTRACT 1). */
export const isoTimestamp = (column: SQL): SQL =>
  sql`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
