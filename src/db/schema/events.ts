import { index, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, id } from "./columns.ts";
import { vendors } from "./vendors.ts";

/**
 * The transactional outbox: one row per domain event, written in the same transaction as the
 * change that caused it (enqueueEvent), with its payload rendered at that moment.
 */
export const events = pgTable(
  "events",
  {
    id: id(),
    vendorId: text("vendor_id")
      .notNull()
      .references(() => vendors.id, { onDelete: "cascade" }),
    type: text("type").notNull(),
    data: jsonb("data").$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("events_vendor_created_idx").on(t.vendorId, t.createdAt.desc(), t.id.desc())],
);
