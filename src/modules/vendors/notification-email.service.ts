// Where the shop's own mail goes (CONTRACT 12): the notification e-mail, a setting the owners see
// and change. Rules kept here:
// - the address is the founding owner's sign-in e-mail until an owner sets another, and a new
//   one counts only once the link mailed to it is followed (random 256 bits, only the SHA-256
//   kept, one day, one use; a newer request replaces the older): until then mail keeps going to
//   the address in force, and a typo or somebody else's address never receives the shop's mail;
// - a request dies with its requester's removal or demotion (checked again when the link is
//   followed), so nobody who lost the shop can finish one;
// - when the member whose address it is (their sign-in e-mail, or an address they confirmed) is
//   removed or demoted, it moves to a remaining owner's sign-in e-mail in the same transaction, is recorded in the activity log, the new recipient is
//   mailed and Settings tells the owners: mail about prospects never follows a person out.
import { runAsActor } from "../../auth/actor.ts";
import type { ServiceContext } from "../../context.ts";
import type { Executor } from "../../db/client.ts";
import { fieldError, notFound } from "../../errors.ts";
import { generateSecret, hashSecret } from "../../lib/crypto.ts";
import { newId } from "../../lib/ids.ts";
import { enqueueMail } from "../../mail/enqueue.ts";
import { recordActivity } from "../activity/activity.repository.ts";
import {
  consumeNotificationEmailChange,
  deleteNotificationEmailChanges,
  deleteNotificationEmailChangesBy,
  findLiveNotificationEmailChange,
  findOtherOwner,
  findPendingNotificationEmailChange,
  findRequesterOfAddress,
  insertNotificationEmailChange,
  updateNotificationEmail,
} from "./notification-email.repository.ts";
import { findVendorById, lockVendor, type VendorRow } from "./vendors.repository.ts";

// The same plausibility rule as the shop's contact e-mail (shop-settings.ts); the link proves the rest.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const NOTIFICATION_EMAIL_TOKEN_PREFIX = "vne_";
export const NOTIFICATION_EMAIL_LINK_TTL_MS = 24 * 60 * 60 * 1000;

/** The address the shop's own mail (a new inquiry) goes to now. */
export function notificationAddress(vendor: Pick<VendorRow, "notificationEmail" | "email">): string {
  return vendor.notificationEmail ?? vendor.email;
}

export interface NotificationSettings {
  /** Where the shop's mail goes now. */
  address: string;
  /** A new address waiting for its link to be followed. */
  pending: { email: string; expiresAt: Date } | null;
  /** When the address last moved off a removed or demoted member (cleared by a confirmed change). */
  movedAt: Date | null;
}

export async function getNotificationSettings(
  ctx: ServiceContext,
  vendorId: string,
): Promise<NotificationSettings> {
  const vendor = await findVendorById(ctx.db, vendorId);
  if (!vendor) throw notFound("Vendor");
  const pending = await findPendingNotificationEmailChange(ctx.db, vendorId, ctx.now());
  return {
    address: notificationAddress(vendor),
    pending: pending ? { email: pending.email, expiresAt: pending.expiresAt } : null,
    movedAt: vendor.notificationEmailMovedAt,
  };
}

/** Mails a confirmation link to `email`; the setting changes when it is followed. */
export async function requestNotificationEmailChange(
  ctx: ServiceContext,
  vendorId: string,
  requester: { id: string; name: string },
  input: { email: string },
): Promise<{ email: string; current: string }> {
  const email = input.email.trim();
  if (email.length > 254 || !EMAIL.test(email) || email.includes("\u0000")) {
    throw fieldError("validation_failed", "notificationEmail", "must be an e-mail address");
  }
  const token = generateSecret(NOTIFICATION_EMAIL_TOKEN_PREFIX, 32);
  return ctx.db.transaction(async (tx) => {
    const vendor = await lockVendor(tx, vendorId);
    if (!vendor) throw notFound("Vendor");
    const current = notificationAddress(vendor);
    if (current.toLowerCase() === email.toLowerCase()) {
      throw fieldError("validation_failed", "notificationEmail", "is already where notifications go");
    }
    const now = ctx.now();
    await deleteNotificationEmailChanges(tx, vendorId);
    const id = newId();
    await insertNotificationEmailChange(tx, {
      id,
      vendorId,
      email,
      tokenHash: hashSecret(token),
      requestedBy: requester.id,
      createdAt: now,
      expiresAt: new Date(now.getTime() + NOTIFICATION_EMAIL_LINK_TTL_MS),
    });
    await recordActivity(tx, {
      vendorId,
      action: "settings.notification_email_requested",
      subjectId: null,
      at: now,
    });
    await enqueueMail(tx, {
      kind: "notification_email_confirm",
      to: email,
      data: { shopName: vendor.name, requesterName: requester.name, language: vendor.language },
      vendorId,
      secret: token,
      createdAt: now,
    });
    return { email, current };
  });
}

const looksLikeToken = (token: string) =>
  token.startsWith(NOTIFICATION_EMAIL_TOKEN_PREFIX) && token.length <= 100;

/** What the confirmation page shows, or undefined when the link is not live. */
export async function findNotificationEmailChange(
  ctx: ServiceContext,
  token: string,
): Promise<{ shopName: string; email: string } | undefined> {
  if (!looksLikeToken(token)) return undefined;
  const row = await findLiveNotificationEmailChange(ctx.db, hashSecret(token), ctx.now());
  const vendor = row ? await findVendorById(ctx.db, row.vendorId) : undefined;
  return row && vendor ? { shopName: vendor.name, email: row.email } : undefined;
}

/** Makes the link's address the shop's notification e-mail; undefined when the link is not live. */
export async function confirmNotificationEmailChange(
  ctx: ServiceContext,
  token: string,
): Promise<{ shopName: string; email: string } | undefined> {
  if (!looksLikeToken(token)) return undefined;
  return ctx.db.transaction(async (tx) => {
    const now = ctx.now();
    const change = await consumeNotificationEmailChange(tx, hashSecret(token), now);
    if (!change) return undefined;
    const vendor = await lockVendor(tx, change.vendorId);
    if (!vendor) return undefined;
    await updateNotificationEmail(tx, change.vendorId, change.email, null, now);
    // Whoever follows the link has no session: the entry names the owner who asked for it.
    await runAsActor({ kind: "person", id: change.requestedBy }, () =>
      recordActivity(tx, {
        vendorId: change.vendorId,
        action: "settings.notification_email_confirmed",
        subjectId: null,
        at: now,
      }),
    );
    return { shopName: vendor.name, email: change.email };
  });
}

/**
 * Whether the shop's mail goes to the member: to their sign-in e-mail, or to an address they had
 * confirmed (else an owner could route it to a private address before leaving and keep reading it;
 * a shared mailbox such as info@ moves too, and an owner who reads it confirms it again).
 */
async function isMembersAddress(
  tx: Executor,
  vendor: VendorRow,
  member: { id: string; email: string },
): Promise<boolean> {
  const address = notificationAddress(vendor);
  if (address.toLowerCase() === member.email.toLowerCase()) return true;
  return (
    vendor.notificationEmail !== null &&
    (await findRequesterOfAddress(tx, vendor.id, vendor.notificationEmail)) === member.id
  );
}

/**
 * Called in the transaction that removes or demotes `member` (the vendor row locked; for a removal,
 * before the member row goes, as the changes they confirmed go with it): voids the member's
 * pending requests and, when the shop's mail goes to the member's address, moves it to the first
 * remaining owner. Returns the new address, or undefined when nothing moved.
 */
export async function moveNotificationEmailOff(
  tx: Executor,
  vendor: VendorRow,
  member: { id: string; email: string },
  reason: "removed" | "demoted",
  now: Date,
): Promise<string | undefined> {
  await deleteNotificationEmailChangesBy(tx, vendor.id, member.id);
  if (!(await isMembersAddress(tx, vendor, member))) return undefined;
  const owner = await findOtherOwner(tx, vendor.id, member.id);
  // The last owner can be neither removed nor demoted (members.service.ts): there is always one.
  if (!owner) return undefined;
  await updateNotificationEmail(tx, vendor.id, owner.email, now, now);
  await recordActivity(tx, {
    vendorId: vendor.id,
    action: "settings.notification_email_moved",
    subjectId: owner.id,
    at: now,
    detail: { reason },
  });
  await enqueueMail(tx, {
    kind: "notification_email_moved",
    to: owner.email,
    data: { shopName: vendor.name, reason, language: vendor.language },
    vendorId: vendor.id,
    createdAt: now,
  });
  return owner.email;
}
