import { index, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { ts } from "./columns.ts";
import { vendors } from "./vendors.ts";

/**
 * What was deleted, erased or merged away, so a client that syncs by polling learns of it
 * (CONTRACT 12, Deletions): written in the deleting transaction, kept 30 days (housekeeping).
 * `deletedAt` is stamped like an update inside that transaction, so the sync horizon covers it.
 */
export const tombstones = pgTable(
  "tombstones",
  {
    vendorId: text("vendor_id")
      .notNull()
      .references(() => vendors.id, { onDelete: "cascade" }),
    /** "orders" | "customers" | "appointments" */
    resource: text("resource").notNull(),
    id: text("id").notNull(),
    deletedAt: ts("deleted_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.vendorId, t.resource, t.id] }),
    index("tombstones_sync_idx").on(t.vendorId, t.resource, t.deletedAt, t.id),
    index("tombstones_deleted_at_idx").on(t.deletedAt),
  ],
);
