import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import type { FastifyRequest } from "fastify";
import type { ServiceContext } from "../../context.ts";
import { declareApiTag } from "../../http/api-tags.ts";
import { principalOf } from "../../http/authenticate.ts";
import { Id, IdParams } from "../../http/common-schemas.ts";
import { underIfMatch, underIfMatchDeleting, withEtag } from "../../http/conditional.ts";
import { created } from "../../http/created.ts";
import type { UrlPolicy } from "../../webhook-delivery/url-guard.ts";
import {
  CreateWebhookBody,
  DeliveryListResponse,
  DeliveryParams,
  DeliverySchema,
  ListDeliveriesQuery,
  ListWebhooksQuery,
  RecoverBody,
  RecoverResponse,
  RotateSecretBody,
  RotateSecretResponse,
  UpdateWebhookBody,
  WebhookListResponse,
  WebhookSchema,
  WebhookWithSecret,
} from "./webhooks.schemas.ts";
import {
  deleteWebhook,
  getDelivery,
  getWebhook,
  listDeliveries,
  listWebhooks,
  lockedWebhookJson,
  recoverDeliveries,
  redeliver,
  registerWebhook,
  rotateWebhookSecret,
  sendTestEvent,
  updateWebhook,
} from "./webhooks.service.ts";

const tags = declareApiTag("Webhooks", "Webhook endpoints, delivery logs, redelivery and recovery");
const read = { scope: "webhooks:read" } as const;
const write = { scope: "webhooks:write" } as const;
/** POSTs whose body is optional (src/http/json-body.ts): no body at all means `{}`. */
const writeOptionalBody = { ...write, optionalBody: true } as const;

export const webhookRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext; urlPolicy: UrlPolicy }> = async (
  app,
  { ctx, urlPolicy },
) => {
  const vendor = (request: FastifyRequest) => principalOf(request).vendorId;
  const caller = (request: FastifyRequest) => ({ scopes: principalOf(request).scopes });

  app.post(
    "/webhooks",
    {
      config: { ...write, errors: ["webhook_limit_reached", "insufficient_scope"] },
      schema: {
        tags,
        operationId: "registerWebhook",
        summary: "Register a webhook",
        description:
          "At most 5 per vendor. The signing secret is in this response only. With an OAuth token, each event needs its resource's read scope.",
        body: CreateWebhookBody,
        response: { 201: WebhookWithSecret },
      },
    },
    async (request, reply) => {
      const webhook = await registerWebhook(ctx, vendor(request), request.body, caller(request), urlPolicy);
      // Its ETag is that of retrieve's answer, which never shows the secret.
      const { secret: _secret, ...shown } = webhook;
      withEtag(reply, shown);
      return created(reply, `/api/vendor/webhooks/${webhook.id}`).send(webhook);
    },
  );

  app.get(
    "/webhooks",
    {
      config: read,
      schema: {
        tags,
        operationId: "listWebhooks",
        summary: "List webhooks",
        description: "Oldest first; at most 5 per vendor, paged like every list (limit, cursor, nextCursor).",
        querystring: ListWebhooksQuery,
        response: { 200: WebhookListResponse },
      },
    },
    async (request) => listWebhooks(ctx, vendor(request), request.query),
  );

  app.get(
    "/webhooks/:id",
    {
      config: read,
      schema: {
        tags,
        operationId: "getWebhook",
        summary: "Retrieve a webhook",
        params: IdParams,
        response: { 200: WebhookSchema },
      },
    },
    async (request, reply) => {
      const webhook = await getWebhook(ctx, vendor(request), request.params.id);
      withEtag(reply, webhook);
      return webhook;
    },
  );

  for (const method of ["PATCH", "PUT"] as const) {
    app.route({
      method,
      url: "/webhooks/:id",
      config: { ...write, ifMatch: true, errors: ["insufficient_scope"] },
      schema: {
        tags,
        operationId: method === "PATCH" ? "updateWebhook" : "replaceWebhook",
        summary: "Update a webhook (url, events, status)",
        description:
          "PATCH and PUT have the same partial semantics: fields left out are unchanged. Setting status ACTIVE clears disabledReason.",
        params: IdParams,
        body: UpdateWebhookBody,
        response: { 200: WebhookSchema },
      },
      handler: async (request, reply) => {
        const { id } = request.params;
        const webhook = await underIfMatch(
          ctx,
          request,
          () => lockedWebhookJson(ctx, vendor(request), id),
          () => updateWebhook(ctx, vendor(request), id, request.body, caller(request), urlPolicy),
        );
        withEtag(reply, webhook);
        return webhook;
      },
    });
  }

  app.delete(
    "/webhooks/:id",
    {
      config: { ...write, ifMatch: true },
      schema: {
        tags,
        operationId: "deleteWebhook",
        summary: "Delete a webhook and its delivery logs",
        params: IdParams,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const etag = await underIfMatchDeleting(
        ctx,
        request,
        () => lockedWebhookJson(ctx, vendor(request), id),
        () => deleteWebhook(ctx, vendor(request), id),
      );
      if (etag) reply.header("etag", etag);
      return reply.code(204).send(null);
    },
  );

  app.post(
    "/webhooks/:id/rotate-secret",
    {
      config: writeOptionalBody,
      schema: {
        tags,
        operationId: "rotateWebhookSecret",
        summary: "Rotate the signing secret",
        description:
          "Returns the new secret once. The old secret keeps signing X-Service-Signature until the overlap ends, and webhook-signature carries both signatures meanwhile.",
        params: IdParams,
        body: RotateSecretBody,
        response: { 200: RotateSecretResponse },
      },
    },
    async (request, reply) => {
      const rotated = await rotateWebhookSecret(ctx, vendor(request), request.params.id, request.body);
      // The rotation moved the webhook's updatedAt: the answer names its new version.
      withEtag(reply, await getWebhook(ctx, vendor(request), request.params.id));
      return rotated;
    },
  );

  app.post(
    "/webhooks/:id/test",
    {
      config: writeOptionalBody,
      schema: {
        tags,
        operationId: "testWebhook",
        summary: "Send a webhook.test event to this webhook",
        params: IdParams,
        body: Type.Object({}, { additionalProperties: false }),
        response: { 202: Type.Object({ eventId: Id }) },
      },
    },
    async (request, reply) => {
      reply.code(202);
      return sendTestEvent(ctx, vendor(request), request.params.id);
    },
  );

  app.get(
    "/webhooks/:id/deliveries",
    {
      config: read,
      schema: {
        tags,
        operationId: "listWebhookDeliveries",
        summary: "List a webhook's deliveries with every attempt",
        params: IdParams,
        querystring: ListDeliveriesQuery,
        response: { 200: DeliveryListResponse },
      },
    },
    async (request) => listDeliveries(ctx, vendor(request), request.params.id, request.query),
  );

  app.get(
    "/webhooks/:id/deliveries/:deliveryId",
    {
      config: read,
      schema: {
        tags,
        operationId: "getWebhookDelivery",
        summary: "Retrieve one delivery with every attempt",
        params: DeliveryParams,
        response: { 200: DeliverySchema },
      },
    },
    async (request) => getDelivery(ctx, vendor(request), request.params.id, request.params.deliveryId),
  );

  app.post(
    "/webhooks/:id/deliveries/:deliveryId/redeliver",
    {
      config: writeOptionalBody,
      schema: {
        tags,
        operationId: "redeliverWebhookDelivery",
        summary: "Send a delivery's event again (the pending delivery now, if it has one)",
        params: DeliveryParams,
        body: Type.Object({}, { additionalProperties: false }),
        response: { 202: Type.Object({ deliveryId: Id, eventId: Id }) },
      },
    },
    async (request, reply) => {
      reply.code(202);
      return redeliver(ctx, vendor(request), request.params.id, request.params.deliveryId);
    },
  );

  app.post(
    "/webhooks/:id/recover",
    {
      config: write,
      schema: {
        tags,
        operationId: "recoverWebhookDeliveries",
        summary: "Re-queue every failed or skipped delivery in a time window",
        params: IdParams,
        body: RecoverBody,
        response: { 202: RecoverResponse },
      },
    },
    async (request, reply) => {
      reply.code(202);
      return recoverDeliveries(ctx, vendor(request), request.params.id, request.body);
    },
  );
};
