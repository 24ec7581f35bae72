import { sql } from "drizzle-orm";
import { date, index, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, id, ts, updatedAt } from "./columns.ts";
import { vendors } from "./vendors.ts";

export const customers = pgTable(
  "customers",
  {
    id: id(),
    vendorId: text("vendor_id")
      .notNull()
      .references(() => vendors.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    email: text("email"),
    phone: text("phone"),
    /**
     * `phone` in E.164 (libphonenumber-js, the shop's country as default), null when it does not
     * parse: an order without a known e-mail links to the customer by it (CONTRACT 12).
     */
    phoneE164: text("phone_e164"),
    weddingDate: date("wedding_date", { mode: "string" }),
    /** The customer's language for mail and pages (CONTRACT 12); null: the shop's. */
    language: text("language"),
    notes: text("notes"),
    measurements: jsonb("measurements").$type<Record<string, unknown>>(),
    preferences: jsonb("preferences").$type<Record<string, unknown>>(),
    /** When the customer unsubscribed from the shop's mail (one-click, RFC 8058): no more mail. */
    mailUnsubscribedAt: ts("mail_unsubscribed_at"),
    /** The integrator's own id (CONTRACT 12): unique per shop among its customers. */
    externalId: text("external_id"),
    /** The integrator's string pairs (CONTRACT 12), bounded by the API's schema. */
    metadata: jsonb("metadata").$type<Record<string, string>>().notNull().default({}),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // E-mail is unique per vendor regardless of case (CONTRACT 5); the same index serves linking.
    uniqueIndex("customers_vendor_email_key")
      .on(t.vendorId, sql`lower(${t.email})`)
      .where(sql`${t.email} is not null`),
    index("customers_vendor_created_idx").on(t.vendorId, t.createdAt.desc(), t.id.desc()),
    index("customers_vendor_updated_idx").on(t.vendorId, t.updatedAt),
    uniqueIndex("customers_vendor_external_id_key")
      .on(t.vendorId, t.externalId)
      .where(sql`${t.externalId} is not null`),
    index("customers_vendor_phone_idx").on(t.vendorId, t.phoneE164).where(sql`${t.phoneE164} is not null`),
  ],
);
