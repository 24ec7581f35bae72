// "Forgot password?" (CONTRACT 10): a reset link mailed to the address asked for, if it is an
// account's. The caller answers the same whatever happened, so the page tells nobody which
// addresses have accounts; the link is the same one-hour, one-use link the operator's CLI makes
// (password-reset.service.ts). Known and unknown addresses also cost the same: the same secret is
// made and the same single statement runs for both (it writes the link and its mail, which the
// outbox sends later, only when the address is a member's), so the time of the answer does not
// tell either (a lookup first and a transaction only for members made a known address ~10 ms
// slower).
import type { ServiceContext } from "../../context.ts";
import { generateSecret, hashSecret } from "../../lib/crypto.ts";
import { isEmailAddress } from "../../lib/email-address.ts";
import { newId } from "../../lib/ids.ts";
import { RESET_LINK_TTL_MS, RESET_TOKEN_PREFIX } from "./password-reset.service.ts";
import { insertPasswordResetByEmail } from "./password-resets.repository.ts";

/** True when `email` could be an account's address (anything else is not looked up). */
export function isPlausibleEmail(email: string): boolean {
  return isEmailAddress(email);
}

/** Mails a reset link when `email` is a member's; does nothing otherwise, in the same time. */
export async function requestPasswordReset(ctx: ServiceContext, email: string): Promise<void> {
  if (!isPlausibleEmail(email)) return;
  const token = generateSecret(RESET_TOKEN_PREFIX, 32);
  const now = ctx.now();
  await insertPasswordResetByEmail(ctx.db, {
    email,
    linkId: newId(),
    tokenHash: hashSecret(token),
    mailId: newId(),
    token,
    now,
    expiresAt: new Date(now.getTime() + RESET_LINK_TTL_MS),
  });
}
