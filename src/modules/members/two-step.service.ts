// Two-step sign-in: a TOTP authenticator (RFC 6238, otplib) any member may turn on,
// with ten recovery codes, and a shop setting owners use to require it of every member.
//
// Rules kept here:
// - the TOTP secret is a secret: it is stored sealed (AES-256-GCM under a key derived from
//   SESSION_SECRET, `twoStepKey`), shown only on the setup page until its first code is
//   confirmed, and never again; it is never put in a log, URL or cookie;
// - a code is accepted once: the time step it matched is kept, and a code of that step or an
//   earlier one is refused (RFC 6238 5.2), in the same statement that accepts it;
// - codes of the step before and after are accepted too (30 s each way: a phone's clock drifts);
// - recovery codes are shown once, kept as SHA-256, and each works once;
// - turning it off asks for the password, and is refused while the shop requires it;
// - turning it on ends the member's other sessions (one opened by a thief with the password
//   alone must not survive it); requiring it of everyone ends every session of the members who
//   have not set it up, but the acting owner's current one;
// - an owner may reset another member's lost authenticator: it is off, their sessions end, the
//   activity log records it, and (the shop requiring it) they set it up at their next sign-in.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { generateSecret as generateTotpSecret, generateURI, verify } from "otplib";
import type { ServiceContext } from "../../context.ts";
import type { Executor } from "../../db/client.ts";
import { AppError, fieldError, notFound } from "../../errors.ts";
import { hashSecret } from "../../lib/crypto.ts";
import { verifyPassword } from "../../lib/passwords.ts";
import { recordActivity } from "../activity/activity.repository.ts";
import {
  deleteOtherSessionsOfMember,
  deleteSessionsOfMember,
  deleteSessionsWithoutTwoStep,
} from "../sessions/sessions.repository.ts";
import { findMemberOfVendor, type MemberRow } from "./members.repository.ts";
import {
  acceptTimeStep,
  consumeRecoveryCode,
  countUnusedRecoveryCodes,
  disableTotp,
  enableTotp,
  setPendingTotpSecret,
  setShopRequirement,
  shopRequiresTwoStep,
} from "./two-step.repository.ts";

export const RECOVERY_CODE_COUNT = 10;
/** Seconds either side of now a code may come from (one time step of 30 s). */
const TOLERANCE_SECONDS = 30;

/**
 * The sealing key of TOTP secrets. With SESSION_SECRET set (required in production) only a
 * process holding it can open them; without it (development) the key is a fixed one, which
 * seals nothing against a reader of the database: set SESSION_SECRET wherever it matters.
 * Changing SESSION_SECRET makes every stored secret unreadable: members then sign in with a
 * recovery code and set two-step sign-in up again.
 */
export function twoStepKey(sessionSecret: string | undefined): Buffer {
  return createHash("sha256")
    .update("vendor-api two-step sign-in v1\0")
    .update(sessionSecret ?? "development: no SESSION_SECRET")
    .digest();
}

function seal(key: Buffer, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const sealed = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString("base64url");
}

function unseal(key: Buffer, value: string): string | undefined {
  try {
    const raw = Buffer.from(value, "base64url");
    const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
  } catch {
    return undefined;
  }
}

async function memberOrThrow(ctx: ServiceContext, vendorId: string, memberId: string): Promise<MemberRow> {
  const member = await findMemberOfVendor(ctx.db, vendorId, memberId);
  if (!member) throw notFound("Member");
  return member;
}

export interface TwoStepStatus {
  enabled: boolean;
  recoveryCodesLeft: number;
  shopRequires: boolean;
}

export async function twoStepStatus(
  ctx: ServiceContext,
  vendorId: string,
  memberId: string,
): Promise<TwoStepStatus> {
  const member = await memberOrThrow(ctx, vendorId, memberId);
  return {
    enabled: member.totpEnabledAt !== null,
    recoveryCodesLeft: await countUnusedRecoveryCodes(ctx.db, vendorId, memberId),
    shopRequires: await shopRequiresTwoStep(ctx.db, vendorId),
  };
}

/**
 * The secret being set up and its otpauth URI (for the QR code), made on first call and kept
 * sealed until confirmed; undefined once two-step sign-in is on (the secret is never shown again).
 * `issuer` names the account in the authenticator app: the product the member signs in to
 * (PRODUCT_NAME), never this service's own name, which its people never see.
 */
export async function pendingTwoStepSetup(
  ctx: ServiceContext,
  key: Buffer,
  vendorId: string,
  memberId: string,
  issuer: string,
): Promise<{ secret: string; uri: string } | undefined> {
  const member = await memberOrThrow(ctx, vendorId, memberId);
  if (member.totpEnabledAt) return undefined;
  let secret = member.totpPending ? unseal(key, member.totpPending) : undefined;
  if (!secret) {
    secret = generateTotpSecret();
    await setPendingTotpSecret(ctx.db, vendorId, memberId, seal(key, secret));
  }
  return { secret, uri: generateURI({ issuer, label: member.email, secret }) };
}

async function matchingStep(ctx: ServiceContext, secret: string, code: string, after: number | null) {
  const token = code.replace(/\s+/g, "");
  if (!/^\d{6}$/.test(token)) return undefined;
  const result = await verify({
    secret,
    token,
    epoch: Math.floor(ctx.now().getTime() / 1000),
    epochTolerance: TOLERANCE_SECONDS,
    ...(after !== null ? { afterTimeStep: after } : {}),
  });
  return result.valid && "timeStep" in result ? result.timeStep : undefined;
}

function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const raw = randomBytes(8).toString("hex").slice(0, 10);
    return `${raw.slice(0, 5)}-${raw.slice(5)}`;
  });
}

const normalizeRecoveryCode = (code: string) =>
  code
    .trim()
    .toLowerCase()
    .replace(/[^0-9a-f]/g, "");

/**
 * Turns two-step sign-in on with the code the authenticator shows for the pending secret;
 * returns the recovery codes, to be shown once.
 */
export async function confirmTwoStepSetup(
  ctx: ServiceContext,
  key: Buffer,
  vendorId: string,
  memberId: string,
  code: string,
  /** The session that turns it on, which goes on; every other session of the member ends. */
  keepSessionId: string | undefined,
): Promise<string[]> {
  const member = await memberOrThrow(ctx, vendorId, memberId);
  if (member.totpEnabledAt) throw new AppError("validation_failed", "Two-step sign-in is already on");
  const secret = member.totpPending ? unseal(key, member.totpPending) : undefined;
  if (!secret)
    throw fieldError("validation_failed", "code", "has no setup to confirm: open the setup page again");
  const step = await matchingStep(ctx, secret, code, null);
  if (step === undefined)
    throw fieldError("validation_failed", "code", "is not the code the authenticator shows");
  const codes = newRecoveryCodes();
  const now = ctx.now();
  const sealed = member.totpPending as string;
  const codeHashes = codes.map((c) => hashSecret(normalizeRecoveryCode(c)));
  await ctx.db.transaction(async (tx) => {
    await enableTotp(tx, vendorId, memberId, { sealed, step, codeHashes, at: now });
    await endOtherSessions(tx, vendorId, memberId, keepSessionId);
  });
  return codes;
}

/**
 * The second step of a sign-in: a current TOTP code not used before, or an unused recovery code
 * (used up by this). Each acceptance is one conditional UPDATE, so two requests with one code
 * cannot both pass.
 */
export async function verifySecondStep(
  ctx: ServiceContext,
  key: Buffer,
  vendorId: string,
  memberId: string,
  code: string,
): Promise<boolean> {
  const member = await findMemberOfVendor(ctx.db, vendorId, memberId);
  if (!member?.totpSecret || code.length > 64) return false;
  const now = ctx.now();
  const recovery = normalizeRecoveryCode(code);
  if (recovery.length === 10 && /[-a-f]/i.test(code)) {
    return consumeRecoveryCode(ctx.db, vendorId, memberId, hashSecret(recovery), now);
  }
  const secret = unseal(key, member.totpSecret);
  if (!secret) return false;
  const step = await matchingStep(ctx, secret, code, member.totpLastStep);
  if (step === undefined) return false;
  return acceptTimeStep(ctx.db, vendorId, memberId, step);
}

/** Turns two-step sign-in off (the password confirms it is the member); not while the shop requires it. */
export async function turnOffTwoStep(
  ctx: ServiceContext,
  vendorId: string,
  memberId: string,
  password: string,
): Promise<void> {
  const member = await memberOrThrow(ctx, vendorId, memberId);
  if (!(await verifyPassword(password, member.passwordHash))) {
    throw fieldError("validation_failed", "password", "is not your password");
  }
  const status = await twoStepStatus(ctx, vendorId, memberId);
  if (status.shopRequires) {
    throw new AppError(
      "validation_failed",
      "The shop requires two-step sign-in: an owner can turn that off in Team.",
    );
  }
  await ctx.db.transaction((tx) => disableTotp(tx, vendorId, memberId, ctx.now()));
}

/** Owners: require two-step sign-in of every member (each sets it up at their next sign-in). */
export async function setShopRequiresTwoStep(
  ctx: ServiceContext,
  vendorId: string,
  on: boolean,
  /** The owner's own session, which goes on (they set two-step up at their next sign-in). */
  keepSessionId?: string,
): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    await setShopRequirement(tx, vendorId, on, ctx.now());
    // Sessions opened with a password alone end: their members sign in again and set it up.
    if (on) await deleteSessionsWithoutTwoStep(tx, vendorId, keepSessionId);
  });
}

/**
 * An owner resets a member's authenticator (the member lost their phone and their recovery
 * codes): two-step sign-in is off for them, every session of theirs ends, and the reset is in the
 * activity log. If the shop requires two-step sign-in they set it up again at their next sign-in;
 * otherwise they may. Only owners reach this (the Team page's rule); an owner resets their own
 * from the account page instead, with their password.
 */
export async function resetMemberTwoStep(
  ctx: ServiceContext,
  vendorId: string,
  actingMemberId: string,
  memberId: string,
): Promise<MemberRow> {
  const member = await memberOrThrow(ctx, vendorId, memberId);
  if (member.id === actingMemberId) {
    throw new AppError(
      "validation_failed",
      "Turn your own two-step sign-in off from your account page (it asks for your password).",
    );
  }
  if (!member.totpEnabledAt && !member.totpPending) {
    throw new AppError("validation_failed", "This member has no two-step sign-in to reset.");
  }
  const now = ctx.now();
  await ctx.db.transaction(async (tx) => {
    await disableTotp(tx, vendorId, memberId, now);
    await deleteSessionsOfMember(tx, vendorId, memberId);
    await recordActivity(tx, { vendorId, action: "member.two_step_reset", subjectId: memberId, at: now });
  });
  return member;
}

/** Ends every session of the member but `keepSessionId` (all of them without one). */
async function endOtherSessions(
  tx: Executor,
  vendorId: string,
  memberId: string,
  keepSessionId: string | undefined,
): Promise<void> {
  if (keepSessionId) await deleteOtherSessionsOfMember(tx, vendorId, memberId, keepSessionId);
  else await deleteSessionsOfMember(tx, vendorId, memberId);
}

/** What the sign-in asks after the password: nothing, a code, or setting two-step sign-in up. */
export async function secondStepDue(
  ctx: ServiceContext,
  member: MemberRow,
): Promise<"code" | "setup" | null> {
  if (member.totpEnabledAt) return "code";
  return (await shopRequiresTwoStep(ctx.db, member.vendorId)) ? "setup" : null;
}
