import { and, eq, type SQL, sql } from "drizzle-orm";
import { type Executor, queryRows } from "../../db/client.ts";
import { afterCursor, keysetOrder } from "../../db/keyset.ts";
import { orders, orderUpdates } from "../../db/schema/index.ts";
import { isoTimestamp } from "../../db/sql.ts";
import type { Cursor } from "../../lib/cursor.ts";
import { containsPattern } from "../../lib/search.ts";
import { orderJsonSql } from "./orders.presenter.ts";

export type OrderRow = typeof orders.$inferSelect;

export interface OrderJsonRow {
  /** The order's JSON text, rendered by the SQL presenter. */
  json: string;
  id: string;
  updatedAt: string;
}

export interface ListOrdersFilter {
  limit: number;
  cursor?: Cursor | undefined;
  updatedSince?: Date | undefined;
  /** With updatedSince: only rows stamped at or before this sync horizon (db/sync-horizon.ts). */
  horizon?: string | undefined;
  /** Only this customer's orders. */
  customerId?: string | undefined;
  /** Only orders in one of these statuses. */
  statuses?: readonly string[] | undefined;
  /** Orders whose customer name, e-mail or phone, or model, contains this text (case-insensitive). */
  search?: string | undefined;
}

/**
 * One page of orders, most recently updated first, as JSON text: a single statement whatever the
 * page length. Fetches `limit + 1` rows so the caller knows whether another page follows. The
 * ORDER BY matches orders_vendor_updated_idx exactly (DESC NULLS LAST) so it is read in order.
 */
export async function listOrderJson(
  db: Executor,
  vendorId: string,
  filter: ListOrdersFilter,
): Promise<OrderJsonRow[]> {
  return queryRows<OrderJsonRow>(db, listOrderJsonQuery(vendorId, filter));
}

/** The statement behind listOrderJson; exported so bench/ can run the very same SQL. */
export function listOrderJsonQuery(vendorId: string, filter: ListOrdersFilter): SQL {
  const conditions = [sql`o.vendor_id = ${vendorId}`];
  if (filter.updatedSince)
    conditions.push(sql`o.updated_at >= ${filter.updatedSince.toISOString()}::timestamptz`);
  if (filter.horizon) conditions.push(sql`o.updated_at <= ${filter.horizon}::timestamptz`);
  if (filter.customerId) conditions.push(sql`o.customer_id = ${filter.customerId}`);
  if (filter.search) {
    const p = containsPattern(filter.search);
    conditions.push(
      sql`(c.name ilike ${p} or c.email ilike ${p} or c.phone ilike ${p} or o.customer_phone ilike ${p} or o.model ilike ${p})`,
    );
  }
  if (filter.statuses?.length)
    conditions.push(
      sql`o.status in (${sql.join(
        filter.statuses.map((s) => sql`${s}`),
        sql`, `,
      )})`,
    );
  if (filter.cursor) conditions.push(afterCursor(sql`o.updated_at`, sql`o.id`, filter.cursor, "desc"));
  return sql`select ${orderJsonSql} as json, o.id as "id", ${isoTimestamp(sql`o.updated_at`)} as "updatedAt"
        from orders o left join customers c on c.id = o.customer_id
        where ${sql.join(conditions, sql` and `)}
        order by ${sql.join(keysetOrder(sql`o.updated_at`, sql`o.id`, "desc"), sql`, `)}
        limit ${filter.limit + 1}`;
}

export async function findOrderJson(db: Executor, vendorId: string, id: string): Promise<string | undefined> {
  const [row] = await queryRows<{ json: string }>(db, findOrderJsonQuery(vendorId, id));
  return row?.json;
}

/** The statement behind findOrderJson; exported so bench/ can run the very same SQL. */
export function findOrderJsonQuery(vendorId: string, id: string): SQL {
  return sql`select ${orderJsonSql} as json
        from orders o left join customers c on c.id = o.customer_id
        where o.vendor_id = ${vendorId} and o.id = ${id}`;
}

export async function insertOrder(db: Executor, row: typeof orders.$inferInsert): Promise<void> {
  await db.insert(orders).values(row);
}

export async function insertOrderUpdate(db: Executor, row: typeof orderUpdates.$inferInsert): Promise<void> {
  await db.insert(orderUpdates).values(row);
}

/** The order, locked until the transaction ends, so concurrent status moves apply one at a time. */
export async function findOrderForUpdate(
  db: Executor,
  vendorId: string,
  id: string,
): Promise<OrderRow | undefined> {
  const [row] = await db
    .select()
    .from(orders)
    .where(and(eq(orders.vendorId, vendorId), eq(orders.id, id)))
    .for("update");
  return row;
}

export async function setOrderStatus(
  db: Executor,
  vendorId: string,
  id: string,
  status: string,
  at: Date,
): Promise<void> {
  await db
    .update(orders)
    .set({ status, updatedAt: at })
    .where(and(eq(orders.vendorId, vendorId), eq(orders.id, id)));
}

export type OrderDetails = Partial<
  Pick<OrderRow, "model" | "size" | "color" | "description" | "specialRequests">
>;

export async function setOrderDetails(
  db: Executor,
  vendorId: string,
  id: string,
  details: OrderDetails,
  at: Date,
): Promise<void> {
  await db
    .update(orders)
    .set({ ...details, updatedAt: at })
    .where(and(eq(orders.vendorId, vendorId), eq(orders.id, id)));
}

/**
 * Erasure (CONTRACT 5): the customer's orders stay for the shop's books, without the customer and
 * without the contact details copied onto the order at creation.
 */
export async function detachOrdersFromCustomer(db: Executor, vendorId: string, customerId: string) {
  await db
    .update(orders)
    .set({ customerId: null, customerPhone: null, weddingDate: null })
    .where(and(eq(orders.vendorId, vendorId), eq(orders.customerId, customerId)));
}

/** The order's tracking token, for the vendor's own order only. */
export async function findOrderTrackingToken(
  db: Executor,
  vendorId: string,
  id: string,
): Promise<string | undefined> {
  const [row] = await db
    .select({ token: orders.trackingToken })
    .from(orders)
    .where(and(eq(orders.vendorId, vendorId), eq(orders.id, id)));
  return row?.token;
}

export interface TrackedOrderRow {
  vendorName: string;
  /** The shop's time zone: the tracking page shows times in it. */
  timeZone: string;
  type: string;
  model: string | null;
  status: string;
  updatedAt: string;
  /** JSON text of the status history, oldest first: [{status, message, imageUrl, createdAt}]. */
  updates: string;
}

/**
 * What the customer-facing tracking page shows, by token and nothing else: the vendor's name and
 * the order's model, type, status and history. Customer details are deliberately not selected.
 */
export async function findTrackedOrder(db: Executor, token: string): Promise<TrackedOrderRow | undefined> {
  const [row] = await queryRows<TrackedOrderRow>(
    db,
    sql`select v.name as "vendorName", v.time_zone as "timeZone", o.type as "type", o.model as "model", o.status as "status",
          ${isoTimestamp(sql`o.updated_at`)} as "updatedAt",
          (select coalesce(json_agg(json_build_object(
             'status', u.status, 'message', u.message, 'imageUrl', u.image_url,
             'createdAt', ${isoTimestamp(sql`u.created_at`)}
           ) order by u.seq), '[]'::json)::text
           from order_updates u where u.order_id = o.id) as "updates"
        from orders o join vendors v on v.id = o.vendor_id
        where o.tracking_token = ${token}`,
  );
  return row;
}
