import { index, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, id, ts } from "./columns.ts";
import { members } from "./members.ts";
import { vendors } from "./vendors.ts";

/**
 * An owner's request to send the shop's notifications to a new address (CONTRACT 12): the address
 * gets a link (random 256 bits, only its SHA-256 kept, one day, one use), and the setting changes
 * only when it is followed. A newer request replaces the shop's older one; the requester's removal
 * (cascade) or demotion voids it, so nobody who lost the shop can finish one.
 */
export const notificationEmailChanges = pgTable(
  "notification_email_changes",
  {
    id: id(),
    vendorId: text("vendor_id")
      .notNull()
      .references(() => vendors.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    tokenHash: text("token_hash").notNull(),
    requestedBy: text("requested_by")
      .notNull()
      .references(() => members.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
    expiresAt: ts("expires_at").notNull(),
    usedAt: ts("used_at"),
  },
  (t) => [
    uniqueIndex("notification_email_changes_token_hash_key").on(t.tokenHash),
    index("notification_email_changes_vendor_idx").on(t.vendorId),
    index("notification_email_changes_requested_by_idx").on(t.requestedBy),
  ],
);
