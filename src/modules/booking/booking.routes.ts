import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { ServiceContext } from "../../context.ts";
import { principalOf } from "../../http/authenticate.ts";
import { authenticatedErrors, bodyErrors, problemResponses } from "../../http/common-schemas.ts";
import { BookingSettingsSchema, UpdateBookingSettingsBody } from "./booking.schemas.ts";
import { readBookingSettings, updateBookingSettings } from "./settings.service.ts";

const tags = ["Booking"];

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
        response: { 200: BookingSettingsSchema, ...problemResponses(...authenticatedErrors) },
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
        response: { 200: BookingSettingsSchema, ...problemResponses(...authenticatedErrors, ...bodyErrors) },
      },
    },
    async (request) => updateBookingSettings(ctx, principalOf(request).vendorId, request.body),
  );
};
