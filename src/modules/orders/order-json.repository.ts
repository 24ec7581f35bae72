// Where an order becomes JSON. It is SQL because the order list is the hottest read:
// PostgreSQL builds each order's JSON (history included) and Node passes the text through, which
// measured ~2x faster than mapping rows in JS (docs/decisions/0001). API responses and the order event
// payloads all come from this fragment, so they cannot disagree. It expects the order aliased `o`
// left-joined to its customer aliased `c` (an erased customer leaves the order without one).
// The text is compact and its keys come in OrderSchema's order; orders.presenter.ts parses it
// where a value is needed (an event's payload).
import { type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { compactJsonArray, compactJsonObject, isoTimestamp } from "../../db/sql.ts";

const orderUpdateJsonSql = compactJsonObject([
  ["status", sql`u.status`],
  ["message", sql`u.message`],
  ["imageUrl", sql`u.image_url`],
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
}): SQL {
  return sql`jsonb_build_object('id', u.id, 'number', u.number, 'status', ${move.status}::text, 'previousStatus', u.previous_status,
    'customerId', u.customer_id, 'externalId', u.external_id, 'metadata', coalesce(u.metadata, '{}'::jsonb),
    'updatedAt', ${isoTimestamp(sql`u.updated_at`)},
    'message', ${move.message}::text, 'imageUrl', ${move.imageUrl}::text)`;
}
