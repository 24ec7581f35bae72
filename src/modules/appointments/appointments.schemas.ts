import { type Static, Type } from "@sinclair/typebox";
import {
  ExternalId,
  ExternalIdFilter,
  Id,
  IncludeDeleted,
  Metadata,
  NextCursor,
  NullableString,
  PageQuery,
  StringEnum,
  SyncSince,
  Timestamp,
  TombstoneSchema,
} from "../../http/common-schemas.ts";
import { named, namedObject } from "../../http/schema-names.ts";
import { appointmentStatuses, appointmentTypes } from "./appointments.workflow.ts";

// Unnamed, for the optional fields and the list's filter below, which the document shows inline
// (a query parameter's schema loses its description to the parameter, so it cannot be the
// component itself).
const appointmentType = StringEnum(appointmentTypes, { description: "Kind of appointment" });
const appointmentStatus = StringEnum(appointmentStatuses, {
  description: "Appointment status: PROPOSED → CONFIRMED | CANCELLED, CONFIRMED → COMPLETED | CANCELLED",
});
export const AppointmentTypeSchema = named("AppointmentType", { ...appointmentType });
export const AppointmentStatusSchema = named("AppointmentStatus", { ...appointmentStatus });

export const AppointmentSchema = namedObject(
  "Appointment",
  {
    id: Id,
    customerId: Id,
    orderId: Type.Union([Id, Type.Null()], { description: "The linked order, if any" }),
    type: AppointmentTypeSchema,
    status: AppointmentStatusSchema,
    date: Type.String({ format: "date-time", description: "Start, as a UTC instant with milliseconds" }),
    duration: Type.Integer({ description: "Minutes" }),
    notes: NullableString(),
    externalId: Type.Union([Type.String(), Type.Null()], {
      description: "Your own id for the appointment, if set",
    }),
    metadata: Type.Record(Type.String(), Type.String(), {
      description: "Your own string pairs ({} when none)",
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { description: "An appointment with a customer" },
);

const DateWithOffset = Type.String({
  format: "date-time",
  maxLength: 64,
  description: "Start: ISO 8601 date-time with an offset or Z, e.g. 2027-03-29T10:00:00+01:00",
});
const Duration = Type.Integer({ minimum: 15, maximum: 480, description: "Minutes, 15-480" });
const Notes = NullableString({ maxLength: 5000, description: "Notes about the appointment" });
const OrderRef = Type.Unsafe<string | null>({
  type: ["string", "null"],
  maxLength: 64,
  description: "An order of the same vendor and the same customer",
});

export const CreateAppointmentBody = namedObject(
  "CreateAppointment",
  {
    customerId: Type.String({ maxLength: 64, description: "An existing customer of the vendor" }),
    type: AppointmentTypeSchema,
    date: DateWithOffset,
    duration: Type.Optional({ ...Duration, default: 60, description: "Minutes, 15-480, default 60" }),
    notes: Type.Optional(Notes),
    orderId: Type.Optional(OrderRef),
    externalId: Type.Optional(ExternalId),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type CreateAppointmentBody = Static<typeof CreateAppointmentBody>;

export const UpdateAppointmentBody = namedObject(
  "UpdateAppointment",
  {
    customerId: Type.Optional(
      Type.String({ maxLength: 64, description: "An existing customer of the vendor" }),
    ),
    type: Type.Optional(appointmentType),
    status: Type.Optional(appointmentStatus),
    date: Type.Optional(DateWithOffset),
    duration: Type.Optional(Duration),
    notes: Type.Optional(Notes),
    orderId: Type.Optional(OrderRef),
    externalId: Type.Optional(ExternalId),
    metadata: Type.Optional(Metadata),
  },
  {
    additionalProperties: false,
    description:
      "Partial update: fields left out are unchanged, null clears notes or orderId. A status move follows the table under Appointments.",
  },
);
export type UpdateAppointmentBody = Static<typeof UpdateAppointmentBody>;

const DateOrDateTime = (description: string) =>
  Type.String({
    maxLength: 64,
    description: `${description}: a date (YYYY-MM-DD) or a date-time with offset`,
  });

export const ListAppointmentsQuery = Type.Object({
  ...PageQuery,
  from: Type.Optional(DateOrDateTime("Earliest start, inclusive")),
  to: Type.Optional(DateOrDateTime("Latest start, inclusive; a bare date covers that whole UTC day")),
  status: Type.Optional(appointmentStatus),
  customerId: Type.Optional(Type.String({ maxLength: 64, description: "Only this customer's appointments" })),
  updatedSince: Type.Optional(SyncSince("appointments updated", "updatedAt")),
  externalId: Type.Optional(ExternalIdFilter),
  includeDeleted: Type.Optional(IncludeDeleted),
});
export type ListAppointmentsQuery = Static<typeof ListAppointmentsQuery>;

export const AppointmentListResponse = namedObject("AppointmentList", {
  appointments: Type.Array(Type.Union([AppointmentSchema, TombstoneSchema]), {
    description:
      "Sorted by date, earliest first; with includeDeleted, by updatedAt newest first with tombstones of deleted appointments",
  }),
  nextCursor: NextCursor,
});
