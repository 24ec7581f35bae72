import { type SQL, sql } from "drizzle-orm";
import type { customers } from "../../db/schema/index.ts";
import { isoTimestamp } from "../../db/sql.ts";

// The row type from the schema, not the repository: the repository uses customerJsonbSql.
type CustomerRow = typeof customers.$inferSelect;

/** The one place a customer row becomes JSON (API responses and webhook payloads). */
export function presentCustomer(row: CustomerRow) {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    phone: row.phone,
    weddingDate: row.weddingDate,
    notes: row.notes,
    measurements: row.measurements ?? null,
    preferences: row.preferences ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export type CustomerJson = ReturnType<typeof presentCustomer>;

/**
 * The same object as jsonb, for a customer.created payload written by the statement that inserts
 * the customer (aliased `alias`, a row of the customers table's columns). Keys and values match
 * presentCustomer's (test/query-count/api-writes.test.ts compares the two).
 */
export function customerJsonbSql(alias: string): SQL {
  const c = (column: string) => sql.raw(`${alias}.${column}`);
  return sql`jsonb_build_object('id', ${c("id")}, 'name', ${c("name")}, 'email', ${c("email")},
    'phone', ${c("phone")}, 'weddingDate', ${c("wedding_date")}, 'notes', ${c("notes")},
    'measurements', ${c("measurements")}, 'preferences', ${c("preferences")},
    'createdAt', ${isoTimestamp(c("created_at"))}, 'updatedAt', ${isoTimestamp(c("updated_at"))})`;
}
