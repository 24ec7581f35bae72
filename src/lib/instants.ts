// The one parser of dates and date-times a client sends us (CONTRACT 1), and the one accepted
// range. The schema formats "date" and "date-time" (src/http/validation.ts) and the services use
// these same functions, so a value the schema accepts is always one the service can use, and the
// database only ever receives a Date we built, never a client's text.
//
// Grammar (RFC 3339 5.6, with the ISO 8601 offsets the API has always accepted):
//   date       YYYY-MM-DD                      a real calendar day
//   date-time  YYYY-MM-DD(T|t|space)HH:MM:SS[.fraction](Z|z|±HH|±HHMM|±HH:MM)
// Accepted range: years 0001-9999, once converted to UTC. Outside it:
// - year 0000: ISO 8601 has it (1 BC), PostgreSQL refuses it as text;
// - past 9999-12-31T23:59:59.999Z: Date#toISOString writes "+010000-…", which PostgreSQL refuses;
// - leap seconds (:60): neither JavaScript's Date nor PostgreSQL can hold 23:59:60, and silently
//   moving the instant would answer a different question than the one asked.
// Offsets up to ±23:59 are fine: the instant is computed here, not by the database (which stops at
// ±15:59).

import { fieldError } from "../errors.ts";

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)$/;

const MIN_MS = utc(1, 1, 1);
const MAX_MS = utc(9999, 12, 31) + 86_400_000 - 1;

/** UTC midnight of a calendar day; Date.UTC maps years 0-99 to 1900-1999, so set the year apart. */
function utc(year: number, month: number, day: number): number {
  const d = new Date(Date.UTC(2000, month - 1, day));
  d.setUTCFullYear(year, month - 1, day);
  return d.getTime();
}

function isLeapYear(y: number): boolean {
  return y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
}

function daysIn(year: number, month: number): number {
  return [31, isLeapYear(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
}

function calendarDay(y: string, m: string, d: string): number | undefined {
  const year = Number(y);
  const month = Number(m);
  const day = Number(d);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return undefined;
  return utc(year, month, day);
}

export function inAcceptedRange(ms: number): boolean {
  return Number.isFinite(ms) && ms >= MIN_MS && ms <= MAX_MS;
}

/** A `YYYY-MM-DD` calendar day as UTC midnight, or undefined when it is not one in range. */
export function parseDate(text: string): Date | undefined {
  const m = DATE.exec(text);
  if (!m) return undefined;
  const ms = calendarDay(m[1] as string, m[2] as string, m[3] as string);
  return ms === undefined ? undefined : new Date(ms);
}

/** A date-time with an offset as the instant it names, or undefined (malformed or out of range). */
export function parseDateTime(text: string): Date | undefined {
  const m = DATE_TIME.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, hh, mi, ss, fraction, zulu, sign, oh, om] = m;
  const day = calendarDay(y as string, mo as string, d as string);
  const hours = Number(hh);
  const minutes = Number(mi);
  const seconds = Number(ss);
  if (day === undefined || hours > 23 || minutes > 59 || seconds > 59) return undefined;
  let offsetMinutes = 0;
  if (!zulu) {
    const offH = Number(oh);
    const offM = Number(om ?? "0");
    if (offH > 23 || offM > 59) return undefined;
    offsetMinutes = (sign === "-" ? -1 : 1) * (offH * 60 + offM);
  }
  // Milliseconds: further digits are truncated (the stored precision is 1 ms).
  const millis = fraction ? Number(fraction.slice(0, 3).padEnd(3, "0")) : 0;
  const ms = day + ((hours * 60 + minutes - offsetMinutes) * 60 + seconds) * 1000 + millis;
  return inAcceptedRange(ms) ? new Date(ms) : undefined;
}

/** The last millisecond of a UTC day: the inclusive end of a bare `to` date. */
export function endOfUtcDay(day: Date): Date {
  return new Date(day.getTime() + 86_400_000 - 1);
}

export const DATE_RULE = "must be a date, YYYY-MM-DD, in years 0001-9999";
export const DATE_TIME_RULE =
  "must be an ISO 8601 date-time with seconds and an offset or Z (e.g. 2027-03-29T10:00:00+01:00), in years 0001-9999 UTC";

/** A date-time input as a Date, or 400 validation_failed naming `field`. */
export function requireDateTime(field: string, text: string): Date {
  const at = parseDateTime(text);
  if (!at) throw fieldError("validation_failed", field, DATE_TIME_RULE);
  return at;
}

/** An optional date-time input (undefined stays undefined). */
export function optionalDateTime(field: string, text: string | undefined): Date | undefined {
  return text === undefined ? undefined : requireDateTime(field, text);
}
