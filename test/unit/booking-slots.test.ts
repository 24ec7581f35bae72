// The rule of free slots (src/modules/booking/slots.ts), as properties over random weeks and
// bookings, and at Europe/Berlin's DST changes.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { OpeningHours } from "../../src/db/schema/booking.ts";
import { fromLocalInput, localDate, toLocalInput } from "../../src/lib/time-zone.ts";
import { defaultOpeningHours } from "../../src/modules/booking/settings.defaults.ts";
import {
  type Busy,
  freeSlots,
  SLOT_STEP_MINUTES,
  type SlotQuery,
  weekdayOf,
} from "../../src/modules/booking/slots.ts";

const MIN = 60_000;
const allWeek = (from: string, to: string): OpeningHours => ({
  mon: [{ from, to }],
  tue: [{ from, to }],
  wed: [{ from, to }],
  thu: [{ from, to }],
  fri: [{ from, to }],
  sat: [{ from, to }],
  sun: [{ from, to }],
});

function query(overrides: Partial<SlotQuery>): SlotQuery {
  return {
    zone: "Europe/Berlin",
    hours: defaultOpeningHours(),
    closedDates: new Set(),
    fromDay: "2027-03-01",
    toDay: "2027-03-31",
    duration: 60,
    bufferAfter: 15,
    capacity: 2,
    earliest: 0,
    latest: Number.MAX_SAFE_INTEGER,
    busy: [],
    ...overrides,
  };
}

const overlaps = (busy: readonly Busy[], start: number, end: number) =>
  busy.filter((b) => b.start < end && b.end > start).length;

const hhmm = (m: number) =>
  `${String(Math.floor(m / 60)).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}`;

// A day's intervals: sorted, non-overlapping, on a 15-minute grid.
const dayHours = fc.uniqueArray(fc.integer({ min: 0, max: 96 }), { maxLength: 6 }).map((cuts) => {
  const sorted = [...cuts].sort((a, b) => a - b);
  const out: { from: string; to: string }[] = [];
  for (let i = 0; i + 1 < sorted.length; i += 2) {
    out.push({ from: hhmm((sorted[i] as number) * 15), to: hhmm((sorted[i + 1] as number) * 15) });
  }
  return out;
});
const weekHours = fc.record({
  mon: dayHours,
  tue: dayHours,
  wed: dayHours,
  thu: dayHours,
  fri: dayHours,
  sat: dayHours,
  sun: dayHours,
});
const WINDOW_START = Date.parse("2027-03-20T00:00:00Z");
const busyList = fc.array(
  fc
    .record({ at: fc.integer({ min: 0, max: 20 * 24 * 4 }), minutes: fc.integer({ min: 15, max: 600 }) })
    .map(({ at, minutes }) => ({
      start: WINDOW_START + at * 15 * MIN,
      end: WINDOW_START + (at * 15 + minutes) * MIN,
    })),
  { maxLength: 60 },
);
const scenario = fc.record({
  zone: fc.constantFrom("Europe/Berlin", "America/New_York", "UTC", "Australia/Lord_Howe"),
  hours: weekHours,
  closed: fc.uniqueArray(fc.integer({ min: 0, max: 14 }), { maxLength: 4 }),
  duration: fc.integer({ min: 15, max: 240 }),
  bufferAfter: fc.integer({ min: 0, max: 60 }),
  capacity: fc.integer({ min: 1, max: 4 }),
  busy: busyList,
  noticeHours: fc.integer({ min: 0, max: 72 }),
  aheadDays: fc.integer({ min: 1, max: 14 }),
});

function scenarioQuery(s: {
  zone: string;
  hours: OpeningHours;
  closed: number[];
  duration: number;
  bufferAfter: number;
  capacity: number;
  busy: Busy[];
  noticeHours: number;
  aheadDays: number;
}): SlotQuery {
  // The DST weekend of Europe/Berlin (28 March 2027) lies inside the window.
  const day = (n: number) => new Date(WINDOW_START + n * 86_400_000).toISOString().slice(0, 10);
  return query({
    zone: s.zone,
    hours: s.hours,
    closedDates: new Set(s.closed.map(day)),
    fromDay: day(0),
    toDay: day(14),
    duration: s.duration,
    bufferAfter: s.bufferAfter,
    capacity: s.capacity,
    busy: s.busy,
    earliest: WINDOW_START + s.noticeHours * 3_600_000,
    latest: WINDOW_START + s.aheadDays * 86_400_000,
  });
}

/** The day's opening intervals as instants, each end read on the zone's wall clock that day. */
function openingIntervals(q: SlotQuery, day: string): Array<{ open: number; close: number }> {
  const at = (text: string) => (fromLocalInput(text, q.zone) as Date).getTime();
  const nextDay = new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  return q.hours[weekdayOf(day)].map((iv) => ({
    open: at(`${day}T${iv.from}`),
    close: iv.to === "24:00" ? at(nextDay) : at(`${day}T${iv.to}`),
  }));
}

describe("freeSlots properties", () => {
  it("no slot overlaps capacity or more appointments, and each fits its opening interval on an open day", () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const q = scenarioQuery(s);
        const length = (q.duration + q.bufferAfter) * MIN;
        // Each slot that breaks a rule, with the rules it breaks: none.
        const broken: Array<{ start: number; rules: string[] }> = [];
        const intervals = new Map<string, Array<{ open: number; close: number }>>();
        for (const start of freeSlots(q)) {
          const day = localDate(new Date(start), q.zone);
          if (!intervals.has(day)) intervals.set(day, openingIntervals(q, day));
          const inside = (intervals.get(day) ?? []).some(
            ({ open, close }) =>
              start >= open && start + length <= close && (start - open) % (SLOT_STEP_MINUTES * MIN) === 0,
          );
          const rules = [
            overlaps(q.busy, start, start + length) < q.capacity ? "" : "capacity",
            start >= q.earliest ? "" : "notice",
            start < q.latest ? "" : "reach",
            q.closedDates.has(day) ? "closed" : "",
            inside ? "" : "hours",
          ].filter(Boolean);
          if (rules.length > 0) broken.push({ start, rules });
        }
        expect(broken).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it("leaves out no free candidate: every grid start in hours, notice and reach that is not offered is full", () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const q = scenarioQuery(s);
        const length = (q.duration + q.bufferAfter) * MIN;
        const offered = new Set(freeSlots(q));
        // Each candidate offered though full, or free and not offered: none.
        const wrong: Array<{ start: number; free: boolean }> = [];
        for (let d = 0; d <= 14; d++) {
          const day = new Date(WINDOW_START + d * 86_400_000).toISOString().slice(0, 10);
          if (q.closedDates.has(day)) continue;
          for (const { open, close } of openingIntervals(q, day)) {
            for (let start = open; start + length <= close; start += SLOT_STEP_MINUTES * MIN) {
              if (start < q.earliest || start >= q.latest) continue;
              const free = overlaps(q.busy, start, start + length) < q.capacity;
              if (offered.has(start) !== free) wrong.push({ start, free });
            }
          }
        }
        expect(wrong).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it("answers ascending, each start once", () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const slots = freeSlots(scenarioQuery(s));
        expect(slots.filter((at, i) => i > 0 && at <= (slots[i - 1] as number))).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });
});

describe("freeSlots on Europe/Berlin's DST days", () => {
  const local = (slots: number[]) => slots.map((at) => toLocalInput(new Date(at), "Europe/Berlin"));

  it("keeps 10:00 on the wall clock across the March change (09:00Z before, 08:00Z after)", () => {
    const slots = freeSlots(
      query({
        hours: allWeek("10:00", "12:00"),
        fromDay: "2027-03-27",
        toDay: "2027-03-28",
        duration: 60,
        bufferAfter: 0,
      }),
    );
    expect(slots.map((at) => new Date(at).toISOString())).toEqual([
      "2027-03-27T09:00:00.000Z",
      "2027-03-27T09:30:00.000Z",
      "2027-03-27T10:00:00.000Z",
      "2027-03-28T08:00:00.000Z",
      "2027-03-28T08:30:00.000Z",
      "2027-03-28T09:00:00.000Z",
    ]);
  });

  it("offers the real hours of a night interval: one fewer in March, one more in October", () => {
    const night = (day: string) =>
      freeSlots(
        query({ hours: allWeek("00:00", "06:00"), fromDay: day, toDay: day, duration: 60, bufferAfter: 0 }),
      );
    // 6 hours of clock: starts every 30 minutes while an hour still fits.
    expect(night("2027-03-27")).toHaveLength(11);
    // 28 March: 02:00-03:00 never happens, five real hours.
    const march = night("2027-03-28");
    expect(march).toHaveLength(9);
    expect(local(march)).not.toContain("2027-03-28T02:00");
    expect(local(march)).toContain("2027-03-28T03:00");
    // 31 October: 02:00-03:00 happens twice, seven real hours, each start an hour-long slot.
    const october = night("2027-10-31");
    expect(october).toHaveLength(13);
    expect(local(october).filter((t) => t === "2027-10-31T02:30")).toHaveLength(2);
    for (const at of october) expect(at + 60 * MIN).toBeLessThanOrEqual(Date.parse("2027-10-31T05:00:00Z"));
  });

  it("counts a busy appointment across the October change by real time", () => {
    // 02:30 CEST (00:30Z) for 90 minutes ends 01:00 CET... the second 02:00 (01:00Z).
    const busy = [{ start: Date.parse("2027-10-31T00:30:00Z"), end: Date.parse("2027-10-31T02:00:00Z") }];
    const slots = freeSlots(
      query({
        hours: allWeek("00:00", "06:00"),
        fromDay: "2027-10-31",
        toDay: "2027-10-31",
        duration: 30,
        bufferAfter: 0,
        capacity: 1,
        busy,
      }),
    );
    const iso = slots.map((at) => new Date(at).toISOString());
    expect(iso).toContain("2027-10-31T00:00:00.000Z");
    expect(iso).not.toContain("2027-10-31T00:30:00.000Z");
    expect(iso).not.toContain("2027-10-31T01:30:00.000Z");
    expect(iso).toContain("2027-10-31T02:00:00.000Z");
  });

  it("skips closed dates and starts no earlier than the notice nor at or after the reach", () => {
    const slots = freeSlots(
      query({
        hours: allWeek("10:00", "11:00"),
        fromDay: "2027-06-01",
        toDay: "2027-06-05",
        duration: 30,
        bufferAfter: 0,
        closedDates: new Set(["2027-06-03"]),
        earliest: Date.parse("2027-06-01T08:30:00Z"),
        latest: Date.parse("2027-06-04T22:00:00Z"),
      }),
    );
    expect(local(slots)).toEqual([
      "2027-06-01T10:30",
      "2027-06-02T10:00",
      "2027-06-02T10:30",
      "2027-06-04T10:00",
      "2027-06-04T10:30",
    ]);
  });
});
