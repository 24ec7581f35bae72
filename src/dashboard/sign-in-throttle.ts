// Sign-in throttling: failed attempts are counted per client address, and per account *from that
// address*, in fixed windows; past either limit the form answers 429 until the window ends, even
// for the right password. Counting an account's failures from everywhere together would let
// anyone lock a vendor out of the dashboard and OAuth consent with five wrong passwords
// (repeatably, every 15 minutes); per account and address, a stranger's failures lock only the
// stranger's address. Guessing one account from many addresses stays bounded per address
// (perAddress failures per window each) and costs a slow password hash every time.
// Only failures count, so legitimate sign-ins from one office address never lock each other out.
// In memory, per process: it slows online guessing, on top of the slow password hash. (The
// shared per-address request limit on the sign-in pages is a separate plugin.)
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
      this.blockedFor(accountKey(address, account), this.limits.perAccount, t),
    ];
    return Math.max(...blocked);
  }

  recordFailure(address: string, account: string): void {
    this.bump(`ip:${address}`);
    this.bump(accountKey(address, account));
  }

  /** A successful sign-in clears the account's failures from that address (not the address's). */
  recordSuccess(address: string, account: string): void {
    this.windows.delete(accountKey(address, account));
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

const accountKey = (address: string, account: string) =>
  `account:${account.trim().toLowerCase()}|ip:${address}`;
