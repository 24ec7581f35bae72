import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { ServiceContext } from "../../context.ts";
import { declareApiTag } from "../../http/api-tags.ts";
import { principalOf } from "../../http/authenticate.ts";
import { ProfileSchema } from "./vendors.schemas.ts";
import { getProfile } from "./vendors.service.ts";

export const profileRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (app, { ctx }) => {
  app.get(
    "/profile",
    {
      config: { scope: "profile:read" },
      schema: {
        tags: declareApiTag("Profile", "The vendor the credential acts for"),
        operationId: "getProfile",
        summary: "The vendor's profile",
        response: { 200: ProfileSchema },
      },
    },
    async (request) => getProfile(ctx, principalOf(request).vendorId),
  );
};
