// The sync horizon (CONTRACT 8: incremental sync is lossless). Rows are stamped by the service
// inside their transaction (never before it begins), but become visible only when it commits,
// possibly after rows stamped later: a client that resumes from the newest timestamp it has seen
// would skip a row committed late. So a sync list (one with updatedSince/since) returns only rows
// stamped at or before the horizon: the start of the oldest transaction still running on this
// database (or now, when none runs), to the millisecond. Every row stamped at or before it has
// committed (or never will), and any row committed later is stamped at or after it, so resuming
// from the newest timestamp seen, inclusively, misses nothing. The horizon is taken in a statement
// of its own, before the list's snapshot, and travels in the cursor so all pages share it.
import { sql } from "drizzle-orm";
import type { Executor } from "./client.ts";
import { queryRows } from "./query-rows.ts";

/** The horizon as an ISO 8601 instant (UTC, milliseconds). */
export async function syncHorizon(db: Executor): Promise<string> {
  return (await syncHorizonAndNow(db)).horizon;
}

/**
 * The horizon and the database's own "now" of the same statement, both as ISO 8601 instants (UTC,
 * milliseconds, so they compare as text). Once a later horizon reaches that "now", every
 * transaction that had committed by then is inside it (an event stream woken by a NOTIFY waits
 * for that, src/modules/events/stream-wake-ups.ts).
 */
export async function syncHorizonAndNow(db: Executor): Promise<{ horizon: string; now: string }> {
  const [row] = await queryRows<{ horizon: string; now: string }>(
    db,
    sql`select to_char(
          date_trunc('milliseconds', least(statement_timestamp(), min(xact_start))) at time zone 'UTC',
          'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
        ) as horizon,
        to_char(
          date_trunc('milliseconds', statement_timestamp()) at time zone 'UTC',
          'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
        ) as now
        from pg_stat_activity
        where datname = current_database() and backend_type = 'client backend'
          and pid <> pg_backend_pid() and xact_start is not null`,
  );
  if (!row) throw new Error("sync horizon: no answer");
  return row;
}
