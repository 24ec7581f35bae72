import { type SQL, sql } from "drizzle-orm";

/** A timestamptz as the API writes it: ISO 8601 UTC with milliseconds (CONTRACT 1). */
export const isoTimestamp = (column: SQL): SQL =>
  sql`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * A JSON object as compact text (`{"id":"…","size":null}`), keys in the order given. PostgreSQL's
 * json_build_object writes `"id" : "…"` with spaces, and jsonb reorders keys; the API answers
 * compact JSON in its documented key order (the same bytes Node's JSON.stringify would write).
 * Each value is an SQL expression; `json` marks one that is already JSON text (a nested object).
 */
export function compactJsonObject(fields: ReadonlyArray<readonly [string, SQL, "json"?]>): SQL {
  const parts = fields.map(([key, value, kind], i) => {
    // The keys are constants of our code: inlined as literals, not sent as parameters on every
    // query (no quote can occur in them; JSON.stringify only adds double quotes).
    const prefix = sql.raw(`'${`${i === 0 ? "{" : ","}${JSON.stringify(key)}:`.replaceAll("'", "''")}'`);
    const text = kind === "json" ? value : sql`to_json(${value})::text`;
    return sql`${prefix}::text || coalesce(${text}, 'null')`;
  });
  return sql`(${sql.join(parts, sql` || `)} || '}')`;
}

/** A JSON array of `element` text over `from`, as compact text; `[]` when there are no rows. */
export function compactJsonArray(element: SQL, from: SQL, orderBy: SQL): SQL {
  return sql`coalesce((select '[' || string_agg(${element}, ',' order by ${orderBy}) || ']' ${from}), '[]')`;
}

/**
 * The instant a single-statement write (no BEGIN before it) stamps its rows with: the service's
 * clock `now`, but never before the statement's own start, to the millisecond. Rows are then
 * stamped inside their transaction, as the sync horizon needs (db/sync-horizon.ts), which a
 * service otherwise ensures by reading its clock after BEGIN. `now` was read before the statement
 * waited for a pooled connection (seconds on a loaded host), so any lag up to an hour is taken as
 * that wait; only a clock set further back on purpose (tests' fixed clocks) is used as given.
 */
export function writeStampSql(now: unknown): SQL {
  return sql`(case when ${now}::timestamptz < statement_timestamp() - interval '1 hour'
             then ${now}::timestamptz
             else greatest(${now}::timestamptz, date_trunc('milliseconds', statement_timestamp())) end)`;
}
