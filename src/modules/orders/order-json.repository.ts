// Where an order becomes JSON. It is SQL because the order list is the hottest read:
// PostgreSQL builds each order's JSON (history included) and Node passes the text through, which
// measured ~2x faster than mapping rows in JS (docs/decisions/0001). API responses and the order event
// payloads all come from this fragment, so they cannot disagree. It expects the order aliased `o`
// left-joined to its customer aliased `c` (an erased customer leaves the order without one).
// The text is compact and its keys come in OrderSchema's order; orders.presenter.ts parses it
// where a value is needed (an event's payload).
import { type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { compactJsonArray, compactJsonObject, isoTimestamp } from "../../db/sql.ts";
import { defaultLeadDays } from "./order-dates.ts";
import { orderTypes } from "./orders.workflow.ts";

/**
 * The shop's lead time in days for order `o`'s type (vendors.lead_times, else the default of
 * order-dates.ts): one primary-key lookup of the order's shop.
 */
export const leadDaysSql = sql`(select coalesce((v.lead_times ->> o.type)::int, case o.type ${sql.raw(
  orderTypes.map((t) => `when '${t}' then ${defaultLeadDays[t]}`).join(" "),
)} end) from vendors v where v.id = o.vendor_id)`;

/**
 * The order's due date (CONTRACT 12): the one the shop set, else the customer's wedding date
 * (the order's own, given at creation, for a customer who has none) minus the lead time.
 */
export const dueDateSql = sql`coalesce(o.due_date, coalesce(c.wedding_date, o.wedding_date) - ${leadDaysSql})`;

/**
 * The photos a history entry `u` shows (CONTRACT 12), oldest first, as compact JSON text: `[]`
 * for none. One probe of order_photos_update_idx per entry.
 */
export const photosOfEntrySql = compactJsonArray(
  compactJsonObject([
    ["id", sql`p.id`],
    ["url", sql`p.url`],
    ["thumbnailUrl", sql`p.thumbnail_url`],
  ]),
  sql`from order_photos p where p.update_seq = u.seq`,
  sql`p.created_at, p.id`,
);

const orderUpdateJsonSql = compactJsonObject([
  ["status", sql`u.status`],
  ["message", sql`u.message`],
  ["imageUrl", sql`u.image_url`],
  ["photos", photosOfEntrySql, "json"],
  ["createdAt", isoTimestamp(sql`u.created_at`)],
]);

const customerJsonSql = sql`case when c.id is null then null else ${compactJsonObject([
  ["name", sql`c.name`],
  ["email", sql`c.email`],
])} end`;

/** The order's JSON with its history taken `from` a relation aliased `u` (entries of order `o`). */
const orderJsonWithHistory = (from: SQL) =>
  compactJsonObject([
    ["id", sql`o.id`],
    ["number", sql`o.number`],
    ["type", sql`o.type`],
    ["status", sql`o.status`],
    ["model", sql`o.model`],
    ["size", sql`o.size`],
    ["color", sql`o.color`],
    ["description", sql`o.description`],
    ["specialRequests", sql`o.special_requests`],
    ["dueDate", dueDateSql],
    ["pickupDate", sql`o.pickup_date`],
    ["dueBackDate", sql`o.due_back_date`],
    ["customerId", sql`o.customer_id`],
    ["customer", customerJsonSql, "json"],
    ["externalId", sql`o.external_id`],
    // Compact, as the rest of the text (jsonb's own text has spaces); `{}` without metadata, as
    // Stripe's. Only an order with metadata reads its pairs.
    [
      "metadata",
      sql`coalesce((select '{' || string_agg(to_json(m.key)::text || ':' || to_json(m.value)::text, ',') || '}'
                    from jsonb_each_text(o.metadata) m), '{}')`,
      "json",
    ],
    ["updates", compactJsonArray(orderUpdateJsonSql, from, sql`u.seq`), "json"],
    ["createdAt", isoTimestamp(sql`o.created_at`)],
    ["updatedAt", isoTimestamp(sql`o.updated_at`)],
  ]);

export const orderJsonSql = orderJsonWithHistory(sql`from order_updates u where u.order_id = o.id`);

/**
 * The same JSON for an order inserted by the statement itself, whose history entries come from
 * the statement's CTE `h` (a statement does not see its own inserts in the tables): `o` and `c`
 * are then the inserted order and its customer.
 */
export const newOrderJsonSql = orderJsonWithHistory(sql`from h u where u.order_id = o.id`);

/**
 * The order.status_changed payload (CONTRACT 7) as jsonb, for a status move made in SQL: `u` is
 * the updated order with its `previous_status`; the move's status, message and photo are given.
 * Its shape is OrderStatusChangedSchema.
 */
export function orderStatusChangeSql(move: {
  status: SQLWrapper;
  message: SQLWrapper;
  imageUrl: SQLWrapper;
  /** The entry's photos, `[{ id, url, thumbnailUrl }]` as JSON text. */
  photos: SQLWrapper;
}): SQL {
  return sql`jsonb_build_object('id', u.id, 'number', u.number, 'status', ${move.status}::text, 'previousStatus', u.previous_status,
    'customerId', u.customer_id, 'externalId', u.external_id, 'metadata', coalesce(u.metadata, '{}'::jsonb),
    'updatedAt', ${isoTimestamp(sql`u.updated_at`)},
    'message', ${move.message}::text, 'imageUrl', ${move.imageUrl}::text, 'photos', ${move.photos}::jsonb)`;
}
