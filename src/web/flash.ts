// One-shot messages after an action ("API key created"): set on the redirect, shown by the next
// page, then gone (Post/Redirect/Get). A signed cookie, so nobody can plant a message.
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Config } from "../config.ts";

export interface Flash {
  kind: "success" | "error";
  message: string;
  /**
   * A secret shown once (a new API key, client secret, webhook secret). Never in the cookie: it
   * waits sealed in the session (session.ts keepSecretForNextPage), and the cookie says only
   * `secretKept`, so the next page fetches it, once.
   */
  secret?: string;
  secretKept?: boolean;
}

export function setFlash(reply: FastifyReply, config: Config, flash: Flash): void {
  const { secret: _never, ...message } = flash;
  reply.setCookie(reply.request.pageCookies.flash, JSON.stringify(message), {
    path: "/",
    httpOnly: true,
    sameSite: "lax",
    secure: config.env === "production",
    signed: true,
    maxAge: 120,
  });
}

export function takeFlash(request: FastifyRequest, reply: FastifyReply): Flash | undefined {
  const raw = request.cookies[request.pageCookies.flash];
  if (!raw) return undefined;
  reply.clearCookie(request.pageCookies.flash, { path: "/" });
  const unsigned = request.unsignCookie(raw);
  if (!unsigned.valid || !unsigned.value) return undefined;
  try {
    const value = JSON.parse(unsigned.value) as Flash;
    return typeof value.message === "string" ? value : undefined;
  } catch {
    return undefined;
  }
}
