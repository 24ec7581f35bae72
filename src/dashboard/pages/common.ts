// Small pieces shared by the data pages (orders, customers, appointments, inquiries, tracking).
import type { FastifyReply } from "fastify";
import type { Config } from "../../config.ts";
import { AppError } from "../../errors.ts";
import { setFlash } from "../../web/flash.ts";
import { html, type SafeHtml } from "../../web/html.ts";

/** "IN_PRODUCTION" → "In production": statuses and types as people read them. */
export function humanize(code: string): string {
  const words = code.toLowerCase().replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A status badge; the raw code stays in data-status for tests and styling. */
export function statusBadge(status: string): SafeHtml {
  return html`<span class="badge status" data-status="${status}">${humanize(status)}</span>`;
}

/** Shows an image link only for http(s) URLs: the API accepts no other scheme, this is belt and braces. */
export function isWebUrl(url: string | null | undefined): url is string {
  return typeof url === "string" && /^https?:\/\//i.test(url);
}

/**
 * After a refused action (invalid transition, validation error): an error flash and 303 back to the
 * page, never a 500. Errors that are not the user's (not 4xx, or 404 which has its own page) rethrow.
 */
export function refusedAction(
  reply: FastifyReply,
  config: Config,
  error: unknown,
  back: string,
): FastifyReply {
  if (error instanceof AppError && error.status >= 400 && error.status < 500 && error.status !== 404) {
    setFlash(reply, config, { kind: "error", message: error.message });
    return reply.code(303).header("location", back).send();
  }
  throw error;
}

export function succeeded(reply: FastifyReply, config: Config, message: string, to: string): FastifyReply {
  setFlash(reply, config, { kind: "success", message });
  return reply.code(303).header("location", to).send();
}
