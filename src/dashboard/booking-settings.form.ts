// The Online booking form (booking-settings.pages.ts) read into the API's own update body, and
// every refusal put back on the control it came from, in the reader's language. The rules live
// once: the body is checked against UpdateBookingSettingsBody (the schema PUT
// /api/vendor/booking/settings validates with) and saved by updateBookingSettings (the service
// behind it); this file only translates between form controls and that body.
// - A day is closed when its "Closed" box is ticked or none of its rows is filled; a row with only
//   one of its two times is refused here (the API has no half interval to refuse).
// - Minimum notice is typed in hours (the API keeps minutes); the reminder in minutes or hours.
// - A number that is not one reaches the schema as typed, so the schema names it.
import type { AppointmentTypeName, Weekday } from "../db/schema/booking.ts";
import type { FieldError } from "../errors.ts";
import type { Translator } from "../i18n/translator.ts";
import { UpdateBookingSettingsBody } from "../modules/booking/booking.schemas.ts";
import { type BookingSettings, bookingSettingsProblems } from "../modules/booking/settings.service.ts";
import { type Form, field, formErrors } from "../web/form.ts";

export const WEEKDAYS: readonly Weekday[] = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];
export const TYPES: readonly AppointmentTypeName[] = ["CONSULTATION", "FITTING", "PICKUP"];
/** Interval rows a day offers: two (a lunch break), or more when the API saved more. */
export const ROWS_PER_DAY = 2;
const MAX_ROWS = 8;

export const typeNumbers = ["duration", "bufferAfter", "minNoticeHours", "maxDaysAhead", "capacity"] as const;
export type TypeNumber = (typeof typeNumbers)[number];

/** What the form shows: every control's text, as typed or as saved. */
export interface BookingForm {
  address: string;
  instantConfirmation: boolean;
  reminderAmount: string;
  reminderUnit: "minutes" | "hours";
  rescheduleCutoffHours: string;
  closedDates: string;
  days: Record<Weekday, { closed: boolean; rows: { from: string; to: string }[] }>;
  types: Record<AppointmentTypeName, { online: boolean } & Record<TypeNumber, string>>;
}

const hoursOf = (minutes: number) => String(Math.round((minutes / 60) * 100) / 100);

/** The saved settings as the form shows them. */
export function formOfSettings(s: BookingSettings): BookingForm {
  const inHours = s.reminderMinutesBefore > 0 && s.reminderMinutesBefore % 60 === 0;
  return {
    address: s.address ?? "",
    instantConfirmation: s.instantConfirmation,
    reminderAmount: String(inHours ? s.reminderMinutesBefore / 60 : s.reminderMinutesBefore),
    reminderUnit: inHours ? "hours" : "minutes",
    rescheduleCutoffHours: String(s.rescheduleCutoffHours),
    closedDates: s.closedDates.join("\n"),
    days: Object.fromEntries(
      WEEKDAYS.map((day) => [day, { closed: s.openingHours[day].length === 0, rows: s.openingHours[day] }]),
    ) as BookingForm["days"],
    types: Object.fromEntries(
      TYPES.map((type) => {
        const v = s.types[type];
        return [
          type,
          {
            online: v.online,
            duration: String(v.duration),
            bufferAfter: String(v.bufferAfter),
            minNoticeHours: hoursOf(v.minNoticeMinutes),
            maxDaysAhead: String(v.maxDaysAhead),
            capacity: String(v.capacity),
          },
        ];
      }),
    ) as BookingForm["types"],
  };
}

/** The posted form as typed (so it can be shown again unchanged). */
export function formOfPost(form: Form): BookingForm {
  const days = {} as BookingForm["days"];
  for (const day of WEEKDAYS) {
    const rows: { from: string; to: string }[] = [];
    for (let i = 0; i < MAX_ROWS; i++) {
      const from = form[`openingHours.${day}.${i}.from`];
      const to = form[`openingHours.${day}.${i}.to`];
      if (from === undefined && to === undefined) continue;
      rows[i] = {
        from: field(form, `openingHours.${day}.${i}.from`).trim(),
        to: field(form, `openingHours.${day}.${i}.to`).trim(),
      };
    }
    days[day] = {
      closed: field(form, `openingHours.${day}.closed`) === "on",
      rows: Array.from(rows, (r) => r ?? { from: "", to: "" }),
    };
  }
  const types = {} as BookingForm["types"];
  for (const type of TYPES) {
    const numbers = Object.fromEntries(
      typeNumbers.map((n) => [n, field(form, `types.${type}.${n}`).trim()]),
    ) as Record<TypeNumber, string>;
    types[type] = { online: field(form, `types.${type}.online`) === "on", ...numbers };
  }
  return {
    address: field(form, "address"),
    instantConfirmation: field(form, "instantConfirmation") === "on",
    reminderAmount: field(form, "reminderAmount").trim(),
    reminderUnit: field(form, "reminderUnit") === "hours" ? "hours" : "minutes",
    rescheduleCutoffHours: field(form, "rescheduleCutoffHours").trim(),
    closedDates: field(form, "closedDates"),
    days,
    types,
  };
}

const whole = (text: string): number | string => (/^\d{1,7}$/.test(text) ? Number(text) : text);

/** Hours with at most two decimals ("1.5", "1,5") as whole minutes; anything else as typed. */
const minutesOfHours = (text: string): number | string =>
  /^\d{1,6}([.,]\d{1,2})?$/.test(text) ? Math.round(Number(text.replace(",", ".")) * 60) : text;

/** Where each body interval came from: body index → form row, per day. */
type RowMap = Record<Weekday, number[]>;

/** The API's update body for the form, the form's own refusals, and where each interval came from. */
export function bodyOf(f: BookingForm): {
  body: UpdateBookingSettingsBody;
  errors: FieldError[];
  rows: RowMap;
} {
  const errors: FieldError[] = [];
  const rows = {} as RowMap;
  const openingHours: Record<string, { from: string; to: string }[]> = {};
  for (const day of WEEKDAYS) {
    rows[day] = [];
    const intervals: { from: string; to: string }[] = [];
    if (!f.days[day].closed) {
      f.days[day].rows.forEach((row, i) => {
        if (row.from === "" && row.to === "") return;
        if (row.from === "" || row.to === "") {
          errors.push({ field: `openingHours.${day}.${i}`, message: "bothTimes" });
          return;
        }
        rows[day].push(i);
        intervals.push({ from: row.from, to: row.to });
      });
    }
    openingHours[day] = intervals;
  }
  const amount = whole(f.reminderAmount);
  const reminder = typeof amount === "number" && f.reminderUnit === "hours" ? amount * 60 : amount;
  const types = Object.fromEntries(
    TYPES.map((type) => {
      const v = f.types[type];
      return [
        type,
        {
          online: v.online,
          duration: whole(v.duration),
          bufferAfter: whole(v.bufferAfter),
          minNoticeMinutes: minutesOfHours(v.minNoticeHours),
          maxDaysAhead: whole(v.maxDaysAhead),
          capacity: whole(v.capacity),
        },
      ];
    }),
  );
  const address = f.address.trim();
  const body = {
    address: address === "" ? null : f.address,
    instantConfirmation: f.instantConfirmation,
    reminderMinutesBefore: reminder,
    rescheduleCutoffHours: whole(f.rescheduleCutoffHours),
    openingHours,
    closedDates: f.closedDates
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter(Boolean),
    types,
  } as UpdateBookingSettingsBody;
  return { body, errors, rows };
}

/**
 * The form's own refusals and the schema's (the very check the API's PUT makes before its
 * service). When there are some, the service is not reached; so that one answer names every
 * problem, the service's own opening-hours rules (bookingSettingsProblems) are added for the
 * hours typed.
 */
export function readingErrors(
  current: BookingSettings,
  body: UpdateBookingSettingsBody,
  formRefusals: readonly FieldError[],
): FieldError[] {
  const errors = [...formRefusals, ...formErrors(UpdateBookingSettingsBody, body)];
  if (errors.length === 0) return errors;
  const hours = { ...current.openingHours, ...body.openingHours };
  const ruleErrors = bookingSettingsProblems({ ...current, openingHours: hours }).filter((e) =>
    e.field.startsWith("openingHours."),
  );
  return [...errors, ...ruleErrors];
}

const typeSchema = UpdateBookingSettingsBody.properties.types.properties.FITTING.properties;
const range = (schema: { minimum?: number; maximum?: number }, per = 1) => ({
  min: (schema.minimum ?? 0) / per,
  max: (schema.maximum ?? 0) / per,
});
const apiField: Record<TypeNumber, keyof typeof typeSchema> = {
  duration: "duration",
  bufferAfter: "bufferAfter",
  minNoticeHours: "minNoticeMinutes",
  maxDaysAhead: "maxDaysAhead",
  capacity: "capacity",
};

/**
 * A refusal (the form's, the schema's or the service's, in the API's field paths) on the form's
 * control, in the reader's words; `body` and `rows` say which date or row an index meant.
 */
export function localizedError(
  t: Translator,
  error: FieldError,
  body: UpdateBookingSettingsBody,
  rows: RowMap,
): FieldError {
  const k = (key: string, values?: Record<string, string | number>) =>
    t.t(`dashboard.bookingSettings.errors.${key}`, values);
  const path = error.field.split(".");
  const [head, second, third, fourth] = path;
  if (head === "openingHours" && second && WEEKDAYS.includes(second as Weekday)) {
    const day = second as Weekday;
    if (error.message === "bothTimes")
      return { field: `openingHours.${day}.${third}`, message: k("bothTimes") };
    const row = rows[day][Number(third)] ?? Number(third);
    const base = `openingHours.${day}.${row}`;
    if (fourth === undefined) return { field: base, message: k("overlap") };
    if (/after/.test(error.message)) return { field: `${base}.to`, message: k("toBeforeFrom") };
    return { field: `${base}.${fourth}`, message: k("time") };
  }
  if (head === "types" && second && third) {
    const control = (Object.keys(apiField) as TypeNumber[]).find((n) => apiField[n] === third);
    if (control) {
      const schema = typeSchema[apiField[control]] as { minimum?: number; maximum?: number };
      const per = control === "minNoticeHours" ? 60 : 1;
      return {
        field: `types.${second}.${control}`,
        message: k(per === 60 ? "hours" : "number", range(schema, per)),
      };
    }
  }
  if (head === "reminderMinutesBefore") return { field: "reminderAmount", message: k("reminder") };
  if (head === "rescheduleCutoffHours") {
    const schema = UpdateBookingSettingsBody.properties.rescheduleCutoffHours as {
      minimum?: number;
      maximum?: number;
    };
    return { field: head, message: k("number", range(schema)) };
  }
  if (head === "address") {
    return { field: head, message: /lines/.test(error.message) ? k("addressLines") : k("addressLength") };
  }
  if (head === "closedDates") {
    const value = second === undefined ? undefined : body.closedDates?.[Number(second)];
    return {
      field: head,
      message: value === undefined ? k("closedDates") : k("date", { value }),
    };
  }
  return { field: error.field, message: k("invalid") };
}
