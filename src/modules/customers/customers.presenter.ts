import type { CustomerRow } from "./customers.repository.ts";

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
