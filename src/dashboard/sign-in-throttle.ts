// Sign-in throttling: failed attempts are counted per client address, and per account *from that
// address*, in fixed windows; past either limit the form answers 429 until the window ends, even
// for the right password. Counting an account's failures from everywhere together would let
// anyone lock a vendor out of the dashboard and OAuth consent with five wrong passwords
// (repeatably, every 15 minutes); per account and address, a stranger's failures lock only the
// stranger's address. Guessing one account from many addresses stays bounded per address
// (perAddress failures per window each) and costs a slow password hash every time.
// Only failures count, so legitimate sign-ins from one office address never lock each other out.
// The counts live in the rate-limit store: shared by every process and instance through Redis
// when REDIS_URL is set (or through the primary with API_PROCESSES), else in this process. (The
// per-address request limit on the sign-in pages is a separate budget.)

import { clientAddressKey } from "../http/client-address.ts";
import type { Budget, RateLimitStore } from "../http/rate-limit-store.ts";
import { hashSecret } from "../lib/crypto.ts";

export interface ThrottleLimits {
  perAddress: number;
  perAccount: number;
  windowMs: number;
}

export const DEFAULT_THROTTLE: ThrottleLimits = { perAddress: 20, perAccount: 5, windowMs: 15 * 60 * 1000 };

export class SignInThrottle {
  private readonly address: Budget;
  private readonly account: Budget;

  constructor(
    private readonly store: RateLimitStore,
    private readonly limits: ThrottleLimits = DEFAULT_THROTTLE,
  ) {
    this.address = { policy: "sign-in-failures", max: limits.perAddress, windowMs: limits.windowMs };
    this.account = { policy: "sign-in-account-failures", max: limits.perAccount, windowMs: limits.windowMs };
  }

  /** Seconds until the caller may try again, or 0 when the attempt may proceed. */
  async retryAfter(address: string, account: string): Promise<number> {
    const [byAddress, byAccount] = await Promise.all([
      this.store.peek(this.address, this.limits.windowMs, addressKey(address)),
      this.store.peek(this.account, this.limits.windowMs, accountKey(address, account)),
    ]);
    const blockedFor = (count: { count: number; ttlMs: number }, limit: number) =>
      count.count >= limit ? Math.max(1, Math.ceil(count.ttlMs / 1000)) : 0;
    return Math.max(
      blockedFor(byAddress, this.limits.perAddress),
      blockedFor(byAccount, this.limits.perAccount),
    );
  }

  async recordFailure(address: string, account: string): Promise<void> {
    await Promise.all([
      this.store.hit(this.address, this.limits.windowMs, addressKey(address)),
      this.store.hit(this.account, this.limits.windowMs, accountKey(address, account)),
    ]);
  }

  /** A successful sign-in clears the account's failures from that address (not the address's). */
  async recordSuccess(address: string, account: string): Promise<void> {
    await this.store.forget(this.account, this.limits.windowMs, accountKey(address, account));
  }
}

const addressKey = (address: string) => `ip:${clientAddressKey(address)}`;
// Lower-cased and trimmed so spellings of one e-mail share their count; hashed so that no e-mail
// address sits in Redis.
const accountKey = (address: string, account: string) =>
  `account:${hashSecret(account.trim().toLowerCase())}|${addressKey(address)}`;
