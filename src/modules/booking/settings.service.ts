// A shop's booking settings (CONTRACT 12): read with its defaults, written partially (CONTRACT 1).
// Rules the schema cannot say, each refused as validation_failed naming the field:
// - an opening interval ends after it starts, and a day's intervals do not overlap;
// - a closed date is a real calendar date (listed once, kept ascending);
// - reminderMinutesBefore is 0 (none) or 15-10080;
// - the time zone is an IANA zone; the address at most 6 lines.
import type { ServiceContext } from "../../context.ts";
import type { OpeningHours } from "../../db/schema/booking.ts";
import { AppError, type FieldError } from "../../errors.ts";
import { parseDate } from "../../lib/instants.ts";
import { isTimeZone } from "../../lib/time-zone.ts";
import { recordActivity } from "../activity/activity.repository.ts";
import type { UpdateBookingSettingsBody } from "./booking.schemas.ts";
import { BOOKING_TYPES, WEEKDAYS } from "./settings.defaults.ts";
import { type BookingSettings, getBookingSettings, saveBookingSettings } from "./settings.repository.ts";

export type { BookingSettings } from "./settings.repository.ts";

/** "HH:MM" as minutes after midnight ("24:00" is 1440). */
export function minutesOf(hhmm: string): number {
  return Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
}

function hoursProblems(hours: OpeningHours): FieldError[] {
  const errors: FieldError[] = [];
  for (const day of WEEKDAYS) {
    const intervals = hours[day].map((iv, index) => ({ ...iv, index }));
    for (const iv of intervals) {
      if (minutesOf(iv.to) <= minutesOf(iv.from)) {
        errors.push({ field: `openingHours.${day}.${iv.index}.to`, message: "must be after from" });
      }
    }
    const sorted = [...intervals].sort((a, b) => minutesOf(a.from) - minutesOf(b.from));
    for (let i = 1; i < sorted.length; i++) {
      const prev = sorted[i - 1];
      const cur = sorted[i];
      if (prev && cur && minutesOf(cur.from) < minutesOf(prev.to)) {
        errors.push({
          field: `openingHours.${day}.${cur.index}`,
          message: `must not overlap ${prev.from}-${prev.to}`,
        });
      }
    }
  }
  return errors;
}

/** Every rule above that `settings` breaks, as CONTRACT 2's errors[]. */
export function bookingSettingsProblems(settings: BookingSettings): FieldError[] {
  const errors: FieldError[] = [];
  if (!isTimeZone(settings.timeZone)) {
    errors.push({ field: "timeZone", message: "must be an IANA time zone such as Europe/Berlin" });
  }
  if (settings.address !== null && settings.address.split("\n").length > 6) {
    errors.push({ field: "address", message: "must have at most 6 lines" });
  }
  errors.push(...hoursProblems(settings.openingHours));
  settings.closedDates.forEach((date, i) => {
    if (!parseDate(date)) errors.push({ field: `closedDates.${i}`, message: "must be a date (YYYY-MM-DD)" });
  });
  const r = settings.reminderMinutesBefore;
  if (r !== 0 && (r < 15 || r > 10_080)) {
    errors.push({ field: "reminderMinutesBefore", message: "must be 0 (no reminder) or 15-10080" });
  }
  return errors;
}

/** The settings with `input` applied: left out, unchanged; per weekday and per type field. */
function applied(current: BookingSettings, input: UpdateBookingSettingsBody): BookingSettings {
  const next: BookingSettings = structuredClone(current);
  if (input.timeZone !== undefined) next.timeZone = input.timeZone;
  if (input.address !== undefined) {
    const lines = input.address
      ?.replace(/\r\n?/g, "\n")
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean);
    next.address = lines && lines.length > 0 ? lines.join("\n") : null;
  }
  for (const day of WEEKDAYS) {
    const hours = input.openingHours?.[day];
    if (hours) next.openingHours[day] = hours.map(({ from, to }) => ({ from, to }));
  }
  if (input.closedDates) next.closedDates = [...new Set(input.closedDates)].sort();
  if (input.instantConfirmation !== undefined) next.instantConfirmation = input.instantConfirmation;
  if (input.reminderMinutesBefore !== undefined) next.reminderMinutesBefore = input.reminderMinutesBefore;
  if (input.rescheduleCutoffHours !== undefined) next.rescheduleCutoffHours = input.rescheduleCutoffHours;
  for (const type of BOOKING_TYPES) {
    const patch = input.types?.[type];
    if (patch) next.types[type] = { ...next.types[type], ...patch };
  }
  return next;
}

export async function readBookingSettings(ctx: ServiceContext, vendorId: string): Promise<BookingSettings> {
  return getBookingSettings(ctx.db, vendorId);
}

/** Applies a partial update (CONTRACT 1), all or nothing; the activity log names the fields changed. */
export async function updateBookingSettings(
  ctx: ServiceContext,
  vendorId: string,
  input: UpdateBookingSettingsBody,
): Promise<BookingSettings> {
  return ctx.db.transaction(async (tx) => {
    const now = ctx.now();
    const current = await getBookingSettings(tx, vendorId);
    const next = applied(current, input);
    const errors = bookingSettingsProblems(next);
    if (errors.length > 0) {
      throw new AppError("validation_failed", errors.map((e) => `${e.field} ${e.message}`).join("; "), {
        errors,
      });
    }
    const fields = (Object.keys(next) as (keyof BookingSettings)[]).filter(
      (field) => JSON.stringify(next[field]) !== JSON.stringify(current[field]),
    );
    if (fields.length === 0) return current;
    await saveBookingSettings(tx, vendorId, next, now);
    await recordActivity(tx, {
      vendorId,
      action: "settings.changed",
      subjectId: null,
      at: now,
      detail: { fields: fields.map((f) => (f === "timeZone" || f === "address" ? f : `booking.${f}`)) },
    });
    return next;
  });
}
