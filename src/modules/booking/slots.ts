// Free start times (CONTRACT 12, Availability), as a pure function of the shop's week, its closed
// dates and what is already booked. The rules:
// - a candidate occupies [start, start + duration + bufferAfter) and must lie inside one opening
//   interval of its day, the interval's ends read on the shop's wall clock on that date;
// - candidates start at the interval's opening and every SLOT_STEP_MINUTES of real time after it,
//   so on a DST day the clock's jump neither adds nor removes time from the interval;
// - no candidate on a closed date, or before `earliest` (minimum notice), or at/after `latest`
//   (how far ahead);
// - a candidate is free while fewer than `capacity` busy intervals (PROPOSED or CONFIRMED
//   appointments of any type, each with its own type's buffer) overlap it, half-open.
import type { OpeningHours, Weekday } from "../../db/schema/booking.ts";
import { fromLocalInput } from "../../lib/time-zone.ts";

/** Candidates are this far apart: a bride picks from 10:00, 10:30, 11:00. */
export const SLOT_STEP_MINUTES = 30;
const MINUTE = 60_000;
const WEEKDAY_OF_UTC_DAY: readonly Weekday[] = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

/** An occupied stretch of time in epoch milliseconds, start inclusive, end exclusive. */
export interface Busy {
  start: number;
  end: number;
}

export interface SlotQuery {
  zone: string;
  hours: OpeningHours;
  closedDates: ReadonlySet<string>;
  /** Calendar days in the zone, inclusive, YYYY-MM-DD. */
  fromDay: string;
  toDay: string;
  duration: number;
  bufferAfter: number;
  capacity: number;
  /** No slot starts before this instant (now + minimum notice). */
  earliest: number;
  /** No slot starts at or after this instant (the end of the last day bookable ahead). */
  latest: number;
  /** Occupied stretches, in any order. */
  busy: readonly Busy[];
}

/** The calendar days from `from` to `to` inclusive, "YYYY-MM-DD". */
export function daysBetween(from: string, to: string): string[] {
  const out: string[] = [];
  const end = Date.parse(`${to}T00:00:00Z`);
  for (let at = Date.parse(`${from}T00:00:00Z`); at <= end; at += 86_400_000) {
    out.push(new Date(at).toISOString().slice(0, 10));
  }
  return out;
}

export function weekdayOf(day: string): Weekday {
  return WEEKDAY_OF_UTC_DAY[new Date(`${day}T00:00:00Z`).getUTCDay()] as Weekday;
}

/** The instant the zone's wall clock reads `hhmm` on `day` ("24:00" is the next day's midnight). */
function instantOn(day: string, hhmm: string, zone: string): number {
  if (hhmm === "24:00") {
    const next = new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    return (fromLocalInput(next, zone) as Date).getTime();
  }
  return (fromLocalInput(`${day}T${hhmm}`, zone) as Date).getTime();
}

/** Every free start time of the query, ascending, as epoch milliseconds. */
export function freeSlots(q: SlotQuery): number[] {
  const length = (q.duration + q.bufferAfter) * MINUTE;
  const step = SLOT_STEP_MINUTES * MINUTE;
  const busy = [...q.busy].sort((a, b) => a.start - b.start);
  const longest = busy.reduce((max, b) => Math.max(max, b.end - b.start), 0);
  const slots: number[] = [];
  let first = 0; // busy[first..] may still overlap a candidate (candidates only move later)
  for (const day of daysBetween(q.fromDay, q.toDay)) {
    if (q.closedDates.has(day)) continue;
    const intervals = [...q.hours[weekdayOf(day)]].sort((a, b) => a.from.localeCompare(b.from));
    for (const interval of intervals) {
      const close = instantOn(day, interval.to, q.zone);
      for (let start = instantOn(day, interval.from, q.zone); start + length <= close; start += step) {
        if (start < q.earliest) continue;
        if (start >= q.latest) return slots;
        const end = start + length;
        while (first < busy.length && (busy[first] as Busy).start + longest <= start) first++;
        let overlapping = 0;
        for (let i = first; i < busy.length && overlapping < q.capacity; i++) {
          const b = busy[i] as Busy;
          if (b.start >= end) break;
          if (b.end > start) overlapping++;
        }
        if (overlapping < q.capacity) slots.push(start);
      }
    }
  }
  return slots;
}
