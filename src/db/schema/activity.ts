import { index, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { id, ts } from "./columns.ts";
import { vendors } from "./vendors.ts";

/**
 * The shop's activity log (CONTRACT 10, "Members"): who changed what, and when, one row per change,
 * written in the change's own transaction. It names records by id only, never by a customer's
 * name or e-mail, and an erasure clears the customer's id from it (use-cases/customer-erasure.service.ts),
 * so the log keeps no personal data of an erased customer. Kept one year (maintenance/housekeeping).
 */
export const activity = pgTable(
  "activity",
  {
    id: id(),
    vendorId: text("vendor_id")
      .notNull()
      .references(() => vendors.id, { onDelete: "cascade" }),
    at: ts("at").notNull(),
    /** person | api_key | oauth_app | cli | system | customer (auth/actor.ts). */
    actorKind: text("actor_kind").notNull(),
    /** The person's, key's, application's (client_id) or customer's id; null for the CLI and the service. */
    actorId: text("actor_id"),
    /** The person's, key's or application's name when the change was made (a later rename or delete keeps it). */
    actorName: text("actor_name"),
    /** What was done: `order.created`, `customer.erased`… (modules/activity/activity.kinds.ts). */
    action: text("action").notNull(),
    /** The record it was done to (its kind is the action's first part); null once erased. */
    subjectId: text("subject_id"),
    /** Facts about the change that name no person: the statuses of a move, the fields edited. */
    detail: jsonb("detail").$type<Record<string, unknown>>(),
  },
  (t) => [
    index("activity_vendor_at_idx").on(t.vendorId, t.at.desc(), t.id.desc()),
    // The purge of rows older than a year, across shops.
    index("activity_at_idx").on(t.at),
  ],
);
