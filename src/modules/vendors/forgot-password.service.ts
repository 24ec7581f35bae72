// "Forgot password?" (CONTRACT 10): a reset link mailed to the address asked for, if it is an
// account's. The caller answers the same whatever happened, so the page tells nobody which
// addresses have accounts; the link is the same one-hour, one-use link the operator's CLI makes
// (password-reset.service.ts), written with its mail in one transaction.
import type { ServiceContext } from "../../context.ts";
import { AppError } from "../../errors.ts";
import { enqueueMail } from "../../mail/enqueue.ts";
import { createPasswordResetLink } from "./password-reset.service.ts";
import { findVendorById } from "./vendors.repository.ts";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** True when `email` could be an account's address (anything else is not looked up). */
export function isPlausibleEmail(email: string): boolean {
  return email.length <= 320 && EMAIL.test(email) && !email.includes("\u0000");
}

/**
 * Mails a reset link when `email` is an account's; does nothing otherwise. Never says which:
 * it resolves alike (an unknown address costs one lookup, a known one a transaction).
 */
export async function requestPasswordReset(ctx: ServiceContext, email: string): Promise<void> {
  if (!isPlausibleEmail(email)) return;
  try {
    await createPasswordResetLink(ctx, "", email, async (tx, link) => {
      const vendor = await findVendorById(tx, link.vendorId);
      if (!vendor) return;
      // To the member's own address as stored, whatever spelling was typed.
      await enqueueMail(tx, {
        kind: "password_reset",
        to: link.email,
        data: { shopName: vendor.name },
        vendorId: vendor.id,
        secret: link.token,
        createdAt: ctx.now(),
      });
    });
  } catch (err) {
    // No such account: the same answer as for one.
    if (err instanceof AppError && err.code === "not_found") return;
    throw err;
  }
}
