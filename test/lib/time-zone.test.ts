// The shop's time zone as the dashboard uses it: instants shown on the wall clock of the zone, and
// typed wall-clock times read back to the same instant, DST included. The properties at the end
// walk the DST edges @date-fns/tz finds (tzScan) in every zone Node knows, and judge each answer by
// Intl's own reading of the instant (an oracle that shares no code with src/lib/time-zone.ts).
import { TZDate, tzScan } from "@date-fns/tz";
import fc from "fast-check";
import { describe, expect, it, onTestFinished } from "vitest";
import {
  formatInZone,
  fromLocalInput,
  isTimeZone,
  localDate,
  startOfDay,
  startOfDayAfter,
  startOfWeek,
  timeZones,
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

  it("reads a skipped time with the offset before the change and a repeated one as its first", () => {
    // New York, 9 March 2031: 02:00 EST becomes 03:00 EDT; 2 November: 02:00 EDT becomes 01:00 EST.
    expect(fromLocalInput("2031-03-09T02:30", "America/New_York")?.toISOString()).toBe(
      "2031-03-09T07:30:00.000Z", // 03:30 EDT
    );
    expect(fromLocalInput("2031-11-02T01:30", "America/New_York")?.toISOString()).toBe(
      "2031-11-02T05:30:00.000Z", // 01:30 EDT, the first
    );
    // East of UTC the same rules (Lisbon, 26 October 2031: 02:00 WEST becomes 01:00 WET).
    expect(fromLocalInput("2031-10-26T01:30", "Europe/Lisbon")?.toISOString()).toBe(
      "2031-10-26T00:30:00.000Z", // 01:30 WEST, the first
    );
    // Cairo skipped midnight on 1 May 1990: the day starts at 01:00 EEST, on that day.
    expect(startOfDay(new Date("1990-05-01T09:00:00Z"), "Africa/Cairo").toISOString()).toBe(
      "1990-04-30T22:00:00.000Z",
    );
    // Monrovia ran 44 minutes 30 seconds behind UTC until 1972 (an offset the library misreads).
    expect(toLocalInput(new Date("1970-01-01T12:00:00Z"), "Africa/Monrovia")).toBe("1970-01-01T11:15");
    expect(fromLocalInput("1970-01-01T11:15:30", "Africa/Monrovia")?.toISOString()).toBe(
      "1970-01-01T12:00:00.000Z",
    );
  });

  it("says so when the zone is unknown instead of showing a made-up time", () => {
    expect(() => formatInZone(new Date(), "Mars/Olympus")).toThrow(RangeError);
  });
});

// ---- DST edges, property-based ----

const MINUTE = 60_000;

// Intl's reading of an instant's wall clock in the zone, as the fields' UTC value (seconds kept).
// Read from format()'s "M/D/YYYY, HH:MM:SS" (en-US, h23): formatToParts, the same fields as
// objects, cost 4.5 µs a call to format's 1.3, and the oracle asks ~300 times a case.
const oracles = new Map<string, Intl.DateTimeFormat>();
const EN_US = /^(\d{1,2})\/(\d{1,2})\/(\d{4}), (\d{2}):(\d{2}):(\d{2})$/;
function wallOf(at: number, zone: string): number {
  let f = oracles.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
      hourCycle: "h23",
    });
    oracles.set(zone, f);
  }
  const m = EN_US.exec(f.format(at));
  if (!m) throw new Error(`Intl wrote ${f.format(at)} for ${zone}`);
  const [month, day, year, hour, minute, second] = m.slice(1).map(Number) as number[];
  return Date.UTC(year as number, (month as number) - 1, day, hour, minute, second);
}

// Every instant whose wall clock reads `wall` (ascending): `wall` less each offset the zone has in
// the 26 hours either side (sampled every 10 minutes; no offset lasts shorter), where Intl agrees.
function instantsReading(wall: number, zone: string): number[] {
  const offsets = new Set<number>();
  for (let t = wall - 26 * 60 * MINUTE; t <= wall + 26 * 60 * MINUTE; t += 10 * MINUTE) {
    offsets.add(wallOf(t, zone) - t);
  }
  return [...offsets]
    .map((o) => wall - o)
    .filter((t) => wallOf(t, zone) === wall)
    .sort((x, y) => x - y);
}

// The edges of one year of a zone, from 2010 to 2035: a case draws its year, and only that year is
// scanned (scanning 2010-2036 for every zone drawn cost 1.4 s, most of this file's time).
const edges = new Map<string, number[]>();
function edgesOf(zone: string, year: number): number[] {
  const key = `${zone} ${year}`;
  let e = edges.get(key);
  if (!e) {
    e = tzScan(zone, { start: new Date(Date.UTC(year, 0, 1)), end: new Date(Date.UTC(year + 1, 0, 1)) }).map(
      (c) => c.date.getTime(),
    );
    edges.set(key, e);
  }
  return e;
}
const changingZones = timeZones.filter((z) => z.includes("/"));

/** A zone with an offset change in a year since 2010 and a wall-clock minute within three hours of one. */
const nearAnEdge = fc
  .record({
    zone: fc.constantFrom(...changingZones),
    year: fc.integer({ min: 2010, max: 2035 }),
    pick: fc.nat(),
    minutes: fc.integer({ min: -180, max: 180 }),
  })
  .filter(({ zone, year }) => edgesOf(zone, year).length > 0)
  .map(({ zone, year, pick, minutes }) => {
    const e = edgesOf(zone, year);
    const at = (e[pick % e.length] ?? Number.NaN) + minutes * MINUTE;
    return { zone, at, wall: Math.floor(wallOf(at, zone) / MINUTE) * MINUTE };
  });

const typed = (wall: number) => new Date(wall).toISOString().slice(0, 16);
const SEED = 20261127;

describe("the shop's time zone at DST edges (property-based, every zone with changes)", () => {
  it("reads a typed time as its first instant, or in a gap with the offset before the change", () => {
    fc.assert(
      fc.property(nearAnEdge, ({ zone, wall }) => {
        const got = fromLocalInput(typed(wall), zone)?.getTime() ?? Number.NaN;
        const readings = instantsReading(wall, zone);
        if (readings.length > 0) {
          expect(got).toBe(readings[0]);
        } else {
          // Skipped: read with the offset before the change, so it lands after the gap, by its size.
          const gap = wallOf(got, zone) - wall;
          expect(gap).toBeGreaterThan(0);
          const before = got - gap; // earlier than the change
          expect(wallOf(before, zone) - before).toBe(wall - got);
        }
      }),
      { numRuns: 150, seed: SEED },
    );
  });

  it("agrees with the library's TZDate wherever the typed time is neither skipped nor repeated", () => {
    // TZDate's constructor goes through the host's own zone, and is off by an hour near the host's
    // DST changes (with TZ=Europe/Lisbon: Europe/Bucharest, 26 March 2000, 02:59); ours never
    // reads the host's zone. The library is asked as on a server in UTC.
    const hostZone = process.env.TZ;
    process.env.TZ = "UTC";
    onTestFinished(() => {
      if (hostZone === undefined) delete process.env.TZ;
      else process.env.TZ = hostZone;
    });
    fc.assert(
      fc.property(nearAnEdge, ({ zone, wall }) => {
        fc.pre(instantsReading(wall, zone).length === 1);
        const d = new Date(wall);
        const library = new TZDate(
          d.getUTCFullYear(),
          d.getUTCMonth(),
          d.getUTCDate(),
          d.getUTCHours(),
          d.getUTCMinutes(),
          zone,
        );
        expect(fromLocalInput(typed(wall), zone)?.getTime()).toBe(library.getTime());
      }),
      { numRuns: 100, seed: SEED },
    );
  });

  it("shows every instant on Intl's wall clock, and reads what it shows back to it unless repeated", () => {
    fc.assert(
      fc.property(nearAnEdge, ({ zone, at }) => {
        const minute = Math.floor(at / MINUTE) * MINUTE;
        const shown = toLocalInput(new Date(at), zone);
        expect(shown).toBe(typed(Math.floor(wallOf(at, zone) / MINUTE) * MINUTE));
        expect(formatInZone(new Date(at), zone).startsWith(shown.replace("T", " "))).toBe(true);
        const back = fromLocalInput(shown, zone)?.getTime();
        const readings = instantsReading(wallOf(minute, zone), zone);
        expect(back).toBe(readings[0]);
        if (readings.length === 1) expect(back).toBe(minute);
      }),
      { numRuns: 100, seed: SEED },
    );
  });

  it("starts the day at its first instant and the week on its Monday", () => {
    fc.assert(
      fc.property(nearAnEdge, ({ zone, at }) => {
        const instant = new Date(at);
        const day = localDate(instant, zone);
        const start = startOfDay(instant, zone).getTime();
        const next = startOfDayAfter(instant, zone, 1).getTime();
        expect(start).toBeLessThanOrEqual(at);
        expect(next).toBeGreaterThan(at);
        expect(localDate(new Date(start), zone)).toBe(day);
        // The instant before the day's start belongs to the day before.
        expect(localDate(new Date(start - 1000), zone) < day).toBe(true);
        expect(localDate(new Date(next), zone) > day).toBe(true);
        expect(localDate(new Date(next - 1000), zone)).toBe(day);
        const monday = startOfWeek(instant, zone);
        expect(new Date(`${localDate(monday, zone)}T00:00:00Z`).getUTCDay()).toBe(1);
        expect(monday.getTime()).toBeLessThanOrEqual(start);
        expect(start - monday.getTime()).toBeLessThan(7 * 24 * 60 * MINUTE + 2 * 60 * MINUTE);
      }),
      { numRuns: 100, seed: SEED },
    );
  });
});
