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
//
// Races: a throttle bounds the guesses checked, whatever their concurrency. An attempt is reserved
// (counted as a failure, atomically) before its secret is checked, and given back when it proves
// right.
// Checking the count, verifying, then recording the failure let every parallel guess read the
// same count below the limit: 40 of 40 were checked against a limit of 5. A reservation past
// the limit is given back and refused, so the counts hold the attempts that were checked.
// The counters fail closed: when the shared counters do not count a reservation in time, the
// attempt is refused (503, Retry-After) rather than checked uncounted.
// The same throttle guards every form that checks a member's secret: the password and two-step
// code at sign-in (recovery codes too), the current password to change it or to turn two-step off.

import { clientAddressKey } from "../http/client-address.ts";
import { type Budget, CountersUnavailable, type RateLimitStore } from "../http/rate-limit-store.ts";
import { hashSecret } from "../lib/crypto.ts";

export interface ThrottleLimits {
  perAddress: number;
  perAccount: number;
  windowMs: number;
}

export const DEFAULT_THROTTLE: ThrottleLimits = { perAddress: 20, perAccount: 5, windowMs: 15 * 60 * 1000 };

/** How long to tell a client to wait when the counters did not answer: they are usually back soon. */
export const UNAVAILABLE_RETRY_S = 5;

/** A reserved attempt: counted as a failure until it is settled otherwise. */
export interface Attempt {
  /** The secret was right but the sign-in is not complete (a second step is due): given back. */
  refund(): Promise<void>;
  /** The whole sign-in (or the checked action) succeeded: given back, and the account's failures from that address forgotten. */
  succeeded(): Promise<void>;
}

export type Reservation =
  | { ok: true; attempt: Attempt }
  /** Refused unchecked: past a limit ("throttled", 429) or the counters did not answer ("unavailable", 503). */
  | { ok: false; reason: "throttled" | "unavailable"; retryAfterS: number };

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

  /**
   * Reserves one attempt at `account`'s secret from `address`, before the secret is checked. A
   * failure needs nothing more: the reservation is the count.
   */
  async reserve(address: string, account: string): Promise<Reservation> {
    const windowMs = this.limits.windowMs;
    const counters = [
      { budget: this.address, key: addressKey(address) },
      { budget: this.account, key: accountKey(address, account) },
    ];
    const counted = await Promise.allSettled(
      counters.map((c) => this.store.reserve(c.budget, windowMs, c.key)),
    );
    const refundAll = () =>
      Promise.all(
        counters.map((c, i) =>
          counted[i]?.status === "fulfilled" ? this.store.refund(c.budget, windowMs, c.key) : undefined,
        ),
      );
    if (counted.some((c) => c.status === "rejected")) {
      await refundAll();
      const failure = counted.find((c) => c.status === "rejected")?.reason;
      if (!(failure instanceof CountersUnavailable)) throw failure;
      return { ok: false, reason: "unavailable", retryAfterS: UNAVAILABLE_RETRY_S };
    }
    let retryAfterS = 0;
    counters.forEach((c, i) => {
      const result = counted[i];
      if (result?.status !== "fulfilled" || result.value.count <= c.budget.max) return;
      retryAfterS = Math.max(retryAfterS, Math.max(1, Math.ceil(result.value.ttlMs / 1000)));
    });
    if (retryAfterS > 0) {
      await refundAll();
      return { ok: false, reason: "throttled", retryAfterS };
    }
    return {
      ok: true,
      attempt: {
        refund: async () => {
          await refundAll();
        },
        succeeded: async () => {
          await this.store.refund(this.address, windowMs, addressKey(address));
          await this.store.forget(this.account, windowMs, accountKey(address, account));
        },
      },
    };
  }
}

const addressKey = (address: string) => `ip:${clientAddressKey(address)}`;
// Lower-cased and trimmed so spellings of one e-mail share their count; hashed so that no e-mail
// address sits in Redis.
const accountKey = (address: string, account: string) =>
  `account:${hashSecret(account.trim().toLowerCase())}|${addressKey(address)}`;
