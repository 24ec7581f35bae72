import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { ServiceContext } from "../../context.ts";
import { principalOf } from "../../http/authenticate.ts";
import { authenticatedErrors, IdParams, problemResponses } from "../../http/common-schemas.ts";
import {
  CreateInquiryBody,
  InquiryCreatedResponse,
  InquiryListResponse,
  InquirySchema,
  ListInquiriesQuery,
  VendorIdParams,
} from "./inquiries.schemas.ts";
import { getInquiry, listInquiries, receiveInquiry } from "./inquiries.service.ts";

const tags = ["Inquiries"];

/** Under /api/vendor: the vendor reads its inquiries (scope inquiries:read). */
export const inquiryRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (app, { ctx }) => {
  app.get(
    "/inquiries",
    {
      config: { scope: "inquiries:read" },
      schema: {
        tags,
        operationId: "listInquiries",
        summary: "List inquiries",
        description: "Inquiries sent through the public form, newest first.",
        querystring: ListInquiriesQuery,
        response: { 200: InquiryListResponse, ...problemResponses(...authenticatedErrors) },
      },
    },
    async (request) => listInquiries(ctx, principalOf(request).vendorId, request.query),
  );

  app.get(
    "/inquiries/:id",
    {
      config: { scope: "inquiries:read" },
      schema: {
        tags,
        operationId: "getInquiry",
        summary: "Retrieve an inquiry",
        params: IdParams,
        response: { 200: InquirySchema, ...problemResponses(...authenticatedErrors, 404) },
      },
    },
    async (request) => getInquiry(ctx, principalOf(request).vendorId, request.params.id),
  );
};

/** Under /api/public: no credentials, limited per client address and per vendor. */
export const publicInquiryRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (
  app,
  { ctx },
) => {
  app.post(
    "/vendors/:vendorId/inquiries",
    {
      schema: {
        tags,
        operationId: "sendInquiry",
        summary: "Send an inquiry to a vendor (public)",
        description:
          "No credentials. Rate-limited per client address, and bounded per vendor (100 an hour). Emits inquiry.received.",
        params: VendorIdParams,
        body: CreateInquiryBody,
        security: [],
        response: {
          201: InquiryCreatedResponse,
          ...problemResponses(400, 404, 413, 415, 429, 500, 503),
        },
      },
    },
    async (request, reply) => {
      const created = await receiveInquiry(ctx, request.params.vendorId, request.body);
      return reply.code(201).send(created);
    },
  );
};
