import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { ServiceContext } from "../../context.ts";
import { declareApiTag, transitionTable } from "../../http/api-tags.ts";
import { principalOf } from "../../http/authenticate.ts";
import { IdParams } from "../../http/common-schemas.ts";
import { notModified, underIfMatch, withEtag } from "../../http/conditional.ts";
import { created } from "../../http/created.ts";
import { sendJsonText } from "../../http/json-text.ts";
import { orderVersionOfJson } from "./order-version.ts";
import {
  CreateOrderBody,
  ListOrdersQuery,
  OrderListResponse,
  OrderSchema,
  OrderStatusResponse,
  UpdateOrderBody,
  UpdateOrderStatusBody,
} from "./orders.schemas.ts";
import {
  createOrder,
  getOrder,
  listOrdersConditional,
  lockedOrderVersion,
  updateOrder,
  updateOrderStatus,
} from "./orders.service.ts";
import { orderTransitions } from "./orders.workflow.ts";

const tags = declareApiTag(
  "Orders",
  "Orders and their status workflow. A new order is ORDERED. A move to the status the order already has is always allowed: it adds a message or photo to the history without changing the status. Every other move must be one of these:\n\n" +
    transitionTable(orderTransitions, (from, to) =>
      from === "PICKED_UP" && to === "RETURNED" ? " (rentals only)" : "",
    ),
);

export const orderRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (app, { ctx }) => {
  app.get(
    "/orders",
    {
      config: { scope: "orders:read" },
      schema: {
        tags,
        operationId: "listOrders",
        summary: "List orders",
        description: "The vendor's orders, most recently updated first. Without parameters: the last 100.",
        querystring: ListOrdersQuery,
        response: { 200: OrderListResponse },
      },
    },
    async (request, reply) => {
      const { json, etag } = await listOrdersConditional(
        ctx,
        principalOf(request).vendorId,
        request.query,
        request.headers["if-none-match"],
      );
      if (etag !== undefined) reply.header("etag", etag);
      if (json === undefined) return notModified(reply, etag as string);
      return sendJsonText(reply, json);
    },
  );

  app.post(
    "/orders",
    {
      config: { scope: "orders:write" },
      schema: {
        tags,
        operationId: "createOrder",
        summary: "Create an order",
        description:
          "Creates an order in status ORDERED with one history entry. Links it to the vendor's customer with the same e-mail (case-insensitive), or creates that customer.",
        body: CreateOrderBody,
        response: { 201: OrderSchema },
      },
    },
    async (request, reply) => {
      const { id, json } = await createOrder(ctx, principalOf(request).vendorId, request.body);
      return sendJsonText(
        withEtag(created(reply, `/api/vendor/orders/${id}`), orderVersionOfJson(json)),
        json,
      );
    },
  );

  app.get(
    "/orders/:id",
    {
      config: { scope: "orders:read" },
      schema: {
        tags,
        operationId: "getOrder",
        summary: "Retrieve an order",
        params: IdParams,
        response: { 200: OrderSchema },
      },
    },
    async (request, reply) => {
      const json = await getOrder(ctx, principalOf(request).vendorId, request.params.id);
      return sendJsonText(withEtag(reply, orderVersionOfJson(json)), json);
    },
  );

  app.patch(
    "/orders/:id",
    {
      config: { scope: "orders:write", ifMatch: true },
      schema: {
        tags,
        operationId: "updateOrder",
        summary: "Update an order's details",
        description:
          "Changes the details a shop edits after ordering, such as the size after a fitting. Fields left out are unchanged; null clears one. A change emits order.updated with the order.",
        params: IdParams,
        body: UpdateOrderBody,
        response: { 200: OrderSchema },
      },
    },
    async (request, reply) => {
      const { vendorId } = principalOf(request);
      const { id } = request.params;
      const json = await underIfMatch(
        ctx,
        request,
        () => lockedOrderVersion(ctx, vendorId, id),
        () => updateOrder(ctx, vendorId, id, request.body),
      );
      return sendJsonText(withEtag(reply, orderVersionOfJson(json)), json);
    },
  );

  app.put(
    "/orders/:id/status",
    {
      config: { scope: "orders:write", ifMatch: true, errors: ["invalid_transition"] },
      schema: {
        tags,
        operationId: "updateOrderStatus",
        summary: "Update an order's status",
        description:
          "Moves the order along its workflow (see the table under Orders) and appends a history entry with the message and image. A move to the current status only appends the entry.",
        params: IdParams,
        body: UpdateOrderStatusBody,
        response: { 200: OrderStatusResponse },
      },
    },
    async (request, reply) => {
      const { vendorId } = principalOf(request);
      const { id } = request.params;
      // The answer is the move, not the order: its ETag is the order's after the move.
      const { moved, version } = await underIfMatch(
        ctx,
        request,
        () => lockedOrderVersion(ctx, vendorId, id),
        () => updateOrderStatus(ctx, vendorId, id, request.body),
      );
      withEtag(reply, version);
      return moved;
    },
  );
};
