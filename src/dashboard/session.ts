// Dashboard sessions, shared by the sign-in page, the OAuth consent page and the dashboard.
// The cookie holds an opaque random id (256 bits); the table holds only its SHA-256 hash, so a
// leaked table signs nobody in. HttpOnly (no script reads it), SameSite=Lax (not sent on
// cross-site POSTs, still sent on the top-level GET that brings a vendor to /api/oauth/authorize),
// Secure in production. A new id is issued at every sign-in (no session fixation) and sign-out
// deletes the row, so a copied cookie dies with it.
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Config } from "../config.ts";
import type { ServiceContext } from "../context.ts";
import { generateSecret, hashSecret } from "../lib/crypto.ts";
import { newId } from "../lib/ids.ts";
import { deleteSessionByHash, findLiveSession, insertSession } from "./session.repository.ts";

export const SESSION_COOKIE = "vendor_session";
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

export interface DashboardSession {
  vendorId: string;
  sessionId: string;
}

export async function createSession(
  ctx: ServiceContext,
  vendorId: string,
): Promise<{ token: string; expiresAt: Date }> {
  const token = generateSecret("", 32);
  const now = ctx.now();
  const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
  await insertSession(ctx.db, {
    id: newId(),
    tokenHash: hashSecret(token),
    vendorId,
    createdAt: now,
    expiresAt,
  });
  return { token, expiresAt };
}

export async function findSession(ctx: ServiceContext, token: string): Promise<DashboardSession | undefined> {
  if (token.length === 0 || token.length > 100) return undefined;
  const row = await findLiveSession(ctx.db, hashSecret(token), ctx.now());
  return row ? { vendorId: row.vendorId, sessionId: row.id } : undefined;
}

export async function deleteSession(ctx: ServiceContext, token: string): Promise<void> {
  if (token.length > 0 && token.length <= 100) await deleteSessionByHash(ctx.db, hashSecret(token));
}

// HTTP side: these need @fastify/cookie, registered by registerBrowserScope.

function cookieOptions(config: Config) {
  return { path: "/", httpOnly: true, sameSite: "lax" as const, secure: config.env === "production" };
}

/** The signed-in vendor of this request, or undefined. */
export async function currentSession(
  ctx: ServiceContext,
  request: FastifyRequest,
): Promise<DashboardSession | undefined> {
  const token = request.cookies[SESSION_COOKIE];
  return token ? findSession(ctx, token) : undefined;
}

/** Signs the vendor in: drops whatever session the browser had and issues a new id. */
export async function startSession(
  ctx: ServiceContext,
  config: Config,
  request: FastifyRequest,
  reply: FastifyReply,
  vendorId: string,
): Promise<void> {
  const previous = request.cookies[SESSION_COOKIE];
  if (previous) await deleteSession(ctx, previous);
  const { token, expiresAt } = await createSession(ctx, vendorId);
  reply.setCookie(SESSION_COOKIE, token, { ...cookieOptions(config), expires: expiresAt });
}

export async function endSession(
  ctx: ServiceContext,
  config: Config,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const token = request.cookies[SESSION_COOKIE];
  if (token) await deleteSession(ctx, token);
  reply.clearCookie(SESSION_COOKIE, cookieOptions(config));
}
