// Inviting people to a shop (CONTRACT 10, "Members"). An owner names an e-mail and a role; the address gets a
// one-time link (random 256 bits, only its SHA-256 stored, valid seven days) through the mail
// outbox, written in the invitation's transaction. The invitee opens it, chooses their name and
// password, and is a member. Whether the address already has an account anywhere is found out
// only then, by the person who reads that address: the owner's page says nothing about it.
import { isRole, type Role } from "../../auth/member-policy.ts";
import type { ServiceContext } from "../../context.ts";
import { AppError, fieldError, notFound } from "../../errors.ts";
import { generateSecret, hashSecret } from "../../lib/crypto.ts";
import { displayNameProblem } from "../../lib/display-name.ts";
import { isId, newId } from "../../lib/ids.ts";
import { hashPassword } from "../../lib/passwords.ts";
import { enqueueMail } from "../../mail/enqueue.ts";
import { recordActivity } from "../activity/activity.repository.ts";
import { findVendorByEmail, findVendorById } from "../vendors/vendors.repository.ts";
import { isPlausibleEmail } from "./forgot-password.service.ts";
import {
  consumeInvitation,
  deleteInvitation,
  deleteInvitationsTo,
  findLiveInvitation,
  insertInvitation,
  listInvitationsOfVendor,
} from "./invitations.repository.ts";
import {
  findMemberByEmail,
  insertMember,
  listMembersOfVendor,
  type MemberRow,
} from "./members.repository.ts";
import { checkPassword } from "./members.service.ts";

export const INVITATION_TOKEN_PREFIX = "vin_";
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export interface Invitation {
  id: string;
  email: string;
  role: Role;
  createdAt: Date;
  expiresAt: Date;
  expired: boolean;
}

export async function inviteMember(
  ctx: ServiceContext,
  vendorId: string,
  inviter: { id: string; name: string },
  input: { email: string; role: string },
): Promise<Invitation> {
  const email = input.email.trim();
  if (!isPlausibleEmail(email))
    throw fieldError("validation_failed", "email", "must be a valid e-mail address");
  if (!isRole(input.role)) throw fieldError("validation_failed", "role", "must be owner or staff");
  const role = input.role;
  const team = await listMembersOfVendor(ctx.db, vendorId);
  if (team.some((m) => m.email.toLowerCase() === email.toLowerCase())) {
    throw fieldError("validation_failed", "email", "is already a member of this shop");
  }
  const vendor = await findVendorById(ctx.db, vendorId);
  if (!vendor) throw notFound("Vendor");
  const token = generateSecret(INVITATION_TOKEN_PREFIX, 32);
  const now = ctx.now();
  const row = {
    id: newId(),
    vendorId,
    email,
    role,
    tokenHash: hashSecret(token),
    invitedBy: inviter.id,
    createdAt: now,
    expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
  };
  await ctx.db.transaction(async (tx) => {
    await deleteInvitationsTo(tx, vendorId, email);
    await insertInvitation(tx, row);
    await recordActivity(tx, {
      vendorId,
      action: "member.invited",
      subjectId: row.id,
      at: now,
      detail: { role },
    });
    await enqueueMail(tx, {
      kind: "member_invitation",
      to: email,
      data: { shopName: vendor.name, inviterName: inviter.name, role, language: vendor.language },
      vendorId,
      secret: token,
      createdAt: now,
    });
  });
  return { id: row.id, email, role, createdAt: now, expiresAt: row.expiresAt, expired: false };
}

export async function listInvitations(ctx: ServiceContext, vendorId: string): Promise<Invitation[]> {
  const now = ctx.now();
  return (await listInvitationsOfVendor(ctx.db, vendorId)).map((r) => ({
    id: r.id,
    email: r.email,
    role: r.role,
    createdAt: r.createdAt,
    expiresAt: r.expiresAt,
    expired: r.expiresAt <= now,
  }));
}

export async function cancelInvitation(ctx: ServiceContext, vendorId: string, id: string): Promise<void> {
  if (!isId(id) || !(await deleteInvitation(ctx.db, vendorId, id))) throw notFound("Invitation");
}

const looksLikeToken = (token: string) => token.startsWith(INVITATION_TOKEN_PREFIX) && token.length <= 100;

/** What the invitation page shows, or undefined when the link is not live. */
export async function findInvitation(
  ctx: ServiceContext,
  token: string,
): Promise<{ shopName: string; email: string; role: Role } | undefined> {
  if (!looksLikeToken(token)) return undefined;
  const row = await findLiveInvitation(ctx.db, hashSecret(token), ctx.now());
  const vendor = row ? await findVendorById(ctx.db, row.vendorId) : undefined;
  return row && vendor ? { shopName: vendor.name, email: row.email, role: row.role } : undefined;
}

/** Said of every dead link alike: used, cancelled, expired, or its sender no longer an owner. */
export const INVITATION_NO_LONGER_VALID =
  "This invitation is no longer valid: it was used, cancelled or has expired, or whoever sent it is no longer an owner of the shop.";

export class InvitationInvalid extends AppError {
  constructor(message = INVITATION_NO_LONGER_VALID) {
    super("validation_failed", message, {
      errors: [{ field: "token", message: "is used, cancelled or expired" }],
    });
  }
}

/**
 * Makes the member the link invites, with this name and password, and uses the link up (only if
 * the member is made: a short password leaves it usable). An address that has an account already
 * (in this shop or another) cannot take a second one.
 */
export async function acceptInvitation(
  ctx: ServiceContext,
  token: string,
  input: { name: string; password: string },
): Promise<MemberRow> {
  const name = input.name.trim();
  const nameProblem = displayNameProblem(name, 100);
  if (nameProblem) throw fieldError("validation_failed", "name", nameProblem);
  checkPassword(input.password, "password");
  if (!looksLikeToken(token)) throw new InvitationInvalid();
  const passwordHash = await hashPassword(input.password);
  return ctx.db.transaction(async (tx) => {
    const now = ctx.now();
    const invitation = await consumeInvitation(tx, hashSecret(token), now);
    if (!invitation) throw new InvitationInvalid();
    if ((await findMemberByEmail(tx, invitation.email)) || (await findVendorByEmail(tx, invitation.email))) {
      throw new InvitationInvalid(
        "This address already has an account here: sign in with it, or ask the shop to invite another address.",
      );
    }
    return insertMember(tx, {
      id: newId(),
      vendorId: invitation.vendorId,
      email: invitation.email,
      name,
      passwordHash,
      role: invitation.role,
      createdAt: now,
      updatedAt: now,
    });
  });
}
