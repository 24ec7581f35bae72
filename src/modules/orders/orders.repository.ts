import { and, eq, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { afterCursor, keysetOrder } from "../../db/keyset.ts";
import { preparedStatement } from "../../db/prepared.ts";
import { queryRows } from "../../db/query-rows.ts";
import { orders } from "../../db/schema/index.ts";
import { isoTimestamp, writeStampSql } from "../../db/sql.ts";
import { MAX_PAGE_SIZE } from "../../http/common-schemas.ts";
import type { Cursor } from "../../lib/cursor.ts";
import { newId } from "../../lib/ids.ts";
import { containsPattern } from "../../lib/search.ts";
import { customerMailRow, mailCte, notifyMailWhenAny } from "../../mail/outbox.repository.ts";
import { eventCtes, eventRow, notifyWhenQueued } from "../../outbox/outbox-write.repository.ts";
import { activityCte, actorValues } from "../activity/activity.repository.ts";
import { customerJsonbSql } from "../customers/customers.repository.ts";
import { alertDueSql } from "./order-alerts.repository.ts";
import {
  dueDateSql,
  newOrderJsonSql,
  orderJsonSql,
  orderStatusChangeSql,
  photosOfEntrySql,
} from "./order-json.repository.ts";
import type { OrderStatus } from "./orders.workflow.ts";

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
  /** Orders whose customer name, e-mail or phone, or model, contains this text (case-insensitive), or whose number it is. */
  search?: string | undefined;
  /** Only the order with this number. */
  number?: number | undefined;
  /** Only the order with this externalId. */
  externalId?: string | undefined;
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

/** A first page of orders as one JSON text, with what the next page's cursor is made of. */
export interface OrderJsonPage {
  /** The orders' JSON, comma-separated (the inside of the list's array). */
  json: string;
  /** The last order of the page when another page follows, else undefined. */
  next: { id: string; updatedAt: string } | undefined;
  /** What the page is made of (firstOrderPageVersion gives the same without building the page). */
  version: string;
}

/**
 * The first page of the list without filters (what integrations poll): the orders chosen by their
 * ids and stamps, then their JSON, joined by PostgreSQL into one text so Node passes it through
 * instead of parsing a row per order.
 */
export async function firstOrderPageJson(
  db: Executor,
  vendorId: string,
  limit: number,
): Promise<OrderJsonPage> {
  const [row] = await firstPageJson(db, { vendorId, limit });
  if (!row) throw new Error("first page: no answer");
  return {
    json: row.json,
    next: row.n > limit && row.last_id && row.last_t ? { id: row.last_id, updatedAt: row.last_t } : undefined,
    version: row.version,
  };
}

/** The largest page and the row beyond it, written into the statements (and vendor_newest_orders' ROWS). */
const FIRST_PAGE_ROWS = MAX_PAGE_SIZE + 1;

/**
 * The first page's rows, newest first, the row beyond the page included (it decides nextCursor):
 * `r` (id, "updatedAt", "customerUpdatedAt", rn, and with `whole` the order and its customer as
 * row values, ro and rc).
 *
 * The orders come from vendor_newest_orders (migrations/0038), which reads them from
 * orders_vendor_updated_idx in order and stops after FIRST_PAGE_ROWS, whatever the statistics say:
 * planned here, for a shop of the average size, the read could sort all of a big shop's orders.
 * Their customers are joined to those rows alone.
 *
 * Planned once per connection, in every database: the vendor goes in as an InitPlan and the rows
 * read are bounded by a constant, so a custom plan knows no more than the generic one and
 * PostgreSQL keeps that after five runs; the page size only filters what was read. With the size as
 * the statement's limit, PostgreSQL planned every request anew in a database of few shops (a custom
 * plan, seeing the size, looked cheaper than one that could not), and the page's JSON, a subplan
 * per field, history and photo, is costly to plan: the statement takes ~1 ms less of PostgreSQL's
 * time a run (bench/history/2026-12.md). The JSON is built above this, for the page's rows alone
 * (test/db/first-page-plan.test.ts), from the row values read here: reading each order and its
 * customer again by key cost another ~0.9 ms a page.
 *
 * Each row's customer is read by its key, in a lateral subquery that `offset 0` keeps apart (a plain
 * join is flattened): joined, PostgreSQL hashed the page's orders against a scan of every customer
 * of every shop wherever the table held fewer than ~25,000. With 11,700 customers the JSON page
 * took 7.4 ms a run that way and 4.1 ms by key; with 240, 3.6 and 4.0 ms. The lookups are the
 * bounded cost: 101 whatever the table holds.
 */
const firstPageRowsSql = (vendorId: SQLWrapper, limit: SQLWrapper, { whole = false } = {}) => sql`r as (
      select o.id, o."updatedAt", (oc.c).updated_at as "customerUpdatedAt", o.rn${whole ? sql`, o.ro, oc.c as rc` : sql``} from (
        select o.id, o.updated_at as "updatedAt", o.customer_id,${whole ? sql` o as ro,` : sql``}
               row_number() over (order by ${sql.join(keysetOrder(sql`o.updated_at`, sql`o.id`, "desc"), sql`, `)}) as rn
        from vendor_newest_orders((select ${vendorId}::text), ${sql.raw(String(FIRST_PAGE_ROWS))}) o
      ) o left join lateral (select c from customers c where c.id = o.customer_id offset 0) oc on true
      where o.rn <= ${limit}::int + 1)`;

/**
 * What a first page is made of, as one hash: each row's id and version stamps (the order's
 * updated_at, which every change to the order or its history moves, and its customer's, whose
 * name and contact the order shows), in page order, the row beyond the page included (it decides
 * nextCursor). Over `r`.
 */
const pageVersionSql = sql`md5(coalesce(string_agg(r.id || '|' || r."updatedAt"::text || '|' || coalesce(r."customerUpdatedAt"::text, ''), ',' order by r.rn), ''))`;

// Each page order's JSON is built from its row values in a subquery of its own (offset 0 keeps it
// one), run only for the rows of the page: the row beyond it decides nextCursor alone. A customer
// row value of null (an order without one) is a row of nulls: "customer" is null.
const firstPageJson = preparedStatement<{
  json: string;
  n: number;
  last_id: string | null;
  last_t: string | null;
  version: string;
}>(
  "list_orders_first_page_json",
  (p) => sql`with ${firstPageRowsSql(p.vendorId as SQLWrapper, p.limit as SQLWrapper, { whole: true })}
    select coalesce(string_agg(j.json, ',' order by r.rn) filter (where r.rn <= ${p.limit}::int), '') as json,
           count(*)::int as n,
           max(r.id) filter (where r.rn = ${p.limit}::int) as last_id,
           ${isoTimestamp(sql`max(r."updatedAt") filter (where r.rn = ${p.limit}::int)`)} as last_t,
           ${pageVersionSql} as version
    from r left join lateral (
      select ${orderJsonSql} as json
      from (select (r.ro).*) o, (select (r.rc).*) c
      where r.rn <= ${p.limit}::int
      offset 0
    ) j on true`,
);

/** The first page's version alone: the same rows, no JSON built (a poll that changed nothing). */
export async function firstOrderPageVersion(db: Executor, vendorId: string, limit: number): Promise<string> {
  const [row] = await firstPageVersion(db, { vendorId, limit });
  if (!row) throw new Error("first page version: no answer");
  return row.version;
}

const firstPageVersion = preparedStatement<{ version: string }>(
  "list_orders_first_page_version",
  (p) =>
    sql`with ${firstPageRowsSql(p.vendorId as SQLWrapper, p.limit as SQLWrapper)} select ${pageVersionSql} as version from r`,
);

/** The statement behind listOrderJson (a limit given as SQL is the page's limit + 1 already). */
export function listOrderJsonQuery(
  vendorId: string | SQL,
  filter: Omit<ListOrdersFilter, "limit"> & { limit: number | SQL },
  /** "updatedAt" as ISO text (the default), or as the timestamp for a caller that formats one. */
  options: { updatedAt: "iso" | "timestamp" } = { updatedAt: "iso" },
): SQL {
  const conditions = [sql`o.vendor_id = ${vendorId}`];
  if (filter.updatedSince)
    conditions.push(sql`o.updated_at >= ${filter.updatedSince.toISOString()}::timestamptz`);
  if (filter.horizon) conditions.push(sql`o.updated_at <= ${filter.horizon}::timestamptz`);
  if (filter.customerId) conditions.push(sql`o.customer_id = ${filter.customerId}`);
  if (filter.number !== undefined) conditions.push(sql`o.number = ${filter.number}`);
  if (filter.externalId !== undefined) conditions.push(sql`o.external_id = ${filter.externalId}`);
  if (filter.search) {
    const p = containsPattern(filter.search);
    // "1001" or "#1001" finds order 1001 as well as text containing it.
    const number = /^#?\d{1,9}$/.test(filter.search.trim())
      ? Number(filter.search.trim().replace("#", ""))
      : null;
    conditions.push(
      sql`(c.name ilike ${p} or c.email ilike ${p} or c.phone ilike ${p} or o.customer_phone ilike ${p} or o.model ilike ${p}${
        number === null ? sql`` : sql` or o.number = ${number}`
      })`,
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
  const updatedAt = options.updatedAt === "iso" ? isoTimestamp(sql`o.updated_at`) : sql`o.updated_at`;
  // The customer's stamp for a page's version (firstPageJson); unused, and so not read, elsewhere.
  const customerStamp =
    options.updatedAt === "timestamp" ? sql`, c.updated_at as "customerUpdatedAt"` : sql``;
  return sql`select ${orderJsonSql} as json, o.id as "id", ${updatedAt} as "updatedAt"${customerStamp}
        from orders o left join customers c on c.id = o.customer_id
        where ${sql.join(conditions, sql` and `)}
        order by ${sql.join(keysetOrder(sql`o.updated_at`, sql`o.id`, "desc"), sql`, `)}
        limit ${typeof filter.limit === "number" ? filter.limit + 1 : filter.limit}`;
}

export async function findOrderJson(db: Executor, vendorId: string, id: string): Promise<string | undefined> {
  const [row] = await queryRows<{ json: string }>(db, findOrderJsonQuery(vendorId, id));
  return row?.json;
}

/** The order's JSON with its row locked until the transaction ends (an If-Match comparison). */
export async function lockOrderJson(db: Executor, vendorId: string, id: string): Promise<string | undefined> {
  const [row] = await queryRows<{ json: string }>(
    db,
    sql`${findOrderJsonQuery(vendorId, id)} for update of o`,
  );
  return row?.json;
}

/** The statement behind findOrderJson. */
function findOrderJsonQuery(vendorId: string, id: string): SQL {
  return sql`select ${orderJsonSql} as json
        from orders o left join customers c on c.id = o.customer_id
        where o.vendor_id = ${vendorId} and o.id = ${id}`;
}

export interface NewOrder {
  id: string;
  vendorId: string;
  type: string;
  model: string | null;
  size: string | null;
  color: string | null;
  description: string | null;
  specialRequests: string | null;
  customerPhone: string | null;
  weddingDate: string | null;
  trackingToken: string;
  externalId: string | null;
  /** JSON text of the metadata object, or null. */
  metadata: string | null;
  /** CONTRACT 12, Dates of an order (YYYY-MM-DD): pickupDate and dueBackDate only for RENTAL. */
  dueDate: string | null;
  pickupDate: string | null;
  dueBackDate: string | null;
  /**
   * Stamps the order, its first history entry, its customer (if new) and the events (db/sql.ts
   * writeStampSql: never before the statement starts).
   */
  at: Date;
  /** The order.created event's id. */
  eventId: string;
}

/**
 * The customer an order is for: the shop's customer `linkId` when given; else the one with this
 * e-mail, else (CONTRACT 12) the one with this phone in E.164 whose e-mail does not differ; else a
 * new one made of these fields.
 */
export interface OrderCustomer {
  /** The shop's customer named by the request (customerId): nothing is matched or made. */
  linkId: string | null;
  id: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  phoneE164: string | null;
  weddingDate: string | null;
  /** The customer.created event's id, used only when the customer is new. */
  eventId: string;
}

/**
 * One statement: links the customer (OrderCustomer) or inserts `customer` with customer.created,
 * takes the shop's next order number (a row update of the vendor, whose lock hands numbers out
 * one at a time until commit: no gap, no duplicate, across processes), inserts the order in
 * ORDERED with its first history entry and
 * order.created (its payload is the order's JSON, history included), fans both events out and
 * NOTIFYs when a delivery was queued. Returns the order's JSON; undefined when `linkId` names no
 * customer of the shop, or when a concurrent insert took the e-mail after this statement's
 * snapshot (the unique index refused ours): run it again, and the next statement links to that
 * customer. Nothing is written then, and no number taken.
 */
export async function insertOrderForCustomer(
  db: Executor,
  order: NewOrder,
  customer: OrderCustomer,
): Promise<{ json: string; alertsDue: boolean } | "external_id_taken" | undefined> {
  const [row] = await insertOrderStatement(db, {
    vendorId: order.vendorId,
    at: order.at.toISOString(),
    orderId: order.id,
    type: order.type,
    model: order.model,
    size: order.size,
    color: order.color,
    description: order.description,
    specialRequests: order.specialRequests,
    customerPhone: order.customerPhone,
    weddingDate: order.weddingDate,
    trackingToken: order.trackingToken,
    externalId: order.externalId,
    metadata: order.metadata,
    dueDate: order.dueDate,
    pickupDate: order.pickupDate,
    dueBackDate: order.dueBackDate,
    orderEventId: order.eventId,
    linkId: customer.linkId,
    customerPhoneE164: customer.phoneE164,
    customerId: customer.id,
    customerName: customer.name,
    customerEmail: customer.email,
    customerPhoneNew: customer.phone,
    customerWeddingDate: customer.weddingDate,
    customerEventId: customer.eventId,
    activityId: newId(),
    ...actorValues(),
  });
  if (row?.external_id_taken) return "external_id_taken";
  return row?.json ? { json: row.json, alertsDue: row.alerts_due === true } : undefined;
}

const insertOrderStatement = preparedStatement<{
  json: string | null;
  external_id_taken: boolean;
  alerts_due: boolean | null;
}>("insert_order_for_customer", (p) => {
  const at = sql`(select at from t)`;
  // The customer is found by one index lookup at most: the branches of `found` run in order and
  // stop at the first row (customers_pkey, customers_vendor_email_key, customers_vendor_phone_idx).
  // A taken externalId is seen before anything is written (one index lookup, only when given), so
  // the statement does not fail: a failed statement would abort an Idempotency-Key request's
  // transaction. A concurrent create of the same externalId still meets the unique index.
  return sql`with t as (select ${writeStampSql(p.at)} as at), ext as (
      select 1 from orders x
      where ${p.externalId}::text is not null and x.vendor_id = ${p.vendorId}::text
        and x.external_id = ${p.externalId}::text
    ), found as (
      (select c.id, c.name, c.email, c.wedding_date from customers c
       where c.vendor_id = ${p.vendorId}::text and c.id = ${p.linkId}::text)
      union all
      (select c.id, c.name, c.email, c.wedding_date from customers c
       where ${p.linkId}::text is null and ${p.customerEmail}::text is not null
         and c.vendor_id = ${p.vendorId}::text and lower(c.email) = lower(${p.customerEmail}::text)
       limit 1)
      union all
      (select c.id, c.name, c.email, c.wedding_date from customers c
       where ${p.linkId}::text is null and ${p.customerPhoneE164}::text is not null
         and c.vendor_id = ${p.vendorId}::text and c.phone_e164 = ${p.customerPhoneE164}::text
         and (c.email is null or ${p.customerEmail}::text is null)
       order by c.created_at, c.id
       limit 1)
      limit 1
    ), nc as (
      insert into customers (id, vendor_id, name, email, phone, phone_e164, wedding_date, created_at, updated_at)
      select ${p.customerId}::text, ${p.vendorId}::text, ${p.customerName}::text, ${p.customerEmail}::text,
             ${p.customerPhoneNew}::text, ${p.customerPhoneE164}::text, ${p.customerWeddingDate}::date, ${at}, ${at}
      where ${p.linkId}::text is null and not exists (select 1 from found) and not exists (select 1 from ext)
      on conflict do nothing
      returning *
    ), c as (
      select id, name, email, wedding_date from nc
      union all select id, name, email, wedding_date from found where not exists (select 1 from ext)
    ), num as (
      update vendors set last_order_number = last_order_number + 1
      where id = ${p.vendorId}::text and exists (select 1 from c)
      returning last_order_number as number
    ), o as (
      insert into orders (id, vendor_id, customer_id, number, type, status, model, size, color, description,
                          special_requests, customer_phone, wedding_date, tracking_token, external_id, metadata,
                          due_date, pickup_date, due_back_date, created_at, updated_at)
      select ${p.orderId}::text, ${p.vendorId}::text, c.id, num.number, ${p.type}::text, 'ORDERED', ${p.model}::text,
             ${p.size}::text, ${p.color}::text, ${p.description}::text, ${p.specialRequests}::text,
             ${p.customerPhone}::text, ${p.weddingDate}::date, ${p.trackingToken}::text, ${p.externalId}::text,
             ${p.metadata}::jsonb, ${p.dueDate}::date, ${p.pickupDate}::date, ${p.dueBackDate}::date, ${at}, ${at}
      from c cross join num
      returning *
    ), h as (
      insert into order_updates (order_id, status, message, created_at)
      select o.id, 'ORDERED', 'Order created', ${at} from o
      returning order_id, seq, status, message, image_url, created_at
    ), oj as (
      select ${newOrderJsonSql} as json from o join c on c.id = o.customer_id
    ), ${eventCtes(
      sql`${eventRow("customer.created", {
        id: sql`${p.customerEventId}`,
        vendorId: sql`${p.vendorId}`,
        data: customerJsonbSql("nc"),
        createdAt: at,
        from: sql`from nc`,
      })}
      union all
      ${eventRow("order.created", {
        id: sql`${p.orderEventId}`,
        vendorId: sql`${p.vendorId}`,
        data: sql`oj.json::jsonb`,
        createdAt: at,
        from: sql`from oj`,
      })}`,
    )}, ${activityCte({
      id: sql`${p.activityId}`,
      vendorId: sql`o.vendor_id`,
      at: sql`o.created_at`,
      action: "order.created",
      subjectId: sql`o.id`,
      detail: sql`jsonb_build_object('number', o.number)`,
      actorKind: sql`${p.actorKind}`,
      actorId: sql`${p.actorId}`,
      from: sql`from o`,
    })}
    select (select json from oj) as json, exists (select 1 from ext) as external_id_taken,
      (select ${alertDueSql({
        type: sql`o.type`,
        status: sql`o.status`,
        dueBack: sql`o.due_back_date`,
        wedding: sql`coalesce(c.wedding_date, o.wedding_date)`,
        today: sql`(o.created_at at time zone v.time_zone)::date`,
      })} from o join c on c.id = o.customer_id join vendors v on v.id = o.vendor_id) as alerts_due,
      ${notifyWhenQueued}`;
});

export type StatusMove =
  | {
      outcome: "moved";
      version: {
        id: string;
        updatedAt: string;
        customerId: string | null;
        customer: { name: string; email: string | null } | null;
      };
    }
  | { outcome: "refused"; status: string; type: string }
  | { outcome: "not_found" };

/**
 * One statement: locks the vendor's order, and when its `type:status` is one of `allowedFrom`
 * (the workflow's moves to `to`, worked out by the caller) sets the status and updated_at (never
 * backwards: at least a millisecond after the current one), appends the history entry and, when
 * the status changes, order.status_changed (`event` builds its payload over the updated row `u`),
 * fanned out, with a NOTIFY when a delivery was queued.
 */
export async function moveOrderStatus(
  db: Executor,
  move: {
    vendorId: string;
    id: string;
    to: OrderStatus;
    /** `TYPE:STATUS` words (an array literal of them is passed as one parameter). */
    allowedFrom: string[];
    message: string | null;
    imageUrl: string | null;
    /**
     * Photos of this order the entry shows (checked and locked by the caller), and their
     * `[{ id, url, thumbnailUrl }]` as JSON text for the event and the mail.
     */
    photoIds: readonly string[];
    photosJson: string;
    at: Date;
    eventId: string;
    /**
     * The customer mail's id and one-click unsubscribe token (and its hash), made only when the
     * move carries a message; the statement writes the mail only if the shop turned customer mail
     * on and the customer may receive it (src/mail/README.md).
     */
    mail: { id: string; token: string; tokenHash: string } | null;
  },
): Promise<StatusMove> {
  const [row] = await moveStatusStatement(db, {
    vendorId: move.vendorId,
    id: move.id,
    to: move.to,
    allowedFrom: `{${move.allowedFrom.join(",")}}`,
    message: move.message,
    imageUrl: move.imageUrl,
    photoIds: `{${move.photoIds.join(",")}}`,
    photos: move.photosJson,
    at: move.at.toISOString(),
    eventId: move.eventId,
    mailId: move.mail?.id ?? null,
    mailToken: move.mail?.token ?? null,
    mailTokenHash: move.mail?.tokenHash ?? null,
    activityId: newId(),
    ...actorValues(),
  });
  if (!row) return { outcome: "not_found" };
  if (!row.moved || row.updated_at === null)
    return { outcome: "refused", status: row.status, type: row.type };
  // What the order's version (order-version.ts) is made of, after the move.
  const customer = row.customer_name === null ? null : { name: row.customer_name, email: row.customer_email };
  return {
    outcome: "moved",
    version: { id: move.id, updatedAt: row.updated_at, customerId: row.customer_id, customer },
  };
}

const moveStatusStatement = preparedStatement<{
  status: string;
  type: string;
  moved: boolean;
  updated_at: string | null;
  customer_id: string | null;
  customer_name: string | null;
  customer_email: string | null;
}>(
  "move_order_status",
  (p) => sql`with cur as (
      select o.id, o.status, o.type from orders o
      where o.vendor_id = ${p.vendorId}::text and o.id = ${p.id}::text
      for update
    ), u as (
      update orders o
      set status = ${p.to}::text,
          updated_at = greatest(${writeStampSql(p.at)}, o.updated_at + interval '1 millisecond')
      from cur
      where o.id = cur.id and (cur.type || ':' || cur.status) = any(${p.allowedFrom}::text[])
      returning o.*, cur.status as previous_status
    ), h as (
      insert into order_updates (order_id, status, message, image_url, created_at)
      select u.id, ${p.to}::text, ${p.message}::text, ${p.imageUrl}::text, u.updated_at from u
      returning order_id, status, message, image_url, created_at, seq
    ), ph as (
      update order_photos p set update_seq = h.seq from h
      where p.vendor_id = ${p.vendorId}::text and p.order_id = h.order_id
        and p.id = any(${p.photoIds}::text[]) and p.update_seq is null
      returning p.id
    ), ${eventCtes(
      eventRow("order.status_changed", {
        id: sql`${p.eventId}`,
        vendorId: sql`u.vendor_id`,
        data: orderStatusChangeSql({
          status: sql`${p.to}`,
          message: sql`${p.message}`,
          imageUrl: sql`${p.imageUrl}`,
          photos: sql`${p.photos}`,
        }),
        createdAt: sql`u.updated_at`,
        from: sql`from u where u.previous_status <> ${p.to}::text`,
      }),
    )}, ${mailCte(
      // A move with a message tells the customer, when the shop said so: no extra statement either way.
      customerMailRow("order_status", {
        id: sql`${p.mailId}`,
        token: sql`${p.mailToken}`,
        tokenHash: sql`${p.mailTokenHash}`,
        extra: sql`jsonb_build_object('number', u.number, 'orderType', u.type, 'model', u.model, 'status', ${p.to}::text,
                                      'message', ${p.message}::text, 'trackingToken', u.tracking_token,
                                      'photos', ${p.photos}::jsonb)`,
        createdAt: sql`u.updated_at`,
        from: sql`from u join vendors v on v.id = u.vendor_id join customers c on c.id = u.customer_id
                  where ${p.mailId}::text is not null and u.previous_status <> ${p.to}::text`,
      }),
    )}, ${activityCte({
      id: sql`${p.activityId}`,
      vendorId: sql`u.vendor_id`,
      at: sql`u.updated_at`,
      action: "order.status_changed",
      subjectId: sql`u.id`,
      detail: sql`jsonb_build_object('number', u.number, 'from', u.previous_status, 'to', ${p.to}::text)`,
      actorKind: sql`${p.actorKind}`,
      actorId: sql`${p.actorId}`,
      from: sql`from u`,
    })}
    select cur.status, cur.type, exists (select 1 from u) as moved,
           (select ${isoTimestamp(sql`u.updated_at`)} from u) as updated_at,
           (select u.customer_id from u) as customer_id,
           (select c.name from u join customers c on c.id = u.customer_id) as customer_name,
           (select c.email from u join customers c on c.id = u.customer_id) as customer_email,
           ${notifyWhenQueued}, ${notifyMailWhenAny} from cur`,
);

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

export type OrderDetails = Partial<
  Pick<
    OrderRow,
    | "model"
    | "size"
    | "color"
    | "description"
    | "specialRequests"
    | "externalId"
    | "metadata"
    | "dueDate"
    | "pickupDate"
    | "dueBackDate"
  >
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
export async function detachOrdersFromCustomer(
  db: Executor,
  vendorId: string,
  customerId: string,
  now: Date,
) {
  // updated_at never moves backwards, even if clocks of two processes disagree.
  await db
    .update(orders)
    .set({
      customerId: null,
      customerPhone: null,
      weddingDate: null,
      updatedAt: sql`greatest(${now.toISOString()}::timestamptz, ${orders.updatedAt} + interval '1 millisecond')`,
    })
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
  number: number;
  /** The shop's time zone: the tracking page shows times in it. */
  timeZone: string;
  type: string;
  model: string | null;
  status: string;
  updatedAt: string;
  /** JSON text of the status history, oldest first: [{status, message, imageUrl, photos, createdAt}]. */
  updates: string;
  /** The order's customer was erased: the history carries no messages or photos. */
  customerErased: boolean;
  /** The reader's language: the customer's, else the shop's. */
  language: string;
  /** The shop's brand on the page. */
  contactEmail: string | null;
  logoUrl: string | null;
  accentColor: string | null;
  address: string | null;
  phone: string | null;
  /** CONTRACT 12: the due date (given or derived) and the wedding date, YYYY-MM-DD; the page shows only their difference. */
  dueDate: string | null;
  weddingDate: string | null;
}

/**
 * What the customer-facing tracking page shows, by token and nothing else: the vendor's name and
 * the order's model, type, status and history. Customer details are deliberately not selected.
 * Once the order's customer was erased (customer_id null, CONTRACT 5) the history keeps its
 * statuses and dates only: the shop's messages and photos often name or show the bride, and the
 * link may still be in anyone's hands; they are not even read out of the database for it.
 */
export async function findTrackedOrder(db: Executor, token: string): Promise<TrackedOrderRow | undefined> {
  const [row] = await queryRows<TrackedOrderRow>(
    db,
    sql`select v.name as "vendorName", v.time_zone as "timeZone", o.number as "number", o.type as "type", o.model as "model", o.status as "status",
          o.customer_id is null as "customerErased",
          coalesce(c.language, v.language) as "language",
          v.contact_email as "contactEmail", v.brand_logo_url as "logoUrl", v.brand_accent_color as "accentColor",
          v.address as "address", v.phone as "phone",
          (${dueDateSql})::text as "dueDate", coalesce(c.wedding_date, o.wedding_date)::text as "weddingDate",
          ${isoTimestamp(sql`o.updated_at`)} as "updatedAt",
          (select coalesce(json_agg(json_build_object(
             'status', u.status,
             'message', case when o.customer_id is null then null else u.message end,
             'imageUrl', case when o.customer_id is null then null else u.image_url end,
             'photos', case when o.customer_id is null then '[]'::json else (${photosOfEntrySql})::json end,
             'createdAt', ${isoTimestamp(sql`u.created_at`)}
           ) order by u.seq), '[]'::json)::text
           from order_updates u where u.order_id = o.id) as "updates"
        from orders o join vendors v on v.id = o.vendor_id left join customers c on c.id = o.customer_id
        where o.tracking_token = ${token}`,
  );
  return row;
}
