// Password reset by a one-time link (CONTRACT 9). An operator makes the link (`vendor-api vendor
// reset-password`) and gives it to the shop, or the shop asks for it by mail at /forgot-password
// (forgot-password.service.ts). The link's token is
// random (256 bits), stored only as its SHA-256, valid for one hour and for one use; a newer
// link voids older ones. A link is one member's (a shop has several): using it sets that member's password
// and ends their sessions, as a password change does (members.service.ts, CONTRACT 6).
import type { ServiceContext } from "../../context.ts";
import type { Tx } from "../../db/client.ts";
import { AppError, notFound } from "../../errors.ts";
import { generateSecret, hashSecret } from "../../lib/crypto.ts";
import { isId, newId } from "../../lib/ids.ts";
import { hashPassword } from "../../lib/passwords.ts";
import { findFirstOwner, findMemberByEmail, findMemberOfVendor } from "./members.repository.ts";
import { checkPassword, replacePassword } from "./members.service.ts";
import {
  consumePasswordReset,
  findLivePasswordReset,
  insertPasswordReset,
  voidPasswordResetsOfMember,
} from "./password-resets.repository.ts";

export const RESET_TOKEN_PREFIX = "vpr_";
export const RESET_LINK_TTL_MS = 60 * 60 * 1000;

export async function createPasswordResetLink(
  ctx: ServiceContext,
  publicUrl: string,
  /** A member's e-mail, or a shop's id (its first owner). */
  memberRef: string,
  /** Runs in the link's transaction (the forgot-password page mails the link there). */
  withLink?: (
    tx: Tx,
    link: { vendorId: string; memberId: string; email: string; token: string },
  ) => Promise<void>,
): Promise<{ vendorId: string; memberId: string; email: string; url: string; expiresAt: Date }> {
  const member = memberRef.includes("@")
    ? await findMemberByEmail(ctx.db, memberRef.trim())
    : isId(memberRef)
      ? await findFirstOwner(ctx.db, memberRef)
      : undefined;
  if (!member) throw notFound(`Vendor "${memberRef}"`);
  const token = generateSecret(RESET_TOKEN_PREFIX, 32);
  const now = ctx.now();
  const expiresAt = new Date(now.getTime() + RESET_LINK_TTL_MS);
  await ctx.db.transaction(async (tx) => {
    await voidPasswordResetsOfMember(tx, member.vendorId, member.id, now);
    await insertPasswordReset(tx, {
      id: newId(),
      vendorId: member.vendorId,
      memberId: member.id,
      tokenHash: hashSecret(token),
      createdAt: now,
      expiresAt,
    });
    await withLink?.(tx, { vendorId: member.vendorId, memberId: member.id, email: member.email, token });
  });
  return {
    vendorId: member.vendorId,
    memberId: member.id,
    email: member.email,
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
  checkPassword(newPassword, "password");
  if (!looksLikeToken(token)) throw new ResetLinkInvalid();
  const passwordHash = await hashPassword(newPassword);
  await ctx.db.transaction(async (tx) => {
    const now = ctx.now();
    const link = await consumePasswordReset(tx, hashSecret(token), now);
    const member = link ? await findMemberOfVendor(tx, link.vendorId, link.memberId) : undefined;
    if (!member) throw new ResetLinkInvalid();
    // Whoever reset is not signed in: every session of theirs ends.
    await replacePassword(tx, member, passwordHash, now);
  });
}
