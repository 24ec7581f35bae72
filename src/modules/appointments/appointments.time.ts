// Instants and range bounds of the appointments API. A date-time must carry an offset or Z
// (CONTRACT 5) so the instant is exact whatever the server's zone or the client's DST rules.
import { fieldError } from "../../errors.ts";

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})$/;
const DAY_MS = 86_400_000;

/** Years 1-9999 UTC: what ISO 8601 text round-trips through PostgreSQL (year 0 does not). */
function inStoredRange(ms: number): boolean {
  const year = new Date(ms).getUTCFullYear();
  return year >= 1 && year <= 9999;
}

/** A date-time with offset as a Date; anything Date cannot represent is validation_failed. */
export function parseInstant(field: string, value: string): Date {
  const ms = DATE_TIME.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms) || !inStoredRange(ms)) {
    throw fieldError("validation_failed", field, "must be an ISO 8601 date-time with an offset or Z");
  }
  return new Date(ms);
}

function parseDate(value: string): Date | undefined {
  const m = DATE.exec(value);
  if (!m) return undefined;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  // Refuse dates that roll over (2027-02-30).
  return d.toISOString().startsWith(value) ? d : undefined;
}

/**
 * A `from` bound (inclusive, `start`) or `to` bound (as an exclusive limit, `end`): a bare date
 * means the start of that UTC day for `from` and the whole UTC day for `to` (CONTRACT 5).
 */
export function parseRangeBound(field: string, value: string, side: "start" | "end"): Date {
  const date = parseDate(value);
  if (date && inStoredRange(date.getTime()))
    return side === "start" ? date : new Date(date.getTime() + DAY_MS);
  const ms = DATE_TIME.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms) || !inStoredRange(ms)) {
    throw fieldError("validation_failed", field, "must be a date (YYYY-MM-DD) or a date-time with an offset");
  }
  // An inclusive date-time bound: everything up to and including that millisecond.
  return new Date(side === "start" ? ms : ms + 1);
}
