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
     * When the event was fanned out into per-endpoint deliveries: by the statement that inserts it
     * (src/outbox/enqueue.ts), so never null since migration 0021 fanned out the events written
     * before that (src/webhook-delivery/README.md, section 2). The outbox backlog gauge counts the
     * null ones (GET /metrics), which stays 0 unless an event is written by hand.
     */
    dispatchedAt: ts("dispatched_at"),
    /** Set for `webhook.test`, which goes to this one endpoint only (no foreign key: pruned apart). */
    targetWebhookId: text("target_webhook_id"),
  },
  (t) => [
    index("events_vendor_created_idx").on(t.vendorId, t.createdAt.desc(), t.id.desc()),
    // Events not fanned out (none, unless written by hand): what the backlog gauge counts, cheaply.
    index("events_undispatched_idx").on(t.createdAt).where(sql`${t.dispatchedAt} is null`),
    index("events_created_idx").on(t.createdAt),
  ],
);

/**
 * The shops with an event stream open on some API process, each until its lease runs out
 * (src/modules/events/stream-wake-ups.ts renews it while the process has one): a new event NOTIFYs
 * (migrations/0024) only for these, so writers of shops nobody streams take no NOTIFY's commit lock.
 */
export const eventStreamShops = pgTable("event_stream_shops", {
  vendorId: text("vendor_id")
    .primaryKey()
    .references(() => vendors.id, { onDelete: "cascade" }),
  until: ts("until").notNull(),
});
