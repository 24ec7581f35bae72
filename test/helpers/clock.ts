/** A clock tests can move forward: `now()` is real time plus the offset. */
export function adjustableClock() {
  let offsetMs = 0;
  return {
    now: () => new Date(Date.now() + offsetMs),
    advance(ms: number) {
      offsetMs += ms;
    },
  };
}
