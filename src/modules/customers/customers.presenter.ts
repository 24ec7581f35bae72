import type { CustomerRow } from "./customers.repository.ts";

/**
 * The one place a customer row becomes JSON (API responses and webhook payloads). A payload
 * written in SQL by the statement that inserts the customer is built by customers.repository.ts's
 * customerJsonbSql to the same keys and values (test/query-count/api-writes.test.ts compares them).
 */
export function presentCustomer(row: CustomerRow) {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    phone: row.phone,
    weddingDate: row.weddingDate,
    language: row.language,
    notes: row.notes,
    measurements: row.measurements ?? null,
    preferences: row.preferences ?? null,
    externalId: row.externalId,
    metadata: row.metadata ?? {},
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export type CustomerJson = ReturnType<typeof presentCustomer>;
