// A form behind a session that checks the member's own secret (the current password to change it
// or to turn two-step sign-in off) is a way to guess that secret with a stolen session: it takes
// the sign-in throttle (sign-in-throttle.ts), counted before the secret is checked. 30 parallel
// wrong current passwords were all checked before; now at most the account's budget is.
import { AppError } from "../errors.ts";
import type { SignInThrottle } from "./sign-in-throttle.ts";

/**
 * Runs `action`, which checks `field` (the secret) first, as one reserved attempt of `account`
 * from `address`. A refusal of `field` keeps the attempt counted; any other outcome means the
 * secret was right (or never checked) and gives it back. Past the budget it throws 429
 * rate_limited; when the counters do not answer, 503 unavailable (both with Retry-After).
 */
export async function withThrottledSecret<T>(
  throttle: SignInThrottle,
  who: { address: string; account: string },
  field: string,
  action: () => Promise<T>,
): Promise<T> {
  const reservation = await throttle.reserve(who.address, who.account);
  if (!reservation.ok) {
    const headers = { "retry-after": String(reservation.retryAfterS) };
    throw reservation.reason === "throttled"
      ? new AppError(
          "rate_limited",
          `Too many wrong passwords. Please wait ${Math.ceil(reservation.retryAfterS / 60)} minute(s) and try again.`,
          { headers },
        )
      : new AppError("unavailable", "Briefly unavailable. Please try again in a few seconds.", { headers });
  }
  let result: T;
  try {
    result = await action();
  } catch (err) {
    const wrongSecret = err instanceof AppError && err.extra.errors?.some((e) => e.field === field);
    if (!wrongSecret) await reservation.attempt.refund();
    throw err;
  }
  await reservation.attempt.succeeded();
  return result;
}
