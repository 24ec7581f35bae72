import { and, eq, type SQL, sql } from "drizzle-orm";
import { type Executor, queryRows } from "../../db/client.ts";
import { orders, orderUpdates } from "../../db/schema/index.ts";
import { isoTimestamp } from "../../db/sql.ts";
import type { Cursor } from "../../lib/cursor.ts";
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
  updatedSince?: string | undefined;
  /** Only this customer's orders (the dashboard's customer page). */
  customerId?: string | undefined;
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
  if (filter.updatedSince) conditions.push(sql`o.updated_at >= ${filter.updatedSince}::timestamptz`);
  if (filter.customerId) conditions.push(sql`o.customer_id = ${filter.customerId}`);
  if (filter.cursor)
    conditions.push(sql`(o.updated_at, o.id) < (${filter.cursor.t}::timestamptz, ${filter.cursor.id})`);
  return sql`select ${orderJsonSql} as json, o.id as "id", ${isoTimestamp(sql`o.updated_at`)} as "updatedAt"
        from orders o join customers c on c.id = o.customer_id
        where ${sql.join(conditions, sql` and `)}
        order by o.updated_at desc nulls last, o.id desc nulls last
        limit ${filter.limit + 1}`;
}

export async function findOrderJson(db: Executor, vendorId: string, id: string): Promise<string | undefined> {
  const [row] = await queryRows<{ json: string }>(db, findOrderJsonQuery(vendorId, id));
  return row?.json;
}

/** The statement behind findOrderJson; exported so bench/ can run the very same SQL. */
export function findOrderJsonQuery(vendorId: string, id: string): SQL {
  return sql`select ${orderJsonSql} as json
        from orders o join customers c on c.id = o.customer_id
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

export async function setOrderStatus(db: Executor, id: string, status: string, at: Date): Promise<void> {
  await db.update(orders).set({ status, updatedAt: at }).where(eq(orders.id, id));
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
    sql`select v.name as "vendorName", o.type as "type", o.model as "model", o.status as "status",
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
