// What a new shop offers before an owner changes anything (CONTRACT 12, Booking settings): a
// bridal shop's week (Tuesday to Saturday, 10:00-18:00 with a lunch hour, Saturday to 16:00;
// Sunday and Monday closed), consultations online, fittings and pickups booked by the shop.
import type { AppointmentTypeName, BookingTypes, OpeningHours, Weekday } from "../../db/schema/booking.ts";

export const WEEKDAYS: readonly Weekday[] = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];
export const BOOKING_TYPES: readonly AppointmentTypeName[] = ["CONSULTATION", "FITTING", "PICKUP"];

export const DEFAULT_REMINDER_MINUTES_BEFORE = 1440;
export const DEFAULT_RESCHEDULE_CUTOFF_HOURS = 24;

const weekday = () => [
  { from: "10:00", to: "13:00" },
  { from: "14:00", to: "18:00" },
];

export function defaultOpeningHours(): OpeningHours {
  return {
    mon: [],
    tue: weekday(),
    wed: weekday(),
    thu: weekday(),
    fri: weekday(),
    sat: [{ from: "10:00", to: "16:00" }],
    sun: [],
  };
}

export function defaultBookingTypes(): BookingTypes {
  const common = { bufferAfter: 15, minNoticeMinutes: 1440, maxDaysAhead: 60, capacity: 2 };
  return {
    CONSULTATION: { online: true, duration: 90, ...common },
    FITTING: { online: false, duration: 60, ...common },
    PICKUP: { online: false, duration: 30, ...common },
  };
}
