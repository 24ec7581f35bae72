import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { ServiceContext } from "../../context.ts";
import { declareApiTag } from "../../http/api-tags.ts";
import { principalOf } from "../../http/authenticate.ts";
import { IdParams } from "../../http/common-schemas.ts";
import { EventListResponse, EventSchema, ListEventsQuery } from "./events.schemas.ts";
import { getEvent, listEvents } from "./events.service.ts";

const tags = declareApiTag("Events", "The last 30 days of events: the pull fallback to webhooks");

export const eventRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (app, { ctx }) => {
  app.get(
    "/events",
    {
      config: { scope: "webhooks:read" },
      schema: {
        tags,
        operationId: "listEvents",
        summary: "List events of the last 30 days",
        description:
          "The pull fallback to webhooks: newest first, only event types whose read scope the credential has.",
        querystring: ListEventsQuery,
        response: { 200: EventListResponse },
      },
    },
    async (request) => {
      const { vendorId, scopes } = principalOf(request);
      return listEvents(ctx, vendorId, scopes, request.query);
    },
  );

  app.get(
    "/events/:id",
    {
      config: { scope: "webhooks:read" },
      schema: {
        tags,
        operationId: "getEvent",
        summary: "Retrieve an event",
        params: IdParams,
        response: { 200: EventSchema },
      },
    },
    async (request) => {
      const { vendorId, scopes } = principalOf(request);
      return getEvent(ctx, vendorId, scopes, request.params.id);
    },
  );
};
