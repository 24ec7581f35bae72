import { type Static, Type } from "@sinclair/typebox";
import { DateOnly, DisplayName, NullableString, StringEnum, Timestamp } from "../../http/common-schemas.ts";
import { namedObject } from "../../http/schema-names.ts";

const HHMM = "^([01][0-9]|2[0-3]):[0-5][0-9]$|^24:00$";

const Interval = Type.Object(
  {
    from: Type.String({ pattern: HHMM, description: "Opening time, HH:MM on the shop's wall clock" }),
    to: Type.String({
      pattern: HHMM,
      description:
        "Closing time, HH:MM on the shop's wall clock (24:00 is midnight at the day's end); after `from`",
    }),
  },
  { additionalProperties: false },
);
const Day = (name: string) =>
  Type.Array(Interval, {
    maxItems: 8,
    description: `${name}'s opening intervals, not overlapping; [] when closed`,
  });

const weekdayNames = {
  mon: "Monday",
  tue: "Tuesday",
  wed: "Wednesday",
  thu: "Thursday",
  fri: "Friday",
  sat: "Saturday",
  sun: "Sunday",
} as const;
const weekHoursOptions = {
  additionalProperties: false,
  description: "Opening hours per weekday, wall-clock times in the shop's time zone",
};
const days = Object.fromEntries(Object.entries(weekdayNames).map(([k, name]) => [k, Day(name)])) as Record<
  keyof typeof weekdayNames,
  ReturnType<typeof Day>
>;
const WeekHours = Type.Object(days, weekHoursOptions);
const WeekHoursPatch = Type.Partial(WeekHours, weekHoursOptions);

const typeFields = {
  online: Type.Boolean({
    description: "Whether customers may book this type themselves (public availability and booking)",
  }),
  duration: Type.Integer({
    minimum: 5,
    maximum: 720,
    description: "Minutes an appointment of this type lasts",
  }),
  bufferAfter: Type.Integer({ minimum: 0, maximum: 240, description: "Minutes kept free after it" }),
  minNoticeMinutes: Type.Integer({
    minimum: 0,
    maximum: 43_200,
    description: "How long before its start a slot can still be booked, in minutes",
  }),
  maxDaysAhead: Type.Integer({
    minimum: 1,
    maximum: 365,
    description: "How many days ahead slots are offered",
  }),
  capacity: Type.Integer({
    minimum: 1,
    maximum: 50,
    description: "How many appointments (of any type) may overlap it: fitting rooms or stylists",
  }),
};
const TypeSettings = Type.Object(typeFields, { additionalProperties: false });
const TypeSettingsPatch = Type.Partial(Type.Object(typeFields), { additionalProperties: false });

const reminder = {
  description: "Minutes before a CONFIRMED appointment its reminder is mailed; 0 = none, else 15-10080",
};
const cutoff = {
  minimum: 0,
  maximum: 720,
  description: "Hours before the start after which the customer can no longer move or cancel it herself",
};
const address = "The shop's postal address, lines separated by newlines (the calendar invitation's LOCATION)";

export const BookingSettingsSchema = namedObject(
  "BookingSettings",
  {
    timeZone: Type.String({
      description: "The shop's IANA time zone (the same as in Settings)",
      examples: ["Europe/Berlin"],
    }),
    address: Type.Union([Type.String(), Type.Null()], { description: address }),
    openingHours: WeekHours,
    closedDates: Type.Array(DateOnly, { description: "Dates the shop is closed, ascending" }),
    instantConfirmation: Type.Boolean({
      description: "Whether a booking made by a customer is CONFIRMED at once (else PROPOSED)",
    }),
    reminderMinutesBefore: Type.Integer(reminder),
    rescheduleCutoffHours: Type.Integer(cutoff),
    types: Type.Object(
      { CONSULTATION: TypeSettings, FITTING: TypeSettings, PICKUP: TypeSettings },
      { description: "How each appointment type is offered" },
    ),
  },
  {
    description:
      "The shop's booking settings: when it opens, and how each appointment type is offered online",
  },
);

export const UpdateBookingSettingsBody = namedObject(
  "UpdateBookingSettings",
  {
    timeZone: Type.Optional(Type.String({ maxLength: 100, description: "IANA time zone" })),
    address: Type.Optional(NullableString({ maxLength: 500, description: `${address}; null clears it` })),
    openingHours: Type.Optional(WeekHoursPatch),
    closedDates: Type.Optional(
      Type.Array(DateOnly, { maxItems: 366, description: "Replaces the list of closed dates" }),
    ),
    instantConfirmation: Type.Optional(Type.Boolean()),
    reminderMinutesBefore: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_080, ...reminder })),
    rescheduleCutoffHours: Type.Optional(Type.Integer(cutoff)),
    types: Type.Optional(
      Type.Object(
        {
          CONSULTATION: Type.Optional(TypeSettingsPatch),
          FITTING: Type.Optional(TypeSettingsPatch),
          PICKUP: Type.Optional(TypeSettingsPatch),
        },
        { additionalProperties: false, description: "Per type, the fields given; the others unchanged" },
      ),
    ),
  },
  {
    additionalProperties: false,
    description: "Partial: fields left out are unchanged; a weekday left out of openingHours keeps its hours",
  },
);
export type UpdateBookingSettingsBody = Static<typeof UpdateBookingSettingsBody>;

const TypeParam = StringEnum(["CONSULTATION", "FITTING", "PICKUP"] as const, {
  description: "Appointment type",
});

export const AvailabilityQuery = Type.Object(
  {
    type: TypeParam,
    from: Type.Optional({
      ...DateOnly,
      description: "First day, YYYY-MM-DD in the shop's zone; default today",
    }),
    to: Type.Optional({
      ...DateOnly,
      description:
        "Last day, inclusive, YYYY-MM-DD in the shop's zone, at most 62 days counting both; default from + 13",
    }),
  },
  { additionalProperties: false },
);
export type AvailabilityQuery = Static<typeof AvailabilityQuery>;

export const AvailabilitySchema = namedObject(
  "Availability",
  {
    timeZone: Type.String({ description: "The shop's IANA time zone, which the days are read in" }),
    type: TypeParam,
    duration: Type.Integer({ description: "Minutes an appointment of this type lasts" }),
    slots: Type.Array(Timestamp, { description: "Free start times, UTC, ascending" }),
  },
  {
    description:
      "Free start times of one appointment type, from the shop's hours, closures, buffers and capacity",
  },
);

export const VendorIdParams = Type.Object({ vendorId: Type.String({ description: "The shop's id" }) });

export const BookingBody = namedObject(
  "Booking",
  {
    type: TypeParam,
    start: Type.String({
      format: "date-time",
      description: "One of the free start times the availability answered (any offset)",
    }),
    name: DisplayName("The customer's name"),
    email: Type.String({
      format: "email",
      maxLength: 254,
      description: "The customer's e-mail; matches an existing customer",
    }),
    phone: Type.Optional(NullableString({ maxLength: 40, description: "The customer's phone" })),
    weddingDate: Type.Optional(Type.Union([DateOnly, Type.Null()], { description: "The wedding date" })),
    language: Type.Optional(
      Type.String({
        description: "The customer's language (en, de, fr, it, es, pt, nl, pl); default from Accept-Language",
      }),
    ),
    notes: Type.Optional(NullableString({ maxLength: 2000, description: "A message for the shop" })),
  },
  { additionalProperties: false },
);
export type BookingBody = Static<typeof BookingBody>;

export const BookedSchema = namedObject(
  "Booked",
  {
    id: Type.String({ description: "The appointment's id" }),
    status: StringEnum(["PROPOSED", "CONFIRMED"] as const, {
      description: "CONFIRMED when the shop confirms bookings at once, else PROPOSED",
    }),
    start: Timestamp,
  },
  { description: "The appointment made" },
);
