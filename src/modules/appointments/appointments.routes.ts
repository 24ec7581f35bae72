import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import type { ServiceContext } from "../../context.ts";
import { declareApiTag, transitionTable } from "../../http/api-tags.ts";
import { principalOf } from "../../http/authenticate.ts";
import { IdParams } from "../../http/common-schemas.ts";
import { underIfMatch, underIfMatchDeleting, withEtag } from "../../http/conditional.ts";
import { created } from "../../http/created.ts";
import {
  AppointmentListResponse,
  AppointmentSchema,
  CreateAppointmentBody,
  ListAppointmentsQuery,
  UpdateAppointmentBody,
} from "./appointments.schemas.ts";
import {
  createAppointment,
  deleteAppointment,
  getAppointment,
  listAppointmentsForApi,
  lockedAppointmentJson,
  updateAppointment,
} from "./appointments.service.ts";
import { appointmentTransitions } from "./appointments.workflow.ts";

const tags = declareApiTag(
  "Appointments",
  "Appointments with customers. A new appointment is PROPOSED; its status moves as follows:\n\n" +
    transitionTable(appointmentTransitions) +
    "\n\nOnly a PROPOSED or CANCELLED appointment can be deleted.",
);

export const appointmentRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (app, { ctx }) => {
  app.get(
    "/appointments",
    {
      config: { scope: "appointments:read" },
      schema: {
        tags,
        operationId: "listAppointments",
        summary: "List appointments",
        description:
          "Sorted by date, earliest first. `from`/`to` accept a date or a date-time and are inclusive; a bare `to` date covers that whole UTC day.",
        querystring: ListAppointmentsQuery,
        response: { 200: AppointmentListResponse },
      },
    },
    async (request) => listAppointmentsForApi(ctx, principalOf(request).vendorId, request.query),
  );

  app.post(
    "/appointments",
    {
      config: { scope: "appointments:write", errors: ["unknown_reference", "external_id_taken"] },
      schema: {
        tags,
        operationId: "createAppointment",
        summary: "Create an appointment",
        description:
          "Creates a PROPOSED appointment for an existing customer, optionally linked to one of that customer's orders. A customerId or orderId that is not the vendor's is 400 unknown_reference. Emits appointment.created.",
        body: CreateAppointmentBody,
        response: { 201: AppointmentSchema },
      },
    },
    async (request, reply) => {
      const appointment = await createAppointment(ctx, principalOf(request).vendorId, request.body);
      withEtag(reply, appointment);
      return created(reply, `/api/vendor/appointments/${appointment.id}`).send(appointment);
    },
  );

  app.get(
    "/appointments/:id",
    {
      config: { scope: "appointments:read" },
      schema: {
        tags,
        operationId: "getAppointment",
        summary: "Retrieve an appointment",
        params: IdParams,
        response: { 200: AppointmentSchema },
      },
    },
    async (request, reply) => {
      const appointment = await getAppointment(ctx, principalOf(request).vendorId, request.params.id);
      withEtag(reply, appointment);
      return appointment;
    },
  );

  for (const method of ["PATCH", "PUT"] as const) {
    app.route({
      method,
      url: "/appointments/:id",
      config: {
        scope: "appointments:write",
        ifMatch: true,
        errors: ["unknown_reference", "invalid_transition", "external_id_taken"],
      },
      schema: {
        tags,
        operationId: method === "PATCH" ? "updateAppointment" : "replaceAppointment",
        summary:
          method === "PATCH"
            ? "Update an appointment"
            : "Update an appointment (PUT, same partial semantics)",
        description:
          "Partial update: fields left out are unchanged, null clears an optional field. A status move must follow the table under Appointments (409 invalid_transition otherwise); moving to CONFIRMED, CANCELLED or COMPLETED emits appointment.confirmed, appointment.cancelled or appointment.completed; a change of date, duration, type, notes, customer or order emits appointment.updated.",
        params: IdParams,
        body: UpdateAppointmentBody,
        response: { 200: AppointmentSchema },
      },
      handler: async (request, reply) => {
        const { vendorId } = principalOf(request);
        const { id } = request.params;
        const appointment = await underIfMatch(
          ctx,
          request,
          () => lockedAppointmentJson(ctx, vendorId, id),
          () => updateAppointment(ctx, vendorId, id, request.body),
        );
        withEtag(reply, appointment);
        return appointment;
      },
    });
  }

  app.delete(
    "/appointments/:id",
    {
      config: { scope: "appointments:write", ifMatch: true, errors: ["appointment_not_deletable"] },
      schema: {
        tags,
        operationId: "deleteAppointment",
        summary: "Delete an appointment",
        description:
          "Only a PROPOSED or CANCELLED appointment can be deleted; any other is 409 appointment_not_deletable.",
        params: IdParams,
        response: { 204: Type.Null({ description: "Deleted" }) },
      },
    },
    async (request, reply) => {
      const { vendorId } = principalOf(request);
      const { id } = request.params;
      const etag = await underIfMatchDeleting(
        ctx,
        request,
        () => lockedAppointmentJson(ctx, vendorId, id),
        () => deleteAppointment(ctx, vendorId, id),
      );
      if (etag) reply.header("etag", etag);
      return reply.code(204).send(null);
    },
  );
};
