// The one date parser (src/lib/instants.ts): its grammar and its accepted range, years 0001-9999
// once in UTC. Every date input of the API goes through it, schema formats included.
import { describe, expect, it } from "vitest";
import { parseDate, parseDateTime } from "../../src/lib/instants.ts";

const iso = (text: string) => parseDateTime(text)?.toISOString();

describe("date-times name the instant they say, whatever the offset", () => {
  it.each([
    ["2026-01-01T00:00:00Z", "2026-01-01T00:00:00.000Z"],
    ["2026-01-01t00:00:00z", "2026-01-01T00:00:00.000Z"],
    ["2026-01-01 00:00:00Z", "2026-01-01T00:00:00.000Z"],
    ["2026-01-01T00:00:00+16:00", "2025-12-31T08:00:00.000Z"],
    ["2026-01-01T00:00:00-23:59", "2026-01-01T23:59:00.000Z"],
    ["2026-01-01T00:00:00+05", "2025-12-31T19:00:00.000Z"],
    ["2026-01-01T00:00:00+0530", "2025-12-31T18:30:00.000Z"],
    ["2026-01-01T00:00:00.123456789Z", "2026-01-01T00:00:00.123Z"],
    ["0001-01-01T00:00:00Z", "0001-01-01T00:00:00.000Z"],
    ["0050-06-15T12:00:00Z", "0050-06-15T12:00:00.000Z"],
    ["9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999Z"],
    ["9999-12-31T23:59:59.999+14:00", "9999-12-31T09:59:59.999Z"],
  ])("%s → %s", (text, expected) => {
    expect(iso(text)).toBe(expected);
  });
});

describe("outside the grammar or the range: refused", () => {
  it.each([
    "2026-06-30T23:59:60Z", // leap second
    "9999-12-31T23:59:59-00:01", // year 10000 in UTC
    "0001-01-01T00:00:00+00:01", // year 0 in UTC
    "0000-06-01T00:00:00Z",
    "2026-01-01T24:00:00Z",
    "2026-01-01T00:60:00Z",
    "2026-01-01T00:00:00+24:00",
    "2026-01-01T00:00:00+05:60",
    "2026-02-29T00:00:00Z",
    "2026-01-01T00:00:00", // no offset
    "2026-01-01T00:00Z", // no seconds
    "+010000-01-01T00:00:00Z",
    "20260101T000000Z",
    "2026-01-01",
  ])("%s", (text) => {
    expect(parseDateTime(text)).toBeUndefined();
  });
});

describe("dates: real calendar days in years 0001-9999", () => {
  it("accepts leap days of leap years and the range's ends", () => {
    expect(parseDate("2024-02-29")?.toISOString()).toBe("2024-02-29T00:00:00.000Z");
    expect(parseDate("0001-01-01")?.toISOString()).toBe("0001-01-01T00:00:00.000Z");
    expect(parseDate("9999-12-31")?.toISOString()).toBe("9999-12-31T00:00:00.000Z");
  });
  it.each(["0000-01-01", "2026-02-29", "1900-02-29", "2026-13-01", "2026-04-31", "2026-1-1", "10000-01-01"])(
    "refuses %s",
    (text) => {
      expect(parseDate(text)).toBeUndefined();
    },
  );
});
