// A shop's free start times for one appointment type over a window of its calendar days
// (CONTRACT 12, Availability): the settings, one query for the window's PROPOSED and CONFIRMED
// appointments, and the pure rule of slots.ts. Used by the vendor API, the public API and page,
// the booking's re-check inside its transaction, and a reschedule (which leaves out the
// appointment being moved).
import type { Executor } from "../../db/client.ts";
import type { AppointmentTypeName } from "../../db/schema/booking.ts";
import { fieldError } from "../../errors.ts";
import { parseDate } from "../../lib/instants.ts";
import { fromLocalInput, localDate } from "../../lib/time-zone.ts";
import { listBusyAppointments } from "./booking.repository.ts";
import { BOOKING_TYPES } from "./settings.defaults.ts";
import { type BookingSettings, getBookingSettings } from "./settings.repository.ts";
import { type Busy, freeSlots } from "./slots.ts";

/** The widest window one request may ask for, in days (CONTRACT 12). */
export const MAX_WINDOW_DAYS = 62;
const MINUTE = 60_000;
const DAY = 86_400_000;
/** The longest an appointment occupies: 480 minutes (the API's bound) plus a 240-minute buffer. */
const LONGEST_OCCUPIED_MS = (480 + 240) * MINUTE;

export interface AvailabilityQuery {
  type: AppointmentTypeName;
  /** First and last calendar day in the shop's zone, YYYY-MM-DD, inclusive. */
  from: string;
  to: string;
  /** An appointment to leave out (the one a reschedule moves). */
  excludeAppointmentId?: string | undefined;
  /** The time minimum notice counts from; default the real clock. */
  now?: Date | undefined;
  /** Settings already read in this transaction. */
  settings?: BookingSettings | undefined;
}

export interface Availability {
  timeZone: string;
  type: AppointmentTypeName;
  duration: number;
  /** UTC timestamps, ascending. */
  slots: string[];
}

const addDays = (day: string, days: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);

/** Checks the window: real dates, `to` not before `from`, at most MAX_WINDOW_DAYS days. */
export function assertWindow(from: string, to: string): void {
  if (!parseDate(from)) throw fieldError("validation_failed", "from", "must be a date (YYYY-MM-DD)");
  if (!parseDate(to)) throw fieldError("validation_failed", "to", "must be a date (YYYY-MM-DD)");
  if (to < from) throw fieldError("validation_failed", "to", "must not be before from");
  if (to > addDays(from, MAX_WINDOW_DAYS - 1)) {
    throw fieldError(
      "validation_failed",
      "to",
      `must be at most ${MAX_WINDOW_DAYS} days after from, counting both`,
    );
  }
}

/** Today and the default two weeks, in the shop's zone, for a query that leaves them out. */
export function defaultWindow(zone: string, now: Date, from?: string): { from: string; to: string } {
  const start = from ?? localDate(now, zone);
  return { from: start, to: addDays(start, 13) };
}

export async function availableSlots(
  db: Executor,
  vendorId: string,
  query: AvailabilityQuery,
): Promise<Availability> {
  assertWindow(query.from, query.to);
  const settings = query.settings ?? (await getBookingSettings(db, vendorId));
  const zone = settings.timeZone;
  const offer = settings.types[query.type];
  const now = (query.now ?? new Date()).getTime();
  const windowStart = (fromLocalInput(query.from, zone) as Date).getTime();
  const windowEnd = (fromLocalInput(addDays(query.to, 1), zone) as Date).getTime();
  // Bookable up to the end of the day maxDaysAhead days after today, in the shop's zone.
  const lastDay = addDays(localDate(new Date(now), zone), offer.maxDaysAhead);
  const latest = (fromLocalInput(addDays(lastDay, 1), zone) as Date).getTime();
  const rows = await listBusyAppointments(
    db,
    vendorId,
    new Date(windowStart - LONGEST_OCCUPIED_MS),
    new Date(windowEnd),
    query.excludeAppointmentId,
  );
  const buffers = Object.fromEntries(BOOKING_TYPES.map((t) => [t, settings.types[t].bufferAfter]));
  const busy: Busy[] = rows.map((r) => ({
    start: r.date.getTime(),
    end: r.date.getTime() + (r.duration + (buffers[r.type] ?? 0)) * MINUTE,
  }));
  const slots = freeSlots({
    zone,
    hours: settings.openingHours,
    closedDates: new Set(settings.closedDates),
    fromDay: query.from,
    toDay: query.to,
    duration: offer.duration,
    bufferAfter: offer.bufferAfter,
    capacity: offer.capacity,
    earliest: now + offer.minNoticeMinutes * MINUTE,
    latest,
    busy,
  });
  return {
    timeZone: zone,
    type: query.type,
    duration: offer.duration,
    slots: slots.map((at) => new Date(at).toISOString()),
  };
}
