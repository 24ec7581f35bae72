// Dashboard sessions as rows: a random 256-bit token for the cookie, only its SHA-256 hash stored,
// so a leaked table signs nobody in. The cookie side is in web/session.ts.
import type { Role } from "../../auth/member-policy.ts";
import type { ServiceContext } from "../../context.ts";
import { generateSecret, hashSecret } from "../../lib/crypto.ts";
import { newId } from "../../lib/ids.ts";
import {
  countSecondStepGuess,
  deleteSessionRow,
  findLiveSession,
  insertSession,
  setPendingSecret,
  takePendingSecret,
} from "./sessions.repository.ts";

export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/**
 * The person signed in: the one place the dashboard (and the activity log) reads who acts.
 * `name` is what to call them (their name, or their e-mail until they give one).
 */
export interface SessionMember {
  id: string;
  name: string;
  email: string;
  role: Role;
  /** The language the dashboard speaks to them: their own, else the shop's (BCP 47, or en-XA). */
  language: string;
}

export interface DashboardSession {
  vendorId: string;
  sessionId: string;
  member: SessionMember;
}

/** A sign-in whose password was right and whose second step (two-step sign-in, TOTP) is still due. */
export interface PendingSignIn extends DashboardSession {
  secondStep: "code" | "setup";
}

/** A pending sign-in lasts this long: the second step is typed within minutes. */
export const PENDING_SIGN_IN_TTL_MS = 10 * 60 * 1000;

/**
 * Codes one pending sign-in may try (TOTP or recovery), whatever addresses they come from; then
 * the password is asked again. Per sign-in, not per address: 12 addresses took 60 guesses at one.
 */
export const SECOND_STEP_GUESSES = 5;

/**
 * Reserves one guess at the pending sign-in's second step before the code is checked: how many
 * are left after this one, or undefined when they are spent (the sign-in is then void).
 */
export async function reserveSecondStepGuess(
  ctx: ServiceContext,
  pending: PendingSignIn,
): Promise<{ left: number } | undefined> {
  const count = await countSecondStepGuess(
    ctx.db,
    pending.vendorId,
    pending.sessionId,
    SECOND_STEP_GUESSES,
    ctx.now(),
  );
  return count === undefined ? undefined : { left: SECOND_STEP_GUESSES - count };
}

export async function createSession(
  ctx: ServiceContext,
  member: { id: string; vendorId: string },
  secondStep: "code" | "setup" | null = null,
): Promise<{ token: string; expiresAt: Date }> {
  const token = generateSecret("", 32);
  const now = ctx.now();
  const expiresAt = new Date(now.getTime() + (secondStep ? PENDING_SIGN_IN_TTL_MS : SESSION_TTL_MS));
  await insertSession(ctx.db, {
    secondStep,
    id: newId(),
    tokenHash: hashSecret(token),
    vendorId: member.vendorId,
    memberId: member.id,
    createdAt: now,
    expiresAt,
  });
  return { token, expiresAt };
}

/** The signed-in session of this cookie value; a sign-in still owing its second step is none. */
export async function findSession(ctx: ServiceContext, token: string): Promise<DashboardSession | undefined> {
  const found = await findAnySession(ctx, token);
  return found && found.secondStep === null ? found : undefined;
}

/** The sign-in of this cookie value that still owes its second step, or undefined. */
export async function findPendingSignIn(
  ctx: ServiceContext,
  token: string,
): Promise<PendingSignIn | undefined> {
  const found = await findAnySession(ctx, token);
  return found && found.secondStep !== null ? { ...found, secondStep: found.secondStep } : undefined;
}

async function findAnySession(
  ctx: ServiceContext,
  token: string,
): Promise<(DashboardSession & { secondStep: "code" | "setup" | null }) | undefined> {
  if (token.length === 0 || token.length > 100) return undefined;
  const row = await findLiveSession(ctx.db, hashSecret(token), ctx.now());
  if (!row) return undefined;
  return {
    vendorId: row.vendorId,
    sessionId: row.id,
    member: {
      id: row.memberId,
      name: row.name.trim() || row.email,
      email: row.email,
      role: row.role,
      language: row.language,
    },
    secondStep: row.secondStep,
  };
}

/** Ends the session this cookie value opens (sign-out, or a new sign-in in the same browser). */
export async function deleteSession(ctx: ServiceContext, token: string): Promise<void> {
  const session = await findAnySession(ctx, token);
  if (session) await deleteSessionRow(ctx.db, session.vendorId, session.sessionId);
}

/** Keeps a sealed one-time secret on the session's row until its next page takes it (web/session.ts). */
export async function keepSealedSecret(
  ctx: ServiceContext,
  session: DashboardSession,
  sealed: string,
): Promise<void> {
  await setPendingSecret(ctx.db, session.vendorId, session.sessionId, sealed);
}

/** The session's sealed one-time secret, once: of two readers only one gets it. */
export async function takeSealedSecret(
  ctx: ServiceContext,
  session: DashboardSession,
): Promise<string | undefined> {
  return takePendingSecret(ctx.db, session.vendorId, session.sessionId);
}
