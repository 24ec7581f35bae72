// Waiting longer after each failure, for the things a process retries by itself: the database at
// start (main.ts), an API process that died (main.ts, API_PROCESSES). Doubling from `firstMs` up
// to `maxMs`, with a little jitter so processes started together do not retry in step.
export class Backoff {
  private attempt = 0;
  constructor(
    private readonly firstMs: number,
    private readonly maxMs: number,
  ) {}

  /** The wait before the next try (and counts it). */
  next(): number {
    const base = Math.min(this.maxMs, this.firstMs * 2 ** this.attempt);
    this.attempt++;
    return Math.round(base * (0.8 + Math.random() * 0.2));
  }

  /** How many waits were handed out since the last reset. */
  get attempts(): number {
    return this.attempt;
  }

  reset(): void {
    this.attempt = 0;
  }
}

/**
 * Runs `fn` until it succeeds, retrying the failures `retryable` accepts after a growing wait,
 * for at most `giveUpAfterMs` (then the last failure is thrown). `onRetry` is told each wait.
 */
export async function retryWithBackoff<T>(
  fn: () => Promise<T>,
  options: {
    retryable: (err: unknown) => boolean;
    giveUpAfterMs: number;
    onRetry: (err: unknown, waitMs: number, attempt: number) => void;
    firstMs?: number;
    maxMs?: number;
  },
): Promise<T> {
  const backoff = new Backoff(options.firstMs ?? 500, options.maxMs ?? 5_000);
  const giveUpAt = performance.now() + options.giveUpAfterMs;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      const wait = backoff.next();
      if (!options.retryable(err) || performance.now() + wait > giveUpAt) throw err;
      options.onRetry(err, wait, backoff.attempts);
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}
