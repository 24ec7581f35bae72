import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { ServiceContext } from "../../context.ts";
import { declareApiTag } from "../../http/api-tags.ts";
import { principalOf } from "../../http/authenticate.ts";
import { ChecksumQuery, ChecksumResponse } from "./sync.schemas.ts";
import { checksumScope, checksumScopes, syncChecksum } from "./sync.service.ts";

export const syncRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (app, { ctx }) => {
  app.get(
    "/sync/checksum",
    {
      // The scope is the read scope of the resource the query names.
      config: { scope: "orders:read", scopeFor: checksumScope, scopeChoices: checksumScopes },
      schema: {
        tags: declareApiTag("Sync", "Proof that a copy kept by polling holds exactly the service's records"),
        operationId: "getSyncChecksum",
        summary: "Checksum of the records, per day",
        description:
          "Per UTC day of updatedAt (up to `until`), how many records of the resource there are and a SHA-256 over their ids and updatedAt, so a copy kept by polling can prove it holds exactly the same, or find the day it drifted and fetch only that day again. Needs the resource's read scope (orders:read, customers:read or appointments:read). See the sync guide for the computation on your side.",
        querystring: ChecksumQuery,
        response: { 200: ChecksumResponse },
      },
    },
    async (request) => syncChecksum(ctx, principalOf(request).vendorId, request.query),
  );
};
