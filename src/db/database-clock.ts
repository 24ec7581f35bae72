// The database's clock, as a process reads it. Due times, leases and retries are
// instants every dispatcher compares with every other's, so they are read on one clock, the
// database's, never on each host's own: a worker whose clock ran 5 minutes ahead would see the other
// workers' leases as ended (and send their deliveries again, over the endpoint's cap), retry
// after 1 s instead of 60 s, and leave leases 5 minutes too long if it died. The process learns
// the offset of the database's clock from its own (half a round trip's precision) and adds it;
// it says so in the log when the two differ by more than a second.
import { sql } from "drizzle-orm";
import type { Logger } from "pino";
import type { Executor } from "./client.ts";
import { queryRows } from "./query-rows.ts";

/** Differences above this are logged: the host's time service is not doing its job. */
export const CLOCK_WARN_MS = 1_000;

export interface DatabaseClock {
  /** The database's time now: the process clock plus the last measured offset. */
  now(): Date;
  /** Measures the offset again (one statement); logs a warning when it is over a second. */
  sync(): Promise<number>;
  /** The last measured offset, database minus process, in milliseconds. */
  offsetMs(): number;
}

export function databaseClock(
  db: Executor,
  options: { local?: () => Date; log?: Pick<Logger, "warn"> | undefined } = {},
): DatabaseClock {
  const local = options.local ?? (() => new Date());
  let offset = 0;
  let warned = false;
  return {
    now: () => new Date(local().getTime() + offset),
    offsetMs: () => offset,
    async sync() {
      const sent = local().getTime();
      const [row] = await queryRows<{ at: string | Date }>(db, sql`select clock_timestamp() as at`);
      const received = local().getTime();
      if (!row) return offset;
      offset = Math.round(new Date(row.at).getTime() - (sent + received) / 2);
      const skewed = Math.abs(offset) > CLOCK_WARN_MS;
      // Once while it lasts, not every minute: the fix is the host's, not ours.
      if (skewed && !warned) {
        options.log?.warn(
          { offsetMs: offset },
          "this process's clock differs from the database's by more than a second; webhook due times, leases and retries follow the database's clock (fix the host's time sync)",
        );
      }
      warned = skewed;
      return offset;
    },
  };
}
