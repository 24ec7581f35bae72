// Password reset by a one-time link (CONTRACT 9). An operator makes the link (`vendor-api vendor
// reset-password`) and gives it to the shop, or the shop asks for it by mail at /forgot-password
// (forgot-password.service.ts). The link's token is
// random (256 bits), stored only as its SHA-256, valid for one hour and for one use; a newer
// link voids older ones. Using it sets the password and revokes every OAuth grant and every
// dashboard session of the vendor, as a password change does (CONTRACT 6).
import type { ServiceContext } from "../../context.ts";
import type { Tx } from "../../db/client.ts";
import { AppError, fieldError, notFound } from "../../errors.ts";
import { generateSecret, hashSecret } from "../../lib/crypto.ts";
import { newId } from "../../lib/ids.ts";
import { hashPassword } from "../../lib/passwords.ts";
import {
  consumePasswordReset,
  findLivePasswordReset,
  insertPasswordReset,
  voidPasswordResetsOfVendor,
} from "./password-resets.repository.ts";
import { findVendor, replacePassword } from "./vendors.service.ts";

export const RESET_TOKEN_PREFIX = "vpr_";
export const RESET_LINK_TTL_MS = 60 * 60 * 1000;

export async function createPasswordResetLink(
  ctx: ServiceContext,
  publicUrl: string,
  vendorRef: string,
  /** Runs in the link's transaction (the forgot-password page mails the link there). */
  withLink?: (tx: Tx, link: { vendorId: string; token: string }) => Promise<void>,
): Promise<{ vendorId: string; email: string; url: string; expiresAt: Date }> {
  const vendor = await findVendor(ctx, vendorRef);
  if (!vendor) throw notFound(`Vendor "${vendorRef}"`);
  const token = generateSecret(RESET_TOKEN_PREFIX, 32);
  const now = ctx.now();
  const expiresAt = new Date(now.getTime() + RESET_LINK_TTL_MS);
  await ctx.db.transaction(async (tx) => {
    await voidPasswordResetsOfVendor(tx, vendor.id, now);
    await insertPasswordReset(tx, {
      id: newId(),
      vendorId: vendor.id,
      tokenHash: hashSecret(token),
      createdAt: now,
      expiresAt,
    });
    await withLink?.(tx, { vendorId: vendor.id, token });
  });
  return {
    vendorId: vendor.id,
    email: vendor.email,
    url: `${publicUrl}/reset-password?token=${encodeURIComponent(token)}`,
    expiresAt,
  };
}

const looksLikeToken = (token: string) => token.startsWith(RESET_TOKEN_PREFIX) && token.length <= 100;

/** Whether the link is live, so the page can say so before the vendor types a new password. */
export async function isPasswordResetLive(ctx: ServiceContext, token: string): Promise<boolean> {
  if (!looksLikeToken(token)) return false;
  return (await findLivePasswordReset(ctx.db, hashSecret(token), ctx.now())) !== undefined;
}

export class ResetLinkInvalid extends AppError {
  constructor() {
    super(
      "validation_failed",
      "This password-reset link is not valid: it was used, replaced or has expired.",
      {
        errors: [{ field: "token", message: "is used, replaced or expired" }],
      },
    );
  }
}

export async function resetPasswordWithLink(
  ctx: ServiceContext,
  token: string,
  newPassword: string,
): Promise<void> {
  if (newPassword.length < 10 || newPassword.length > 1024) {
    throw fieldError("validation_failed", "password", "must be 10-1024 characters");
  }
  if (!looksLikeToken(token)) throw new ResetLinkInvalid();
  const passwordHash = await hashPassword(newPassword);
  await ctx.db.transaction(async (tx) => {
    const now = ctx.now();
    const vendorId = await consumePasswordReset(tx, hashSecret(token), now);
    if (!vendorId) throw new ResetLinkInvalid();
    // Whoever reset is not signed in: every session ends.
    await replacePassword(tx, vendorId, passwordHash, now);
  });
}
