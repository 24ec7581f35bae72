import { eq } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import type { BookingTypes, OpeningHours } from "../../db/schema/booking.ts";
import { bookingSettings, vendors } from "../../db/schema/index.ts";
import { notFound } from "../../errors.ts";
import {
  BOOKING_TYPES,
  DEFAULT_REMINDER_MINUTES_BEFORE,
  DEFAULT_RESCHEDULE_CUTOFF_HOURS,
  defaultBookingTypes,
  defaultOpeningHours,
  WEEKDAYS,
} from "./settings.defaults.ts";

/** A shop's booking settings, the shape of CONTRACT 12 (`GET /api/vendor/booking/settings`). */
export interface BookingSettings {
  timeZone: string;
  address: string | null;
  openingHours: OpeningHours;
  closedDates: string[];
  instantConfirmation: boolean;
  reminderMinutesBefore: number;
  rescheduleCutoffHours: number;
  types: BookingTypes;
}

/**
 * The shop's booking settings, its own where it saved some and the defaults elsewhere, in one
 * statement; undefined when there is no such vendor. `timeZone` and `address` are the vendor's
 * own columns (the same as in Settings).
 */
export async function findBookingSettings(
  db: Executor,
  vendorId: string,
): Promise<BookingSettings | undefined> {
  const [row] = await db
    .select({ timeZone: vendors.timeZone, address: vendors.address, saved: bookingSettings })
    .from(vendors)
    .leftJoin(bookingSettings, eq(bookingSettings.vendorId, vendors.id))
    .where(eq(vendors.id, vendorId))
    .limit(1);
  if (!row) return undefined;
  const saved = row.saved;
  const hours = defaultOpeningHours();
  const types = defaultBookingTypes();
  // A saved row is whole; reading it over the defaults still gives every key should one be added.
  if (saved) {
    for (const day of WEEKDAYS) hours[day] = saved.openingHours[day] ?? hours[day];
    for (const type of BOOKING_TYPES) types[type] = { ...types[type], ...saved.types[type] };
  }
  return {
    timeZone: row.timeZone,
    address: row.address,
    openingHours: hours,
    closedDates: saved?.closedDates ?? [],
    instantConfirmation: saved?.instantConfirmation ?? false,
    reminderMinutesBefore: saved?.reminderMinutesBefore ?? DEFAULT_REMINDER_MINUTES_BEFORE,
    rescheduleCutoffHours: saved?.rescheduleCutoffHours ?? DEFAULT_RESCHEDULE_CUTOFF_HOURS,
    types,
  };
}

/** The same, or 404 not_found when there is no such vendor. */
export async function getBookingSettings(db: Executor, vendorId: string): Promise<BookingSettings> {
  const settings = await findBookingSettings(db, vendorId);
  if (!settings) throw notFound("Vendor");
  return settings;
}

/** Writes the whole settings: time zone and address on the vendor, the rest in its own row. */
export async function saveBookingSettings(
  db: Executor,
  vendorId: string,
  settings: BookingSettings,
  at: Date,
): Promise<void> {
  await db
    .update(vendors)
    .set({ timeZone: settings.timeZone, address: settings.address, updatedAt: at })
    .where(eq(vendors.id, vendorId));
  const row = {
    openingHours: settings.openingHours,
    closedDates: settings.closedDates,
    instantConfirmation: settings.instantConfirmation,
    reminderMinutesBefore: settings.reminderMinutesBefore,
    rescheduleCutoffHours: settings.rescheduleCutoffHours,
    types: settings.types,
    updatedAt: at,
  };
  await db
    .insert(bookingSettings)
    .values({ vendorId, ...row })
    .onConflictDoUpdate({ target: bookingSettings.vendorId, set: row });
}
