// One-shot messages after an action ("API key created"): set on the redirect, shown by the next
// page, then gone (Post/Redirect/Get). A signed cookie, so nobody can plant a message.
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Config } from "../config.ts";

const FLASH_COOKIE = "vendor_flash";

export interface Flash {
  kind: "success" | "error";
  message: string;
  /** A secret shown once (a new API key, client secret, webhook secret), never stored. */
  secret?: string;
}

export function setFlash(reply: FastifyReply, config: Config, flash: Flash): void {
  reply.setCookie(FLASH_COOKIE, JSON.stringify(flash), {
    path: "/",
    httpOnly: true,
    sameSite: "lax",
    secure: config.env === "production",
    signed: true,
    maxAge: 120,
  });
}

export function takeFlash(request: FastifyRequest, reply: FastifyReply): Flash | undefined {
  const raw = request.cookies[FLASH_COOKIE];
  if (!raw) return undefined;
  reply.clearCookie(FLASH_COOKIE, { path: "/" });
  const unsigned = request.unsignCookie(raw);
  if (!unsigned.valid || !unsigned.value) return undefined;
  try {
    const value = JSON.parse(unsigned.value) as Flash;
    return typeof value.message === "string" ? value : undefined;
  } catch {
    return undefined;
  }
}
