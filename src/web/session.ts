// Dashboard sessions, shared by the sign-in page, the OAuth consent page and the dashboard.
// The cookie holds an opaque random id (256 bits); the table holds only its SHA-256 hash, so a
// leaked table signs nobody in. HttpOnly (no script reads it), SameSite=Lax (not sent on
// cross-site POSTs, still sent on the top-level GET that brings a vendor to /api/oauth/authorize),
// Secure in production. A new id is issued at every sign-in (no session fixation) and sign-out
// deletes the row, so a copied cookie dies with it.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Config } from "../config.ts";
import type { ServiceContext } from "../context.ts";
import {
  createSession,
  type DashboardSession,
  deleteSession,
  findPendingSignIn,
  findSession,
  keepSealedSecret,
  type PendingSignIn,
  takeSealedSecret,
} from "../modules/sessions/sessions.service.ts";

/** The session cookie's name outside production (`__Host-vendor_session` in production). */
export type { DashboardSession };
export const SESSION_COOKIE = "vendor_session";
// The HTTP side of sessions (the rows are in modules/sessions): these need @fastify/cookie,
// registered by registerBrowserScope.

function cookieOptions(config: Config) {
  return { path: "/", httpOnly: true, sameSite: "lax" as const, secure: config.env === "production" };
}

/** The signed-in vendor of this request, or undefined. */
export async function currentSession(
  ctx: ServiceContext,
  request: FastifyRequest,
): Promise<DashboardSession | undefined> {
  const token = request.cookies[request.pageCookies.session];
  return token ? findSession(ctx, token) : undefined;
}

/** Signs the member in: drops whatever session the browser had and issues a new id. */
export async function startSession(
  ctx: ServiceContext,
  config: Config,
  request: FastifyRequest,
  reply: FastifyReply,
  member: { id: string; vendorId: string },
  options: {
    /** The password was right; this second step (two-step sign-in) is still due. */
    secondStep?: "code" | "setup";
    /** A one-time secret for the new session's next page (recovery codes made at sign-in). */
    keepForNextPage?: string;
  } = {},
): Promise<void> {
  const previous = request.cookies[request.pageCookies.session];
  if (previous) await deleteSession(ctx, previous);
  const { token, expiresAt } = await createSession(ctx, member, options.secondStep ?? null);
  if (options.keepForNextPage !== undefined) {
    const session = await findSession(ctx, token);
    if (session) await keepSealedSecret(ctx, session, sealFor(token, options.keepForNextPage));
  }
  reply.setCookie(request.pageCookies.session, token, { ...cookieOptions(config), expires: expiresAt });
}

/** The sign-in of this request that still owes its second step, or undefined. */
export async function pendingSignIn(
  ctx: ServiceContext,
  request: FastifyRequest,
): Promise<PendingSignIn | undefined> {
  const token = request.cookies[request.pageCookies.session];
  return token ? findPendingSignIn(ctx, token) : undefined;
}

export async function endSession(
  ctx: ServiceContext,
  config: Config,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const token = request.cookies[request.pageCookies.session];
  if (token) await deleteSession(ctx, token);
  reply.clearCookie(request.pageCookies.session, cookieOptions(config));
}

// One-time secrets (shown once: CONTRACT 3, 6 and 7): a new API key, client secret or webhook
// secret must reach the next page (Post/Redirect/Get) without travelling in a cookie, which is
// written to the browser profile and sent back with every request. It waits in the session's row
// instead, sealed (AES-256-GCM) with a key derived from the session cookie's value: the table
// holds only that value's hash, so the row is unreadable at rest; only this browser's next page
// can open it, once.

function sealingKey(sessionToken: string): Buffer {
  return createHmac("sha256", sessionToken).update("vendor-api one-time secret").digest();
}

/** Keeps `secret` for this session's next page; false when the request has no live session. */
export async function keepSecretForNextPage(
  ctx: ServiceContext,
  request: FastifyRequest,
  secret: string,
): Promise<boolean> {
  const token = request.cookies[request.pageCookies.session];
  const session = token ? await findSession(ctx, token) : undefined;
  if (!token || !session) return false;
  await keepSealedSecret(ctx, session, sealFor(token, secret));
  return true;
}

function sealFor(sessionToken: string, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", sealingKey(sessionToken), iv);
  const sealed = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString("base64url");
}

/** The secret kept for this session, once; undefined when there is none (or it was taken). */
export async function takeSecretKeptForPage(
  ctx: ServiceContext,
  request: FastifyRequest,
): Promise<string | undefined> {
  const token = request.cookies[request.pageCookies.session];
  const session = token ? await findSession(ctx, token) : undefined;
  if (!token || !session) return undefined;
  const sealed = await takeSealedSecret(ctx, session);
  if (!sealed) return undefined;
  try {
    const raw = Buffer.from(sealed, "base64url");
    const decipher = createDecipheriv("aes-256-gcm", sealingKey(token), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
  } catch {
    return undefined;
  }
}
