// The shop's time zone as the dashboard uses it: instants shown on the wall clock of the zone, and
// typed wall-clock times read back to the same instant, DST included.
import { describe, expect, it } from "vitest";
import {
  formatInZone,
  fromLocalInput,
  isTimeZone,
  startOfDay,
  startOfWeek,
  toLocalInput,
} from "../../src/lib/time-zone.ts";

describe("the shop's time zone", () => {
  it("shows an instant on the zone's wall clock, UTC as before", () => {
    const at = new Date("2031-05-01T07:30:00.000Z");
    expect(formatInZone(at, "UTC")).toBe("2031-05-01 07:30 UTC");
    expect(formatInZone(at, "America/Sao_Paulo")).toBe("2031-05-01 04:30 GMT-3");
    expect(formatInZone(at, "Asia/Tokyo")).toBe("2031-05-01 16:30 GMT+9");
    expect(toLocalInput(at, "Europe/Lisbon")).toBe("2031-05-01T08:30");
  });

  it("reads a typed wall-clock time in the zone, winter and summer", () => {
    expect(fromLocalInput("2031-01-15T10:00", "Europe/Lisbon")?.toISOString()).toBe(
      "2031-01-15T10:00:00.000Z",
    );
    expect(fromLocalInput("2031-07-15T10:00", "Europe/Lisbon")?.toISOString()).toBe(
      "2031-07-15T09:00:00.000Z",
    );
    expect(fromLocalInput("2031-07-15T10:00", "America/Sao_Paulo")?.toISOString()).toBe(
      "2031-07-15T13:00:00.000Z",
    );
    // Round trip for every hour of a DST-changing day in Lisbon (last Sunday of March 2031: 30th).
    for (let h = 0; h < 24; h++) {
      const at = new Date(Date.UTC(2031, 2, 30, h, 15));
      expect(fromLocalInput(toLocalInput(at, "Europe/Lisbon"), "Europe/Lisbon")?.toISOString()).toBe(
        at.toISOString(),
      );
    }
  });

  it("refuses what is not a date or not a zone", () => {
    expect(fromLocalInput("2031-02-30T10:00", "UTC")).toBeUndefined();
    expect(fromLocalInput("tomorrow", "UTC")).toBeUndefined();
    expect(fromLocalInput("2031-01-01T25:00", "UTC")).toBeUndefined();
    expect(isTimeZone("Europe/Lisbon")).toBe(true);
    expect(isTimeZone("Mars/Olympus")).toBe(false);
  });

  it("knows where the shop's day and week start", () => {
    const at = new Date("2031-05-01T01:00:00.000Z"); // Wed 30 April, 22:00 in São Paulo
    expect(startOfDay(at, "America/Sao_Paulo").toISOString()).toBe("2031-04-30T03:00:00.000Z");
    expect(startOfWeek(at, "America/Sao_Paulo").toISOString()).toBe("2031-04-28T03:00:00.000Z");
    expect(startOfDay(at, "UTC").toISOString()).toBe("2031-05-01T00:00:00.000Z");
  });
});
