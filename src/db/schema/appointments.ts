import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, id, ts, updatedAt } from "./columns.ts";
import { customers } from "./customers.ts";
import { orders } from "./orders.ts";
import { vendors } from "./vendors.ts";

export const appointments = pgTable(
  "appointments",
  {
    id: id(),
    vendorId: text("vendor_id")
      .notNull()
      .references(() => vendors.id, { onDelete: "cascade" }),
    customerId: text("customer_id")
      .notNull()
      .references(() => customers.id),
    orderId: text("order_id").references(() => orders.id),
    type: text("type").notNull(),
    status: text("status").notNull(),
    // timestamptz keeps the instant exactly; the offset the client sent is not kept (the API
    // answers in UTC, CONTRACT 1), so 10:00+01:00 comes back as 09:00Z, the same instant.
    date: ts("date").notNull(),
    duration: integer("duration").notNull(),
    notes: text("notes"),
    /** The integrator's own id (CONTRACT 12): unique per shop among its appointments. */
    externalId: text("external_id"),
    /** The integrator's string pairs (CONTRACT 12), bounded by the API's schema. */
    metadata: jsonb("metadata").$type<Record<string, string>>().notNull().default({}),
    /**
     * The calendar invitation's SEQUENCE (RFC 5546 2.1.4, CONTRACT 12 "Telling the customer"):
     * raised in the transaction of every change of the time, length, type or status, so each
     * mail's invitation supersedes the one before. A reminder keeps the value it was scheduled
     * for and is not sent once it differs.
     */
    sequence: integer("sequence").notNull().default(0),
    /** The start the customer was last told of by mail (null: never): a cancellation names it. */
    toldDate: ts("told_date"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // Serves the list (by date ascending) and its keyset pages.
    index("appointments_vendor_date_idx").on(t.vendorId, t.date, t.id),
    index("appointments_customer_idx").on(t.customerId),
    index("appointments_order_idx").on(t.orderId),
    // The sync lists with includeDeleted and the sync checksum read by update time.
    index("appointments_vendor_updated_idx").on(t.vendorId, t.updatedAt),
    uniqueIndex("appointments_vendor_external_id_key")
      .on(t.vendorId, t.externalId)
      .where(sql`${t.externalId} is not null`),
  ],
);

/**
 * The customer's own links to an appointment (`/my/appointments/<token>`, CONTRACT 12): one per
 * appointment mail, kept as the token's SHA-256 only. A link works while its appointment exists,
 * is not cancelled, and still belongs to the customer it was mailed to (a merge moves it to
 * another); the rows go with the appointment (cascade).
 */
export const appointmentLinks = pgTable(
  "appointment_links",
  {
    tokenHash: text("token_hash").primaryKey(),
    appointmentId: text("appointment_id")
      .notNull()
      .references(() => appointments.id, { onDelete: "cascade" }),
    vendorId: text("vendor_id")
      .notNull()
      .references(() => vendors.id, { onDelete: "cascade" }),
    customerId: text("customer_id").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("appointment_links_appointment_idx").on(t.appointmentId)],
);
