import cors from "@fastify/cors";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { ServiceContext } from "../../context.ts";
import { declareApiTag } from "../../http/api-tags.ts";
import { principalOf } from "../../http/authenticate.ts";
import { IdParams } from "../../http/common-schemas.ts";
import { created } from "../../http/created.ts";
import { consume } from "../../http/rate-limit.ts";
import { negotiateLanguage } from "../../i18n/languages.ts";
import { hashSecret } from "../../lib/crypto.ts";
import {
  CreateInquiryBody,
  InquiryCreatedResponse,
  InquiryListResponse,
  InquirySchema,
  ListInquiriesQuery,
  VendorIdParams,
} from "./inquiries.schemas.ts";
import { getInquiry, listInquiries, receiveInquiry } from "./inquiries.service.ts";
import { type InquiryFormMeta, splitInquiryForm } from "./inquiry-form.ts";

const tags = declareApiTag("Inquiries", "Messages sent to a vendor through the public inquiry form");
/** Who wrote to which vendor within the hour (see INQUIRIES_PER_VENDOR_PER_HOUR). */
const SENDERS = { policy: "inquiry-senders", max: 1, windowMs: 3_600_000 };

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
        response: { 200: InquiryListResponse },
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
        response: { 200: InquirySchema },
      },
    },
    async (request) => getInquiry(ctx, principalOf(request).vendorId, request.params.id),
  );
};

declare module "fastify" {
  interface FastifyRequest {
    /** Set for a plain HTML form post: the form's own fields (inquiry-form.ts). */
    inquiryForm?: InquiryFormMeta;
  }
}

/**
 * Under /api/public: no credentials, limited per client address and per vendor. Readable from any
 * origin (CORS `*`, preflight included: it takes no credentials, CONTRACT 10), and it takes a
 * plain HTML form post (application/x-www-form-urlencoded) as well as JSON: a form post is
 * answered 303 to the shop's thank-you page, or to the form's `_return` when that is on the
 * shop's registered website.
 */
export const publicInquiryRoutes: FastifyPluginAsyncTypebox<{
  ctx: ServiceContext;
  publicUrl: string;
}> = async (app, { ctx, publicUrl }) => {
  await app.register(cors, {
    origin: "*",
    methods: ["POST"],
    allowedHeaders: ["content-type", "idempotency-key"],
    exposedHeaders: [
      "location",
      "retry-after",
      "ratelimit-limit",
      "ratelimit-remaining",
      "ratelimit-reset",
      "x-request-id",
    ],
    maxAge: 86_400,
    strictPreflight: false,
  });
  app.addContentTypeParser(
    "application/x-www-form-urlencoded",
    { parseAs: "string", bodyLimit: 64 * 1024 },
    (request, text, done) => {
      const { body, meta } = splitInquiryForm(new URLSearchParams(text as string));
      request.inquiryForm = meta;
      done(null, body);
    },
  );

  app.post(
    "/vendors/:vendorId/inquiries",
    {
      schema: {
        tags,
        operationId: "sendInquiry",
        summary: "Send an inquiry to a vendor (public)",
        description:
          "No credentials. Rate-limited per client address. Past 100 inquiries to one vendor in an hour, a sender that already wrote to that vendor within the hour is refused (429); a new sender never is. Emits inquiry.received.",
        params: VendorIdParams,
        body: CreateInquiryBody,
        consumes: ["application/json", "application/x-www-form-urlencoded"],
        security: [],
        response: {
          201: InquiryCreatedResponse,
          303: {
            description:
              "A plain HTML form post was received: to the shop's thank-you page, or to the form's `_return` address on the shop's registered website",
            type: "null",
          },
        },
      },
    },
    async (request, reply) => {
      const { vendorId } = request.params;
      const form = request.inquiryForm;
      const thanks = `${publicUrl}/inquiry/${encodeURIComponent(vendorId)}/thanks`;
      // A bot filled the honeypot: answered as everyone is, and nothing is kept or mailed.
      if (form?.trapped) return reply.code(303).header("location", thanks).send();
      // Hashed: the store keeps no address; the hour matches the service's flood window.
      const sender = `s:${hashSecret(`${vendorId} ${request.ip}`)}`;
      const seen = await consume(app.rateLimitStore, SENDERS, sender, { increment: false });
      const inquiry = await receiveInquiry(ctx, vendorId, request.body, {
        repeatSender: (seen?.count ?? 0) > 0,
        ...(seen ? { retryAfterS: seen.resetS } : {}),
        returnTo: form?.returnTo,
        browserLanguage: negotiateLanguage(request.headers["accept-language"], "") || null,
      });
      await consume(app.rateLimitStore, SENDERS, sender);
      if (form)
        return reply
          .code(303)
          .header("location", inquiry.returnTo ?? thanks)
          .send();
      // Where the vendor reads it (with its credentials); the sender has no way to.
      return created(reply, `/api/vendor/inquiries/${inquiry.id}`).send({ id: inquiry.id });
    },
  );
};
