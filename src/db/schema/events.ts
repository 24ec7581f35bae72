import { sql } from "drizzle-orm";
import { index, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, id, ts } from "./columns.ts";
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
    /**
     * When a dispatcher fanned the event out into per-endpoint deliveries; null until then. The
     * fan-out and this mark commit together, so a crash before it means the event is fanned out
     * again later, never lost.
     */
    dispatchedAt: ts("dispatched_at"),
    /** Set for `webhook.test`, which goes to this one endpoint only (no foreign key: pruned apart). */
    targetWebhookId: text("target_webhook_id"),
  },
  (t) => [
    index("events_vendor_created_idx").on(t.vendorId, t.createdAt.desc(), t.id.desc()),
    // The dispatcher's queue of events still to fan out: small, because rows leave it at once.
    index("events_undispatched_idx").on(t.createdAt).where(sql`${t.dispatchedAt} is null`),
    index("events_created_idx").on(t.createdAt),
  ],
);
