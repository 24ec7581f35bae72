// Sign-in throttling: failed attempts are counted per client address and per account in fixed
// windows; past the limit the form answers 429 until the window ends, even for the right password,
// so guessing stays slow whichever of the two an attacker varies. Only failures count, so
// legitimate sign-ins from one office address never lock each other out.
// In memory, per process: it slows online guessing, on top of the slow password hash. (The
// shared per-credential API rate limit is a separate plugin.)
export interface ThrottleLimits {
  perAddress: number;
  perAccount: number;
  windowMs: number;
}

export const DEFAULT_THROTTLE: ThrottleLimits = { perAddress: 20, perAccount: 5, windowMs: 15 * 60 * 1000 };

interface Window {
  count: number;
  resetAt: number;
}

export class SignInThrottle {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly limits: ThrottleLimits = DEFAULT_THROTTLE,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds until the caller may try again, or 0 when the attempt may proceed. */
  retryAfter(address: string, account: string): number {
    const t = this.now();
    const blocked = [
      this.blockedFor(`ip:${address}`, this.limits.perAddress, t),
      this.blockedFor(`account:${account.toLowerCase()}`, this.limits.perAccount, t),
    ];
    return Math.max(...blocked);
  }

  recordFailure(address: string, account: string): void {
    this.bump(`ip:${address}`);
    this.bump(`account:${account.toLowerCase()}`);
  }

  /** A successful sign-in clears the account's failures (not the address's). */
  recordSuccess(account: string): void {
    this.windows.delete(`account:${account.toLowerCase()}`);
  }

  private blockedFor(key: string, limit: number, t: number): number {
    const w = this.windows.get(key);
    if (!w || w.resetAt <= t) return 0;
    return w.count >= limit ? Math.ceil((w.resetAt - t) / 1000) : 0;
  }

  private bump(key: string): void {
    const t = this.now();
    const w = this.windows.get(key);
    if (!w || w.resetAt <= t) {
      this.windows.set(key, { count: 1, resetAt: t + this.limits.windowMs });
      this.prune(t);
    } else {
      w.count += 1;
    }
  }

  /** Keeps memory bounded: expired windows are dropped as new ones open. */
  private prune(t: number): void {
    if (this.windows.size < 10_000) return;
    for (const [key, w] of this.windows) if (w.resetAt <= t) this.windows.delete(key);
  }
}
