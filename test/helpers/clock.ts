// The clocks tests hand to the app (startTestApp({ now })), so time-dependent behaviour is tested
// by moving time, never by sleeping.

/** A clock tests can move forward: `now()` is real time plus the offset. */
export function adjustableClock() {
  let offsetMs = 0;
  return {
    now: () => new Date(Date.now() + offsetMs),
    advance(ms: number) {
      offsetMs += ms;
    },
    /** Puts the clock `ms` ahead of real time (0: back to real time). */
    setOffset(ms: number) {
      offsetMs = ms;
    },
  };
}

/** A clock that moves `stepMs` per call, so ordering by time is deterministic in tests. */
export function tickingClock(start = Date.now(), stepMs = 1): () => Date {
  let t = start;
  return () => {
    t += stepMs;
    return new Date(t);
  };
}

/**
 * Resolves once the real clock has moved past the millisecond it was called in: for tests on the
 * app's real clock that need "after everything so far" (an `updatedSince` bound), in ~1 ms.
 */
export async function nextMillisecond(): Promise<void> {
  const start = Date.now();
  while (Date.now() <= start) await new Promise((r) => setImmediate(r));
}
