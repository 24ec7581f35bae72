import cors from "@fastify/cors";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { ServiceContext } from "../../context.ts";
import { declareApiTag } from "../../http/api-tags.ts";
import { principalOf } from "../../http/authenticate.ts";
import { created } from "../../http/created.ts";
import { negotiateLanguage } from "../../i18n/languages.ts";
import {
  AvailabilityQuery,
  AvailabilitySchema,
  BookedSchema,
  BookingBody,
  BookingSettingsSchema,
  UpdateBookingSettingsBody,
  VendorIdParams,
} from "../booking/booking.schemas.ts";
import { readBookingSettings, updateBookingSettings } from "../booking/settings.service.ts";
import { bookSlot, readAvailability } from "./booking.service.ts";

const tags = declareApiTag("Booking", "Booking settings, free slots and bookings made by customers");

/** The shop's booking settings and availability (CONTRACT 12), under /api/vendor. */
export const bookingRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (app, { ctx }) => {
  app.get(
    "/booking/settings",
    {
      config: { scope: "appointments:read" },
      schema: {
        tags,
        operationId: "getBookingSettings",
        summary: "The shop's booking settings",
        description:
          "Opening hours, closed dates, the address and how each appointment type is offered; a shop that never saved any has the defaults.",
        response: { 200: BookingSettingsSchema },
      },
    },
    async (request) => readBookingSettings(ctx, principalOf(request).vendorId),
  );

  app.put(
    "/booking/settings",
    {
      config: { scope: "appointments:write" },
      schema: {
        tags,
        operationId: "updateBookingSettings",
        summary: "Update the shop's booking settings",
        description:
          "Partial: fields left out are unchanged, a weekday left out of openingHours keeps its hours, a type's fields left out keep their values, closedDates replaces the list. Answers the whole settings. Each refused field is named (400 validation_failed).",
        body: UpdateBookingSettingsBody,
        response: { 200: BookingSettingsSchema },
      },
    },
    async (request) => updateBookingSettings(ctx, principalOf(request).vendorId, request.body),
  );

  app.get(
    "/availability",
    {
      config: { scope: "appointments:read" },
      schema: {
        tags,
        operationId: "getAvailability",
        summary: "Free start times",
        description:
          "Free start times of one type over days in the shop's zone (at most 62), from opening hours, closed dates, PROPOSED and CONFIRMED appointments with their buffers, capacity, minimum notice and how far ahead. Every type, online or not. Creating an appointment through this API checks none of it: staff may overbook on purpose.",
        querystring: AvailabilityQuery,
        response: { 200: AvailabilitySchema },
      },
    },
    async (request) =>
      readAvailability(ctx, principalOf(request).vendorId, request.query, { onlineOnly: false }),
  );
};

/**
 * Under /api/public/vendors (its own prefix, so its CORS preflight route is not the inquiry
 * form's): no credentials, limited per client address like the inquiry form, and
 * readable from any origin (CORS `*`, preflight included: no credentials are taken).
 */
export const publicBookingRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (
  app,
  { ctx },
) => {
  await app.register(cors, {
    origin: "*",
    methods: ["GET", "POST"],
    allowedHeaders: ["content-type"],
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

  app.get(
    "/:vendorId/availability",
    {
      schema: {
        tags,
        operationId: "getPublicAvailability",
        summary: "Free start times (public)",
        description:
          "No credentials. As GET /api/vendor/availability, for the types the shop offers online only (another type is 400 naming it). An unknown shop is 404.",
        params: VendorIdParams,
        querystring: AvailabilityQuery,
        security: [],
        response: { 200: AvailabilitySchema },
      },
    },
    async (request) => readAvailability(ctx, request.params.vendorId, request.query, { onlineOnly: true }),
  );

  app.post(
    "/:vendorId/bookings",
    {
      config: { errors: ["slot_taken"] },
      schema: {
        tags,
        operationId: "createBooking",
        summary: "Book a free start time (public)",
        description:
          "No credentials. Creates the appointment (PROPOSED, or CONFIRMED when the shop confirms at once) and, unless a customer of the shop has the e-mail, the customer (language from the body, else Accept-Language). Emits appointment.created (and customer.created for a new customer) and mails the customer and the shop. A start that is not free when the booking is made, because another took its last place meanwhile, is 409 slot_taken: of two bookings of the last place, exactly one succeeds.",
        params: VendorIdParams,
        body: BookingBody,
        security: [],
        response: { 201: BookedSchema },
      },
    },
    async (request, reply) => {
      const booked = await bookSlot(ctx, request.params.vendorId, request.body, {
        browserLanguage: negotiateLanguage(request.headers["accept-language"], "") || undefined,
      });
      return created(reply, `/api/vendor/appointments/${booked.id}`).send(booked);
    },
  );
};
