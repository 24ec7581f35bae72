import type { ServiceContext } from "../../context.ts";
import { isUniqueViolationOf } from "../../db/errors.ts";
import { syncHorizon } from "../../db/sync-horizon.ts";
import { AppError, fieldError, notFound } from "../../errors.ts";
import { DEFAULT_PAGE_SIZE } from "../../http/common-schemas.ts";
import { noneMatchHolds } from "../../http/conditional.ts";
import { generateSecret } from "../../lib/crypto.ts";
import { decodeCursor, encodeCursor } from "../../lib/cursor.ts";
import { isId, newId } from "../../lib/ids.ts";
import { optionalDateTime } from "../../lib/instants.ts";
import { toPage } from "../../lib/pagination.ts";
import { unsubscribeToken } from "../../mail/enqueue.ts";
import { enqueueEvent } from "../../outbox/enqueue.ts";
import { recordActivity } from "../activity/activity.repository.ts";
import { photosToAttach } from "../photos/photos.service.ts";
import { assertIncludeDeletedHasWindow, pageWithTombstones } from "../sync/sync-page.ts";
import { shopPhoneE164 } from "../vendors/shop-phone-country.ts";
import { evaluateOrderAlerts } from "./order-alerts.service.ts";
import { assertOrderDates } from "./order-dates.ts";
import { orderVersion, orderVersionOfJson } from "./order-version.ts";
import { orderPayload } from "./orders.presenter.ts";
import {
  findOrderForUpdate,
  findOrderJson,
  findOrderTrackingToken,
  findTrackedOrder,
  firstOrderPageJson,
  firstOrderPageVersion,
  insertOrderForCustomer,
  listOrderJson,
  lockOrderJson,
  moveOrderStatus,
  type OrderDetails,
  type OrderJsonPage,
  setOrderDetails,
} from "./orders.repository.ts";
import type {
  CreateOrderBody,
  ListOrdersQuery,
  UpdateOrderBody,
  UpdateOrderStatusBody,
} from "./orders.schemas.ts";
import {
  assertOrderTransition,
  canTransition,
  type OrderStatus,
  type OrderType,
  orderStatuses,
  orderTypes,
} from "./orders.workflow.ts";

/** The dashboard's search box: text found in the customer's name, e-mail or phone, or the model. */
export interface OrderSearch {
  search?: string | undefined;
}

/** The first page without filters, what integrations poll. */
function isFirstPage(query: ListOrdersQuery & OrderSearch): boolean {
  return (
    !query.cursor &&
    !query.updatedSince &&
    query.customerId === undefined &&
    !query.status?.length &&
    !query.search &&
    !query.includeDeleted &&
    query.number === undefined &&
    query.externalId === undefined
  );
}

/**
 * The first page's weak ETag (http/conditional.ts): its rows' version stamps and the page size.
 * `o2` names this representation of an order: change it when the order JSON changes shape.
 */
const firstPageEtag = (limit: number, version: string) => `W/"o2-${limit}-${version}"`;

/**
 * The order list for the API, with a weak ETag on the first page: when the client's
 * If-None-Match still names it, only the page's version is read (no JSON built) and `json` is
 * undefined (304). Other pages get the strong ETag of their bytes from the HTTP layer.
 */
export async function listOrdersConditional(
  ctx: ServiceContext,
  vendorId: string,
  query: ListOrdersQuery,
  ifNoneMatch: string | undefined,
): Promise<{ json: string | undefined; etag: string | undefined }> {
  if (!isFirstPage(query)) return { json: await listOrders(ctx, vendorId, query), etag: undefined };
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  if (ifNoneMatch !== undefined) {
    const etag = firstPageEtag(limit, await firstOrderPageVersion(ctx.db, vendorId, limit));
    if (noneMatchHolds(ifNoneMatch, etag)) return { json: undefined, etag };
  }
  const page = await firstOrderPageJson(ctx.db, vendorId, limit);
  return { json: firstPageText(page), etag: firstPageEtag(limit, page.version) };
}

function firstPageText(page: OrderJsonPage): string {
  const next = page.next ? encodeCursor({ t: page.next.updatedAt, id: page.next.id }) : null;
  return `{"orders":[${page.json}],"nextCursor":${JSON.stringify(next)}}`;
}

/** A page of orders as ready-made JSON text: `{ "orders": [...], "nextCursor": ... }`. */
export async function listOrders(
  ctx: ServiceContext,
  vendorId: string,
  query: ListOrdersQuery & OrderSearch,
): Promise<string> {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  // A malformed customer id can name no order: an empty page, as for another vendor's customer.
  if (query.customerId !== undefined && !isId(query.customerId)) return '{"orders":[],"nextCursor":null}';
  // The first page without filters, what integrations poll: joined into one text by PostgreSQL.
  if (isFirstPage(query)) return firstPageText(await firstOrderPageJson(ctx.db, vendorId, limit));
  assertIncludeDeletedHasWindow(query);
  const cursor = decodeCursor(query.cursor);
  const horizon = query.updatedSince ? (cursor?.h ?? (await syncHorizon(ctx.db))) : undefined;
  const updatedSince = optionalDateTime("updatedSince", query.updatedSince);
  const rows = await listOrderJson(ctx.db, vendorId, {
    limit,
    cursor,
    horizon,
    updatedSince,
    customerId: query.customerId,
    statuses: query.status,
    search: query.search,
    number: query.number,
    externalId: query.externalId,
  });
  if (query.includeDeleted && updatedSince && horizon) {
    // The list's own order is (updatedAt, id) newest first already: tombstones merge into it.
    const keyed = rows.map((r) => ({ t: r.updatedAt, id: r.id, value: r.json }));
    const window = { limit, cursor, updatedSince, horizon };
    const merged = await pageWithTombstones(ctx.db, vendorId, "orders", window, keyed, (d) =>
      JSON.stringify(d),
    );
    return `{"orders":[${merged.items.join(",")}],"nextCursor":${JSON.stringify(merged.nextCursor)}}`;
  }
  const page = toPage(rows, limit, (r) => ({ t: r.updatedAt, id: r.id, h: horizon }));
  return `{"orders":[${page.rows.map((r) => r.json).join(",")}],"nextCursor":${JSON.stringify(page.nextCursor)}}`;
}

/**
 * The order's version (order-version.ts: what its ETag hashes) with its row locked for the
 * request's transaction (If-Match), if it exists.
 */
export async function lockedOrderVersion(
  ctx: ServiceContext,
  vendorId: string,
  id: string,
): Promise<string | undefined> {
  const json = isId(id) ? await lockOrderJson(ctx.db, vendorId, id) : undefined;
  return json === undefined ? undefined : orderVersionOfJson(json);
}

export async function getOrder(ctx: ServiceContext, vendorId: string, id: string): Promise<string> {
  const json = isId(id) ? await findOrderJson(ctx.db, vendorId, id) : undefined;
  if (!json) throw notFound("Order");
  return json;
}

const customerFields = ["customerName", "customerEmail", "customerPhone", "weddingDate"] as const;

/**
 * Who the order is for (CONTRACT 12): `customerId`, or the customer fields, not both; without
 * customerId a name is needed (for a customer the fields may make).
 */
function assertOneCustomer(input: CreateOrderBody): void {
  if (input.customerId !== undefined) {
    const given = customerFields.filter((f) => input[f] !== undefined);
    if (given.length > 0) {
      throw new AppError("validation_failed", `customerId cannot be given with ${given.join(", ")}`, {
        errors: [
          { field: "customerId", message: `cannot be given with ${given.join(", ")}` },
          ...given.map((field) => ({ field, message: "cannot be given with customerId" })),
        ],
      });
    }
    return;
  }
  if (input.customerName === undefined) {
    throw fieldError("validation_failed", "customerName", "is required unless customerId is given");
  }
}

function externalIdTaken(): AppError {
  return new AppError("external_id_taken", "externalId is already used by another order of this shop", {
    errors: [{ field: "externalId", message: "is already used by another order of this shop" }],
  });
}

/**
 * Creates the order (linking or creating its customer) and emits order.created, and
 * customer.created for a new customer; returns its id and JSON. The work is one statement
 * (insertOrderForCustomer), which is its own transaction (or part of the request's, with an
 * Idempotency-Key).
 */
export async function createOrder(
  ctx: ServiceContext,
  vendorId: string,
  input: CreateOrderBody,
): Promise<{ id: string; json: string }> {
  assertOneCustomer(input);
  assertOrderDates(input.type, input);
  const linkId = input.customerId ?? null;
  // A malformed id names no customer: refused as an unknown one, without a query.
  if (linkId !== null && !isId(linkId)) throw unknownCustomer();
  const phoneE164 = linkId === null ? await shopPhoneE164(ctx.db, vendorId, input.customerPhone) : null;
  // One statement, no transaction round trips around it: the stamp is taken from `now` in SQL,
  // never before the statement starts (lossless sync, README; db/sql.ts writeStampSql).
  const now = ctx.now();
  const customer = {
    linkId,
    id: newId(),
    name: input.customerName?.trim() ?? null,
    email: input.customerEmail ?? null,
    phone: input.customerPhone ?? null,
    phoneE164,
    weddingDate: input.weddingDate ?? null,
    eventId: newId(),
  };
  const order = {
    id: newId(),
    vendorId,
    type: input.type,
    model: input.model ?? null,
    size: input.size ?? null,
    color: input.color ?? null,
    description: input.description ?? null,
    specialRequests: input.specialRequests ?? null,
    customerPhone: input.customerPhone ?? null,
    weddingDate: input.weddingDate ?? null,
    trackingToken: newTrackingToken(),
    externalId: input.externalId ?? null,
    metadata: metadataText(input.metadata),
    dueDate: input.dueDate ?? null,
    pickupDate: input.pickupDate ?? null,
    dueBackDate: input.dueBackDate ?? null,
    at: now,
    eventId: newId(),
  };
  try {
    // A second run only after a concurrent insert of the same e-mail: it links to that customer.
    const created =
      (await insertOrderForCustomer(ctx.db, order, customer)) ??
      (linkId === null ? await insertOrderForCustomer(ctx.db, order, customer) : undefined);
    if (created === "external_id_taken") throw externalIdTaken();
    if (!created && linkId !== null) throw unknownCustomer();
    if (!created) throw new Error("order create found no customer to link to after a conflict");
    // Recorded and announced at once when the new order already misses a rule or is overdue
    // (the insert says so); otherwise the create stays one statement.
    if (created.alertsDue) {
      await ctx.db.transaction((tx) => evaluateOrderAlerts(tx, { vendorId, orderId: order.id }, ctx.now()));
    }
    return { id: order.id, json: created.json };
  } catch (error) {
    if (isUniqueViolationOf(error, EXTERNAL_ID_INDEX)) throw externalIdTaken();
    throw error;
  }
}

const EXTERNAL_ID_INDEX = "orders_vendor_external_id_key";

const unknownCustomer = () => fieldError("unknown_reference", "customerId", "names no customer of this shop");

/** Metadata as stored: JSON text, or null for none (an empty object is none). */
function metadataText(metadata: Record<string, string> | null | undefined): string | null {
  return metadata && Object.keys(metadata).length > 0 ? JSON.stringify(metadata) : null;
}

/** `type:status` pairs from which an order may move to `to` (the workflow, as data for SQL). */
const movesTo = new Map(
  orderStatuses.map((to) => [
    to,
    orderTypes.flatMap((type) =>
      orderStatuses.filter((from) => canTransition(type, from, to)).map((from) => `${type}:${from}`),
    ),
  ]),
);

export async function updateOrderStatus(
  ctx: ServiceContext,
  vendorId: string,
  id: string,
  input: UpdateOrderStatusBody,
): Promise<{ moved: { id: string; status: OrderStatus }; version: string }> {
  if (!isId(id)) throw notFound("Order");
  const photoIds = input.photoIds ?? [];
  if (photoIds.length === 0) return moveStatus(ctx, vendorId, id, input, { ids: [], json: "[]" });
  // With photos: one transaction, so the photos checked (and locked) are the ones the entry shows.
  return ctx.db.transaction(async (tx) => {
    const inTx: ServiceContext = { ...ctx, db: tx as unknown as ServiceContext["db"] };
    if (!(await findOrderTrackingToken(tx, vendorId, id))) throw notFound("Order");
    const photos = await photosToAttach(inTx, vendorId, id, photoIds);
    const json = JSON.stringify(photos.map((p) => ({ id: p.id, url: p.url, thumbnailUrl: p.thumbnailUrl })));
    return moveStatus(inTx, vendorId, id, input, { ids: photos.map((p) => p.id), json });
  });
}

async function moveStatus(
  ctx: ServiceContext,
  vendorId: string,
  id: string,
  input: UpdateOrderStatusBody,
  photos: { ids: string[]; json: string },
): Promise<{ moved: { id: string; status: OrderStatus }; version: string }> {
  const message = input.message ?? null;
  const imageUrl = input.imageUrl ?? null;
  // One statement, no transaction round trips around it (db/sql.ts writeStampSql).
  const result = await moveOrderStatus(ctx.db, {
    vendorId,
    id,
    to: input.status,
    allowedFrom: movesTo.get(input.status) ?? [],
    message,
    imageUrl,
    photoIds: photos.ids,
    photosJson: photos.json,
    at: ctx.now(),
    eventId: newId(),
    // Only a move with a message may mail the customer (the statement checks the rest).
    mail: message === null ? null : { id: newId(), ...unsubscribeTokenPair() },
  });
  if (result.outcome === "not_found") throw notFound("Order");
  if (result.outcome === "refused") {
    assertOrderTransition(result.type as OrderType, result.status as OrderStatus, input.status);
    throw new Error(
      `status move ${result.status} -> ${input.status} refused in SQL but allowed by the workflow`,
    );
  }
  // The order's version after the move, from the same statement: the answer's ETag (CONTRACT 12).
  return { moved: { id, status: input.status }, version: orderVersion(result.version) };
}

function unsubscribeTokenPair(): { token: string; tokenHash: string } {
  const { token, hash } = unsubscribeToken();
  return { token, tokenHash: hash };
}

const detailFields = [
  "model",
  "size",
  "color",
  "description",
  "specialRequests",
  "externalId",
  "dueDate",
  "pickupDate",
  "dueBackDate",
] as const;

/**
 * Changes the details a shop edits after ordering (a size after a fitting): fields left out are
 * unchanged, null clears one (CONTRACT 1). A change emits order.updated with the order; a request
 * that changes nothing answers the order as it is and emits nothing.
 */
export async function updateOrder(
  ctx: ServiceContext,
  vendorId: string,
  id: string,
  input: UpdateOrderBody,
): Promise<string> {
  if (!isId(id)) throw notFound("Order");
  try {
    return await updateOrderDetails(ctx, vendorId, id, input);
  } catch (error) {
    if (isUniqueViolationOf(error, EXTERNAL_ID_INDEX)) throw externalIdTaken();
    throw error;
  }
}

async function updateOrderDetails(
  ctx: ServiceContext,
  vendorId: string,
  id: string,
  input: UpdateOrderBody,
): Promise<string> {
  return ctx.db.transaction(async (tx) => {
    // Read after BEGIN, so no row is stamped before its transaction (lossless sync, README).
    const now = ctx.now();
    const order = await findOrderForUpdate(tx, vendorId, id);
    if (!order) throw notFound("Order");
    // The dates the order will have, checked together (dueBackDate against a pickupDate kept).
    assertOrderDates(order.type as OrderType, {
      dueDate: input.dueDate === undefined ? order.dueDate : input.dueDate,
      pickupDate: input.pickupDate === undefined ? order.pickupDate : input.pickupDate,
      dueBackDate: input.dueBackDate === undefined ? order.dueBackDate : input.dueBackDate,
    });
    const changes: OrderDetails = {};
    for (const field of detailFields) {
      const value = input[field];
      if (value !== undefined && value !== order[field]) changes[field] = value;
    }
    if (input.metadata !== undefined) {
      const metadata = metadataText(input.metadata);
      if (metadata !== (order.metadata ? JSON.stringify(order.metadata) : null)) {
        changes.metadata = metadata === null ? null : (JSON.parse(metadata) as Record<string, string>);
      }
    }
    if (Object.keys(changes).length > 0) {
      // updated_at never moves backwards, even if clocks of two processes disagree.
      const at = now > order.updatedAt ? now : new Date(order.updatedAt.getTime() + 1);
      await setOrderDetails(tx, vendorId, id, changes, at);
      await recordActivity(tx, {
        vendorId,
        action: "order.updated",
        subjectId: id,
        at,
        detail: { number: order.number, fields: Object.keys(changes) },
      });
    }
    const json = await findOrderJson(tx, vendorId, id);
    if (!json) throw new Error("order vanished inside its own transaction");
    if (Object.keys(changes).length > 0) {
      await enqueueEvent(tx, { vendorId, type: "order.updated", data: orderPayload(json), createdAt: now });
      // New dates may put the order at risk or overdue now: in this transaction, once (CONTRACT 12).
      if (
        changes.dueDate !== undefined ||
        changes.dueBackDate !== undefined ||
        changes.pickupDate !== undefined
      )
        await evaluateOrderAlerts(tx, { vendorId, orderId: id }, now);
    }
    return json;
  });
}

/** 32 random bytes, base64url (43 characters): the unguessable part of a tracking link. */
export function newTrackingToken(): string {
  return generateSecret("", 32);
}

const TRACKING_TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** The token of the vendor's order (for the dashboard's "tracking link"); 404 for anyone else's. */
export async function getOrderTrackingToken(
  ctx: ServiceContext,
  vendorId: string,
  id: string,
): Promise<string> {
  const token = isId(id) ? await findOrderTrackingToken(ctx.db, vendorId, id) : undefined;
  if (!token) throw notFound("Order");
  return token;
}

export interface TrackedOrder {
  vendorName: string;
  number: number;
  /** The shop's time zone: the tracking page shows times in it. */
  timeZone: string;
  type: OrderType;
  model: string | null;
  status: OrderStatus;
  updatedAt: string;
  updates: Array<{
    status: OrderStatus;
    message: string | null;
    imageUrl: string | null;
    photos: Array<{ id: string; url: string; thumbnailUrl: string }>;
    createdAt: string;
  }>;
  /** The customer was erased: `updates` hold statuses and dates only. */
  customerErased: boolean;
  /** The reader's language (the customer's, else the shop's) and the shop's brand. */
  language: string;
  brand: {
    contactEmail: string | null;
    logoUrl: string | null;
    accentColor: string | null;
    address: string | null;
    phone: string | null;
  };
  /** YYYY-MM-DD: when it is due (given or derived) and the customer's wedding (never shown as such). */
  dueDate: string | null;
  weddingDate: string | null;
}

/** The public tracking view of an order; a token of the wrong shape is refused without a query. */
export async function getTrackedOrder(ctx: ServiceContext, token: string): Promise<TrackedOrder> {
  const row = TRACKING_TOKEN.test(token) ? await findTrackedOrder(ctx.db, token) : undefined;
  if (!row) throw notFound("Order");
  return {
    vendorName: row.vendorName,
    number: row.number,
    timeZone: row.timeZone,
    type: row.type as OrderType,
    model: row.model,
    status: row.status as OrderStatus,
    updatedAt: row.updatedAt,
    updates: JSON.parse(row.updates),
    customerErased: row.customerErased,
    language: row.language,
    brand: {
      contactEmail: row.contactEmail,
      logoUrl: row.logoUrl,
      accentColor: row.accentColor,
      address: row.address,
      phone: row.phone,
    },
    dueDate: row.dueDate,
    weddingDate: row.weddingDate,
  };
}

/** The customer's most recently updated orders (the dashboard's customer page), JSON text. */
export async function listCustomerOrders(
  ctx: ServiceContext,
  vendorId: string,
  customerId: string,
  limit = 50,
): Promise<string> {
  if (!isId(customerId)) return '{"orders":[],"nextCursor":null}';
  const rows = await listOrderJson(ctx.db, vendorId, { limit, customerId });
  return `{"orders":[${rows
    .slice(0, limit)
    .map((r) => r.json)
    .join(",")}],"nextCursor":null}`;
}
