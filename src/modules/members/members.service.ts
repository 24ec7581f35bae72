// The people of a shop (CONTRACT 10, "Members"): signing in as one of them, their passwords, and the team an
// owner manages (roles, removal). What each role may do is src/auth/member-policy.ts.
//
// Rules kept here:
// - a shop always has an owner: the last owner can be neither demoted nor removed (the vendor row
//   is locked while counting, so two owners demoting each other cannot both succeed);
// - removing a member deletes their sessions in the same statement (foreign key, cascade): they
//   are signed out at once;
// - removing a member, or demoting an owner, revokes the invitations they sent and moves the
//   shop's notification e-mail off their address, in the same transaction (CONTRACT 12);
// - a password change or reset voids the member's outstanding reset links and ends their other
//   sessions; an owner's also revokes the shop's OAuth grants (only owners give consent, so only
//   an owner's password ever gave an application access, CONTRACT 6).
import { randomBytes } from "node:crypto";
import { isRole, type Role } from "../../auth/member-policy.ts";
import type { ServiceContext } from "../../context.ts";
import type { Executor } from "../../db/client.ts";
import { fieldError, notFound } from "../../errors.ts";
import { displayNameProblem } from "../../lib/display-name.ts";
import { isId } from "../../lib/ids.ts";
import { hashPassword, verifyPassword } from "../../lib/passwords.ts";
import { recordActivity } from "../activity/activity.repository.ts";
import { revokeGrantsOfVendor, voidUnusedCodes } from "../connections/oauth.repository.ts";
import { deleteOtherSessionsOfMember, deleteSessionsOfMember } from "../sessions/sessions.repository.ts";
import { moveNotificationEmailOff } from "../vendors/notification-email.service.ts";
import { lockVendor } from "../vendors/vendors.repository.ts";
import { deleteInvitationsSentBy } from "./invitations.repository.ts";
import {
  countOwners,
  deleteMember,
  findMemberByEmail,
  findMemberOfVendor,
  listMembersOfVendor,
  type MemberRow,
  updateMemberName,
  updateMemberPassword,
  updateMemberRole,
} from "./members.repository.ts";
import { voidPasswordResetsOfMember } from "./password-resets.repository.ts";

export type { MemberRow };

/** A member as pages show them: never the password hash. */
export interface Member {
  id: string;
  email: string;
  name: string;
  role: Role;
  /** Whether the member signs in with a second step (TOTP); never the secret. */
  twoStep: boolean;
  createdAt: Date;
}

export function presentMember(row: MemberRow): Member {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    twoStep: row.totpEnabledAt !== null,
    createdAt: row.createdAt,
  };
}

/** The name a person is shown by: their name, or their e-mail until they give one. */
export function displayName(member: { name: string; email: string }): string {
  return member.name.trim() || member.email;
}

export const PASSWORD_RULE = { min: 10, max: 1024 };

export function checkPassword(password: string, fieldName: string): void {
  if (password.length < PASSWORD_RULE.min || password.length > PASSWORD_RULE.max) {
    throw fieldError("validation_failed", fieldName, "must be 10-1024 characters");
  }
}

// A hash of a random password: verifying against it when the e-mail is unknown makes an unknown
// account take as long as a wrong password, so timing does not reveal which e-mails exist.
let dummyHash: Promise<string> | undefined;

/** The member whose e-mail and password these are, or undefined (one slow hash either way). */
export async function verifyMemberCredentials(
  ctx: ServiceContext,
  email: string,
  password: string,
): Promise<MemberRow | undefined> {
  // Refused before any query: PostgreSQL text cannot hold U+0000 (a 500 otherwise).
  const refused = email.length > 320 || password.length > 1024 || email.includes("\u0000");
  const member = refused ? undefined : await findMemberByEmail(ctx.db, email.trim());
  dummyHash ??= hashPassword(randomBytes(16).toString("hex"));
  const ok = await verifyPassword(password, member?.passwordHash ?? (await dummyHash));
  return member && ok ? member : undefined;
}

/** Sets a new password for the signed-in member after checking the current one. */
export async function changeMemberPassword(
  ctx: ServiceContext,
  vendorId: string,
  memberId: string,
  input: { currentPassword: string; newPassword: string },
  options: { keepSessionId?: string } = {},
): Promise<void> {
  const member = isId(memberId) ? await findMemberOfVendor(ctx.db, vendorId, memberId) : undefined;
  if (!member) throw notFound("Member");
  if (!(await verifyPassword(input.currentPassword, member.passwordHash))) {
    throw fieldError("validation_failed", "currentPassword", "is not the current password");
  }
  checkPassword(input.newPassword, "newPassword");
  const passwordHash = await hashPassword(input.newPassword);
  await ctx.db.transaction((tx) =>
    replacePassword(tx, member, passwordHash, ctx.now(), options.keepSessionId),
  );
}

/**
 * The new password hash, and in the same transaction: the member's outstanding reset links voided
 * (a link mailed before the change must not undo it), every session of theirs but
 * `keepSessionId` ended, and, for an owner, every OAuth grant (so every access and refresh token)
 * and unused code of the shop revoked (CONTRACT 6). A password change and a reset both end here.
 */
export async function replacePassword(
  tx: Executor,
  member: Pick<MemberRow, "id" | "vendorId" | "role">,
  passwordHash: string,
  now: Date,
  keepSessionId?: string,
): Promise<void> {
  await updateMemberPassword(tx, member.vendorId, member.id, passwordHash, now);
  if (member.role === "owner") {
    await revokeGrantsOfVendor(tx, member.vendorId, now);
    await voidUnusedCodes(tx, { vendorId: member.vendorId }, now);
  }
  await voidPasswordResetsOfMember(tx, member.vendorId, member.id, now);
  if (keepSessionId) await deleteOtherSessionsOfMember(tx, member.vendorId, member.id, keepSessionId);
  else await deleteSessionsOfMember(tx, member.vendorId, member.id);
}

export async function listTeam(ctx: ServiceContext, vendorId: string): Promise<Member[]> {
  return (await listMembersOfVendor(ctx.db, vendorId)).map(presentMember);
}

/** One member of the shop; another shop's or an unknown id is not_found. */
export async function getMember(ctx: ServiceContext, vendorId: string, memberId: string): Promise<Member> {
  const row = isId(memberId) ? await findMemberOfVendor(ctx.db, vendorId, memberId) : undefined;
  if (!row) throw notFound("Member");
  return presentMember(row);
}

const lastOwner = () =>
  fieldError("validation_failed", "role", "is the shop's last owner's: make another member owner first");

/** What removing or demoting a member also did, for the owner who did it to be told. */
export interface LeavingEffects {
  /** The shop's notification e-mail's new address, when it was the member's. */
  notificationEmailMovedTo?: string;
  /** How many of the member's invitations were revoked. */
  invitationsRevoked: number;
}

/**
 * Changes the member's role. An owner made staff loses what only owners hold: their unaccepted
 * invitations are revoked and the shop's mail moves off their address (notification-email.service.ts).
 */
export async function changeMemberRole(
  ctx: ServiceContext,
  vendorId: string,
  memberId: string,
  role: string,
): Promise<Member & LeavingEffects> {
  if (!isRole(role)) throw fieldError("validation_failed", "role", "must be owner or staff");
  return ctx.db.transaction(async (tx) => {
    const vendor = await lockVendor(tx, vendorId);
    const member = isId(memberId) ? await findMemberOfVendor(tx, vendorId, memberId) : undefined;
    if (!vendor || !member) throw notFound("Member");
    const demoted = member.role === "owner" && role !== "owner";
    if (demoted && (await countOwners(tx, vendorId)) <= 1) throw lastOwner();
    const now = ctx.now();
    await updateMemberRole(tx, vendorId, memberId, role, now);
    const invitationsRevoked = demoted ? await deleteInvitationsSentBy(tx, vendorId, memberId) : 0;
    await recordActivity(tx, {
      vendorId,
      action: "member.role_changed",
      subjectId: memberId,
      at: now,
      detail: { role, ...(invitationsRevoked > 0 ? { invitationsRevoked } : {}) },
    });
    const movedTo = demoted ? await moveNotificationEmailOff(tx, vendor, member, "demoted", now) : undefined;
    return {
      ...presentMember({ ...member, role }),
      invitationsRevoked,
      ...(movedTo ? { notificationEmailMovedTo: movedTo } : {}),
    };
  });
}

/**
 * Removes the member: their sessions end at once (deleted with them), the invitations they sent
 * are revoked, and the shop's mail moves off their address (notification-email.service.ts).
 */
export async function removeMember(
  ctx: ServiceContext,
  vendorId: string,
  memberId: string,
): Promise<Member & LeavingEffects> {
  return ctx.db.transaction(async (tx) => {
    const vendor = await lockVendor(tx, vendorId);
    const member = isId(memberId) ? await findMemberOfVendor(tx, vendorId, memberId) : undefined;
    if (!vendor || !member) throw notFound("Member");
    if (member.role === "owner" && (await countOwners(tx, vendorId)) <= 1) throw lastOwner();
    const now = ctx.now();
    // Before the member goes: the foreign key would only set invited_by null.
    const invitationsRevoked = await deleteInvitationsSentBy(tx, vendorId, memberId);
    // Also before: which address the member confirmed is read from rows that go with them.
    const movedTo = await moveNotificationEmailOff(tx, vendor, member, "removed", now);
    await deleteMember(tx, vendorId, memberId);
    await recordActivity(tx, {
      vendorId,
      action: "member.removed",
      subjectId: memberId,
      at: now,
      ...(invitationsRevoked > 0 ? { detail: { invitationsRevoked } } : {}),
    });
    return {
      ...presentMember(member),
      invitationsRevoked,
      ...(movedTo ? { notificationEmailMovedTo: movedTo } : {}),
    };
  });
}

export async function renameMember(
  ctx: ServiceContext,
  vendorId: string,
  memberId: string,
  name: string,
): Promise<void> {
  const trimmed = name.trim();
  const problem = displayNameProblem(trimmed, 100);
  if (problem) throw fieldError("validation_failed", "name", problem);
  await updateMemberName(ctx.db, vendorId, memberId, trimmed, ctx.now());
}
