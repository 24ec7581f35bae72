import type { ServiceContext } from "../../context.ts";
import { notFound } from "../../errors.ts";
import { enqueueEvent } from "../../events/enqueue.ts";
import { generateSecret } from "../../lib/crypto.ts";
import { decodeCursor, encodeCursor } from "../../lib/cursor.ts";
import { isId, newId } from "../../lib/ids.ts";
import { findOrCreateCustomer } from "../customers/customers.service.ts";
import {
  findOrderForUpdate,
  findOrderJson,
  findOrderTrackingToken,
  findTrackedOrder,
  insertOrder,
  insertOrderUpdate,
  listOrderJson,
  setOrderStatus,
} from "./orders.repository.ts";
import type { CreateOrderBody, ListOrdersQuery, UpdateOrderStatusBody } from "./orders.schemas.ts";
import { assertOrderTransition, type OrderStatus, type OrderType } from "./orders.workflow.ts";

export const DEFAULT_PAGE_SIZE = 100;

/** A page of orders as ready-made JSON text: `{ "orders": [...], "nextCursor": ... }`. */
export async function listOrders(
  ctx: ServiceContext,
  vendorId: string,
  query: ListOrdersQuery,
): Promise<string> {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const rows = await listOrderJson(ctx.db, vendorId, {
    limit,
    cursor: decodeCursor(query.cursor),
    updatedSince: query.updatedSince,
  });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const nextCursor = rows.length > limit && last ? encodeCursor({ t: last.updatedAt, id: last.id }) : null;
  return `{"orders":[${page.map((r) => r.json).join(",")}],"nextCursor":${JSON.stringify(nextCursor)}}`;
}

export async function getOrder(ctx: ServiceContext, vendorId: string, id: string): Promise<string> {
  const json = isId(id) ? await findOrderJson(ctx.db, vendorId, id) : undefined;
  if (!json) throw notFound("Order");
  return json;
}

/** Creates the order (linking or creating its customer) and emits order.created; returns its JSON. */
export async function createOrder(
  ctx: ServiceContext,
  vendorId: string,
  input: CreateOrderBody,
): Promise<string> {
  const now = ctx.now();
  return ctx.db.transaction(async (tx) => {
    const customer = await findOrCreateCustomer(
      tx,
      vendorId,
      {
        name: input.customerName.trim(),
        email: input.customerEmail,
        phone: input.customerPhone,
        weddingDate: input.weddingDate,
      },
      now,
    );
    const id = newId();
    await insertOrder(tx, {
      id,
      vendorId,
      customerId: customer.id,
      type: input.type,
      status: "ORDERED",
      model: input.model ?? null,
      size: input.size ?? null,
      color: input.color ?? null,
      description: input.description ?? null,
      specialRequests: input.specialRequests ?? null,
      customerPhone: input.customerPhone ?? null,
      weddingDate: input.weddingDate ?? null,
      trackingToken: newTrackingToken(),
      createdAt: now,
      updatedAt: now,
    });
    await insertOrderUpdate(tx, { orderId: id, status: "ORDERED", message: "Order created", createdAt: now });
    const json = await findOrderJson(tx, vendorId, id);
    if (!json) throw new Error("order vanished inside its own transaction");
    await enqueueEvent(tx, { vendorId, type: "order.created", data: JSON.parse(json), createdAt: now });
    return json;
  });
}

export async function updateOrderStatus(
  ctx: ServiceContext,
  vendorId: string,
  id: string,
  input: UpdateOrderStatusBody,
): Promise<{ id: string; status: OrderStatus }> {
  if (!isId(id)) throw notFound("Order");
  const now = ctx.now();
  return ctx.db.transaction(async (tx) => {
    const order = await findOrderForUpdate(tx, vendorId, id);
    if (!order) throw notFound("Order");
    const from = order.status as OrderStatus;
    assertOrderTransition(order.type as OrderType, from, input.status);
    // updated_at never moves backwards, even if clocks of two processes disagree.
    const at = now > order.updatedAt ? now : new Date(order.updatedAt.getTime() + 1);
    const message = input.message ?? null;
    const imageUrl = input.imageUrl ?? null;
    await insertOrderUpdate(tx, { orderId: id, status: input.status, message, imageUrl, createdAt: at });
    await setOrderStatus(tx, id, input.status, at);
    if (from !== input.status) {
      await enqueueEvent(tx, {
        vendorId,
        type: "order.status_changed",
        data: {
          id,
          status: input.status,
          previousStatus: from,
          customerId: order.customerId,
          updatedAt: at.toISOString(),
          message,
          imageUrl,
        },
        createdAt: at,
      });
    }
    return { id, status: input.status };
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
  type: OrderType;
  model: string | null;
  status: OrderStatus;
  updatedAt: string;
  updates: Array<{ status: OrderStatus; message: string | null; imageUrl: string | null; createdAt: string }>;
}

/** The public tracking view of an order; a token of the wrong shape is refused without a query. */
export async function getTrackedOrder(ctx: ServiceContext, token: string): Promise<TrackedOrder> {
  const row = TRACKING_TOKEN.test(token) ? await findTrackedOrder(ctx.db, token) : undefined;
  if (!row) throw notFound("Order");
  return {
    vendorName: row.vendorName,
    type: row.type as OrderType,
    model: row.model,
    status: row.status as OrderStatus,
    updatedAt: row.updatedAt,
    updates: JSON.parse(row.updates),
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
