// Instants and range bounds of the appointments API, read with the one date parser
// (src/lib/instants.ts). A date-time must carry an offset or Z (CONTRACT 5) so the instant is
// exact whatever the server's zone or the client's DST rules.
import { fieldError } from "../../errors.ts";
import { endOfUtcDay, parseDate, parseDateTime, requireDateTime } from "../../lib/instants.ts";

/** A date-time with offset as a Date; anything outside the accepted range is validation_failed. */
export function parseInstant(field: string, value: string): Date {
  return requireDateTime(field, value);
}

/**
 * A `from` bound (`start`) or `to` bound (`end`), both inclusive: a bare date means the start of
 * that UTC day for `from` and its last millisecond for `to` (CONTRACT 5). Inclusive on both sides,
 * so `to=9999-12-31` needs no instant past the accepted range.
 */
export function parseRangeBound(field: string, value: string, side: "start" | "end"): Date {
  const day = parseDate(value);
  if (day) return side === "start" ? day : endOfUtcDay(day);
  const at = parseDateTime(value);
  if (!at) {
    throw fieldError(
      "validation_failed",
      field,
      "must be a date (YYYY-MM-DD) or a date-time with an offset, in years 0001-9999",
    );
  }
  return at;
}
