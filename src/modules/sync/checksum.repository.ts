// The sync checksum's one statement (CONTRACT 12, Sync checksum): per UTC day of updatedAt, the
// number of the shop's records and the lowercase hex SHA-256 of their lines `<id>:<updatedAt>`
// (updatedAt as the API writes it, 2026-12-02T09:30:00.000Z), sorted by id in byte order
// (collate "C", whatever the database's collation), joined with "\n". PostgreSQL computes it in
// one pass over the table's (vendor_id, updated_at) index, grouped by day, so no record crosses
// the wire: a POS computes the same from what it holds and compares day by day.
import { sql } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { queryRows } from "../../db/query-rows.ts";
import { isoTimestamp } from "../../db/sql.ts";
import type { SyncedResource } from "./record-deletion.repository.ts";

export interface ChecksumDay {
  day: string;
  count: number;
  hash: string;
}

/** The table of each resource; never text from a request. */
const tables: Record<SyncedResource, string> = {
  orders: "orders",
  customers: "customers",
  appointments: "appointments",
};

export async function checksumDays(
  db: Executor,
  vendorId: string,
  resource: SyncedResource,
  until: string,
): Promise<ChecksumDay[]> {
  const table = sql.raw(tables[resource]);
  return queryRows<ChecksumDay>(
    db,
    // Grouped by the day as a date (an integer compare), formatted once per day: grouping by its
    // text cost a third more CPU (bench/README.md, sync checksum).
    sql`select to_char(d.day, 'YYYY-MM-DD') as day,
               count(*)::int as count,
               encode(sha256(convert_to(
                 string_agg(r.id || ':' || ${isoTimestamp(sql`r.updated_at`)}, E'\\n' order by r.id collate "C"),
                 'UTF8')), 'hex') as hash
        from ${table} r, lateral (select (r.updated_at at time zone 'UTC')::date as day) d
        where r.vendor_id = ${vendorId} and r.updated_at <= ${until}::timestamptz
        group by d.day
        order by d.day`,
  );
}
