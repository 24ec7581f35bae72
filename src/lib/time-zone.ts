// A shop's IANA time zone: the dashboard and tracking page show every instant in it, and dates a
// vendor types into a form ("2031-05-01T10:00", no offset) are read in it. The API stays UTC.
// Built on Intl (the ICU zone database Node ships), no zone table of our own.

export const DEFAULT_TIME_ZONE = "UTC";

const zones = new Set(Intl.supportedValuesOf("timeZone"));
zones.add("UTC");

/** Every zone a vendor can pick, sorted (UTC first). */
export const timeZones: readonly string[] = ["UTC", ...[...zones].filter((z) => z !== "UTC").sort()];

export function isTimeZone(value: string): boolean {
  return zones.has(value);
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hourCycle: "h23",
      timeZoneName: "short",
    });
    formatters.set(zone, f);
  }
  return f;
}

interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  zoneName: string;
}

function wallClock(instant: Date, zone: string): WallClock {
  const parts: Record<string, string> = {};
  for (const p of formatter(zone).formatToParts(instant)) parts[p.type] = p.value;
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    zoneName: parts.timeZoneName ?? zone,
  };
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** "2031-05-01 10:30 GMT+1": minute precision and the zone's short name, as people read it. */
export function formatInZone(instant: Date, zone: string): string {
  const w = wallClock(instant, zone);
  return `${w.year}-${pad(w.month)}-${pad(w.day)} ${pad(w.hour)}:${pad(w.minute)} ${w.zoneName}`;
}

/** The value for an `<input type="datetime-local">` showing this instant in the zone. */
export function toLocalInput(instant: Date, zone: string): string {
  const w = wallClock(instant, zone);
  return `${w.year}-${pad(w.month)}-${pad(w.day)}T${pad(w.hour)}:${pad(w.minute)}`;
}

/** The calendar date ("2031-05-01") of this instant in the zone. */
export function localDate(instant: Date, zone: string): string {
  const w = wallClock(instant, zone);
  return `${w.year}-${pad(w.month)}-${pad(w.day)}`;
}

/** How far the zone's wall clock is ahead of UTC at this instant, in milliseconds. */
function offsetMs(instant: Date, zone: string): number {
  const w = wallClock(instant, zone);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  return asUtc - Math.floor(instant.getTime() / 1000) * 1000;
}

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?$/;

/**
 * A wall-clock time typed in the zone ("2031-05-01T10:00" or a bare date, meaning midnight) as the
 * instant it names, or undefined if it is not such a time. In a DST gap the clock is read with the
 * offset before the change (10:30 that never happened becomes 11:30); in the repeated hour the
 * first occurrence is taken.
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
  const guess = Date.UTC(year, month - 1, day, hour, minute, second);
  if (Number.isNaN(guess) || new Date(guess).getUTCDate() !== day) return undefined;
  const first = offsetMs(new Date(guess), zone);
  let instant = guess - first;
  const second_ = offsetMs(new Date(instant), zone);
  if (second_ !== first) {
    const other = guess - second_;
    // Both readings name the typed wall clock only outside a gap; prefer the earlier one then.
    instant = offsetMs(new Date(other), zone) === second_ ? Math.min(instant, other) : instant;
  }
  return new Date(instant);
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
