// A shop's IANA time zone: the dashboard and tracking page show every instant in it, and dates a
// vendor types into a form ("2031-05-01T10:00", no offset) are read in it. The API stays UTC.
//
// The zone's offset at an instant comes from @date-fns/tz (`tzOffset`, over the ICU zone database
// Node ships); the wall clock is the instant plus that offset. What stays ours is one rule, for a
// typed wall-clock time the zone skipped or repeated (fromLocalInput): the library's wall-clock
// constructor (`TZDate`) resolves the repeated hour differently depending on the host's own time
// zone (date-fns/tz#40 on GitHub, open), so a server in UTC and one in Lisbon would read "01:30" on the
// last Sunday of October an hour apart. test/lib/time-zone.test.ts checks the rule at the DST edges
// the library finds (`tzScan`) against Intl's own reading, and agreement with `TZDate` elsewhere.
import { tzOffset } from "@date-fns/tz";

export const DEFAULT_TIME_ZONE = "UTC";

const zones = new Set(Intl.supportedValuesOf("timeZone"));
zones.add("UTC");

/** Every zone a vendor can pick, sorted (UTC first). */
export const timeZones: readonly string[] = ["UTC", ...[...zones].filter((z) => z !== "UTC").sort()];

export function isTimeZone(value: string): boolean {
  return zones.has(value);
}

const DAY_MS = 86_400_000;
const pad = (n: number, width = 2) => String(n).padStart(width, "0");

const longOffsets = new Map<string, Intl.DateTimeFormat>();

/** The zone's offset from UTC at this instant, in whole milliseconds (historical offsets have seconds). */
function offsetMs(zone: string, at: number): number {
  let minutes = tzOffset(zone, new Date(at));
  if (Number.isNaN(minutes)) throw new RangeError(`Invalid time zone specified: ${zone}`);
  // tzOffset reads "GMT-00:44:30" as +44.5 (the sign rides on "-00", which is 0; date-fns PRs
  // 4279 and 4314, open): offsets under an hour west of UTC, none used since Monrovia's in 1972.
  if (minutes > 0 && minutes < 60) {
    let f = longOffsets.get(zone);
    if (!f) {
      f = new Intl.DateTimeFormat("en-US", { timeZone: zone, timeZoneName: "longOffset" });
      longOffsets.set(zone, f);
    }
    if (f.format(at).includes("GMT-")) minutes = -minutes;
  }
  return Math.round(minutes * 60) * 1000;
}

/** "2031-05-01" and "10:30" of the instant on the zone's wall clock. */
function wallClock(instant: Date, zone: string): { date: string; time: string } {
  const w = new Date(Math.floor(instant.getTime() / 1000) * 1000 + offsetMs(zone, instant.getTime()));
  return {
    date: `${w.getUTCFullYear()}-${pad(w.getUTCMonth() + 1)}-${pad(w.getUTCDate())}`,
    time: `${pad(w.getUTCHours())}:${pad(w.getUTCMinutes())}`,
  };
}

// The zone's short name ("GMT+1", "EST") as Intl spells it at that instant. The library's tzName
// builds an Intl formatter on every call (tens of microseconds, and a list page formats a hundred
// rows), and the name depends on the date as well as the offset (ICU's metazones), so one
// formatter per zone is kept instead.
const nameFormatters = new Map<string, Intl.DateTimeFormat>();
function shortName(instant: Date, zone: string): string {
  let f = nameFormatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
      timeZoneName: "short",
    });
    nameFormatters.set(zone, f);
  }
  return f.formatToParts(instant).find((p) => p.type === "timeZoneName")?.value ?? zone;
}

/** "2031-05-01 10:30 GMT+1": minute precision and the zone's short name, as people read it. */
export function formatInZone(instant: Date, zone: string): string {
  const w = wallClock(instant, zone);
  return `${w.date} ${w.time} ${shortName(instant, zone)}`;
}

/** The value for an `<input type="datetime-local">` showing this instant in the zone. */
export function toLocalInput(instant: Date, zone: string): string {
  const w = wallClock(instant, zone);
  return `${w.date}T${w.time}`;
}

/** The calendar date ("2031-05-01") of this instant in the zone. */
export function localDate(instant: Date, zone: string): string {
  return wallClock(instant, zone).date;
}

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?$/;

/**
 * A wall-clock time typed in the zone ("2031-05-01T10:00" or a bare date, meaning midnight) as the
 * instant it names, or undefined if it is not such a time. In a DST gap the clock is read with the
 * offset before the change (10:30 that never happened becomes 11:30); in the repeated hour the
 * first occurrence is taken. (Temporal's "compatible" disambiguation, with its one-day probes.)
 */
export function fromLocalInput(value: string, zone: string): Date | undefined {
  const m = LOCAL.exec(value.trim());
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map((v) => Number(v ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59)
    return undefined;
  // The typed fields as if they were UTC: the instant is this minus the zone's offset then.
  const wall = Date.UTC(year, month - 1, day, hour, minute, second);
  if (Number.isNaN(wall) || new Date(wall).getUTCDate() !== day) return undefined;
  // The offsets in force a day either side cover any change near the typed time.
  const before = offsetMs(zone, wall - DAY_MS);
  const after = offsetMs(zone, wall + DAY_MS);
  const readings = [wall - before, wall - after]
    .filter((at) => wall - at === offsetMs(zone, at))
    .sort((a, b) => a - b);
  // Both readings name the typed clock in the repeated hour (take the first); none in a gap.
  return new Date(readings[0] ?? wall - before);
}

/** Midnight that starts the day containing `instant`, in the zone (as an instant). */
export function startOfDay(instant: Date, zone: string): Date {
  return fromLocalInput(localDate(instant, zone), zone) ?? instant;
}

/** Midnight `days` calendar days after the day containing `instant`, in the zone. */
export function startOfDayAfter(instant: Date, zone: string, days: number): Date {
  const [y, mo, d] = localDate(instant, zone).split("-").map(Number) as [number, number, number];
  const next = new Date(Date.UTC(y, mo - 1, d + days));
  return fromLocalInput(next.toISOString().slice(0, 10), zone) ?? instant;
}

/** Monday 00:00 of the week containing `instant`, in the zone. */
export function startOfWeek(instant: Date, zone: string): Date {
  const [y, mo, d] = localDate(instant, zone).split("-").map(Number) as [number, number, number];
  const weekday = (new Date(Date.UTC(y, mo - 1, d)).getUTCDay() + 6) % 7; // Monday = 0
  return startOfDayAfter(instant, zone, -weekday);
}
