import { boolean, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { updatedAt } from "./columns.ts";
import { vendors } from "./vendors.ts";

/** A weekday's opening intervals, wall-clock "HH:MM" in the shop's zone (CONTRACT 12). */
export type OpeningInterval = { from: string; to: string };
export type Weekday = "mon" | "tue" | "wed" | "thu" | "fri" | "sat" | "sun";
export type OpeningHours = Record<Weekday, OpeningInterval[]>;
export type AppointmentTypeName = "CONSULTATION" | "FITTING" | "PICKUP";
/** How one appointment type is offered (CONTRACT 12, Booking settings). */
export interface BookingTypeSettings {
  online: boolean;
  duration: number;
  bufferAfter: number;
  minNoticeMinutes: number;
  maxDaysAhead: number;
  capacity: number;
}
export type BookingTypes = Record<AppointmentTypeName, BookingTypeSettings>;

/**
 * A shop's booking settings (CONTRACT 12) beyond its time zone and address, which stay on
 * `vendors`. No row: the defaults of src/modules/booking/settings.defaults.ts. The JSON columns
 * are written whole, validated by the service.
 */
export const bookingSettings = pgTable("booking_settings", {
  vendorId: text("vendor_id")
    .primaryKey()
    .references(() => vendors.id, { onDelete: "cascade" }),
  openingHours: jsonb("opening_hours").$type<OpeningHours>().notNull(),
  closedDates: jsonb("closed_dates").$type<string[]>().notNull(),
  instantConfirmation: boolean("instant_confirmation").notNull(),
  reminderMinutesBefore: integer("reminder_minutes_before").notNull(),
  rescheduleCutoffHours: integer("reschedule_cutoff_hours").notNull(),
  types: jsonb("types").$type<BookingTypes>().notNull(),
  updatedAt: updatedAt(),
});
