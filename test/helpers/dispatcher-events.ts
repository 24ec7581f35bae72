// What a dispatcher did, as facts a test can wait on (DispatcherDeps.observe): claims that leased
// deliveries, turns that found nothing to send (idle), attempts whose record committed (settled).
// A test that must show that *nothing more* happens waits for a whole turn instead of sleeping:
// `aWholeTurn()` wakes the dispatcher and resolves once a turn that began after the call has
// looked and found nothing to send; what it would have sent by then, it has claimed.
import type { Dispatcher, DispatcherEvent } from "../../src/webhook-delivery/dispatcher.ts";

export interface DispatcherEvents {
  /** Pass as `startDispatcher({ …, observe })`. */
  observe(event: DispatcherEvent): void;
  /** Every event so far, in order. */
  readonly seen: readonly DispatcherEvent[];
  /** Resolves with the first event after the `from`-th (default: from now on) that matches. */
  next(match: (e: DispatcherEvent) => boolean, from?: number): Promise<DispatcherEvent>;
  /** Resolves once `n` events from the `from`-th on match. */
  count(n: number, match: (e: DispatcherEvent) => boolean, from?: number): Promise<void>;
  /**
   * Wakes `dispatcher` and resolves after a turn that began after this call went idle: the turn
   * running at the call (if any) ends, the wake-up starts another, and that one's claim found
   * nothing more to send.
   */
  aWholeTurn(dispatcher: Dispatcher): Promise<void>;
  /** POSTs its claims started (`sent`), from the `from`-th event on. */
  sent(from?: number): number;
}

export function dispatcherEvents(): DispatcherEvents {
  const seen: DispatcherEvent[] = [];
  const waiters: Array<() => boolean> = [];
  const matching = (match: (e: DispatcherEvent) => boolean, from: number) => seen.slice(from).filter(match);
  const until = (done: () => boolean) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (!done()) return false;
        resolve();
        return true;
      };
      if (!check()) waiters.push(check);
    });
  const events: DispatcherEvents = {
    observe(event) {
      seen.push(event);
      for (const w of waiters.splice(0)) if (!w()) waiters.push(w);
    },
    seen,
    async next(match, from = seen.length) {
      await until(() => matching(match, from).length > 0);
      return matching(match, from)[0] as DispatcherEvent;
    },
    count(n, match, from = 0) {
      return until(() => matching(match, from).length >= n);
    },
    async aWholeTurn(dispatcher) {
      const from = seen.length;
      dispatcher.wake();
      await events.count(2, (e) => e.type === "idle", from);
    },
    sent(from = 0) {
      return seen.slice(from).reduce((sum, e) => sum + (e.type === "claimed" ? e.sent : 0), 0);
    },
  };
  return events;
}
