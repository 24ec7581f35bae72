// Whether the database is reachable, as far as this process has seen: so that an outage is one
// "database unreachable" line when it begins and one "database back" line when it ends, instead
// of a stack per refused request (5 MB of log for a 30 s outage). Told by the callers
// that see it: a request that failed for want of the database (`lost`), a new pooled connection
// or a readiness ping that succeeded (`answered`).
import { performance } from "node:perf_hooks";

export type AvailabilityChange =
  | { state: "unreachable"; reason: string }
  | { state: "back"; downForMs: number; reason: string };

export class DatabaseAvailability {
  private down: { since: number; reason: string } | undefined;
  private readonly listeners = new Set<(change: AvailabilityChange) => void>();

  get unreachable(): boolean {
    return this.down !== undefined;
  }

  /** A request failed because the database could not serve it; `reason` is one short line. */
  lost(reason: string): void {
    if (this.down) return;
    this.down = { since: performance.now(), reason };
    this.emit({ state: "unreachable", reason });
  }

  /** The database answered (a new connection, a ping). */
  answered(): void {
    const down = this.down;
    if (!down) return;
    this.down = undefined;
    this.emit({ state: "back", downForMs: Math.round(performance.now() - down.since), reason: down.reason });
  }

  /** Calls `fn` with each change until the returned function is called. */
  subscribe(fn: (change: AvailabilityChange) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private emit(change: AvailabilityChange): void {
    for (const fn of this.listeners) fn(change);
  }
}
