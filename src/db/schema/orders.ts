import { sql } from "drizzle-orm";
import {
  bigint,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { createdAt, id, updatedAt } from "./columns.ts";
import { customers } from "./customers.ts";
import { vendors } from "./vendors.ts";

export const orders = pgTable(
  "orders",
  {
    id: id(),
    vendorId: text("vendor_id")
      .notNull()
      .references(() => vendors.id, { onDelete: "cascade" }),
    // Null once the customer was erased (CONTRACT 5): the order stays for the shop's books.
    customerId: text("customer_id").references(() => customers.id),
    /** The shop's own order number (1001, 1002, …), from vendors.last_order_number. */
    number: integer("number").notNull(),
    /** The integrator's own id for the order (CONTRACT 12), unique per shop among orders. */
    externalId: text("external_id"),
    /** The integrator's string pairs (CONTRACT 12: ≤ 50 keys of ≤ 40 chars, values ≤ 500). */
    metadata: jsonb("metadata").$type<Record<string, string>>(),
    type: text("type").notNull(),
    status: text("status").notNull(),
    model: text("model"),
    size: text("size"),
    color: text("color"),
    description: text("description"),
    specialRequests: text("special_requests"),
    // Accepted on creation only (spec 2.1); kept with the order as the vendor entered them.
    customerPhone: text("customer_phone"),
    weddingDate: date("wedding_date", { mode: "string" }),
    /**
     * The date the order is due (CONTRACT 12, Dates of an order) as the shop set it; null: derived
     * from the customer's wedding date minus the shop's lead time for the type (order-json.repository.ts).
     */
    dueDate: date("due_date", { mode: "string" }),
    /** RENTAL only: when the customer picks the piece up, and when it is due back. */
    pickupDate: date("pickup_date", { mode: "string" }),
    dueBackDate: date("due_back_date", { mode: "string" }),
    // The customer-facing tracking link /track/{token}: 32 random bytes, base64url. Unguessable,
    // so the link alone grants reading that one order's status; never part of the API's JSON.
    trackingToken: text("tracking_token").notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // Serves the default list (last updated first) and keyset pages; the list SQL orders by
    // exactly these columns and directions so PostgreSQL reads the index in order.
    index("orders_vendor_updated_idx").on(t.vendorId, t.updatedAt.desc(), t.id.desc()),
    index("orders_customer_idx").on(t.customerId),
    uniqueIndex("orders_tracking_token_idx").on(t.trackingToken),
    uniqueIndex("orders_vendor_number_key").on(t.vendorId, t.number),
    uniqueIndex("orders_vendor_external_id_key")
      .on(t.vendorId, t.externalId)
      .where(sql`${t.externalId} is not null`),
  ],
);

/**
 * What the day sweep (order-alerts.service.ts) did once per order: a risk rule crossed
 * (`at_risk:<STATUS>:<days>`, order.at_risk), the rental passed its due-back date (`overdue`,
 * order.overdue), the due-back reminder mailed (`due_back_reminder`). Written in the transaction
 * that enqueues the event or the mail, the unique key makes that happen once across workers.
 */
export const orderAlerts = pgTable(
  "order_alerts",
  {
    orderId: text("order_id")
      .notNull()
      .references(() => orders.id, { onDelete: "cascade" }),
    vendorId: text("vendor_id")
      .notNull()
      .references(() => vendors.id, { onDelete: "cascade" }),
    kind: text("kind").notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.orderId, t.kind] }), index("order_alerts_vendor_idx").on(t.vendorId)],
);

/** The status history of an order, oldest first; never updated, only appended. */
export const orderUpdates = pgTable(
  "order_updates",
  {
    // Identity, not a CUID: it orders entries written in the same millisecond and is never exposed.
    seq: bigint("seq", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    orderId: text("order_id")
      .notNull()
      .references(() => orders.id, { onDelete: "cascade" }),
    status: text("status").notNull(),
    message: text("message"),
    imageUrl: text("image_url"),
    createdAt: createdAt(),
  },
  (t) => [index("order_updates_order_idx").on(t.orderId, t.seq)],
);
