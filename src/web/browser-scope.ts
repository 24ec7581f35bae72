// What every server-rendered page needs, set up once per encapsulated scope: cookies, form
// bodies (only here and at the OAuth endpoints; /api/vendor keeps refusing them with 415), CSRF
// tokens, the anti-framing and no-referrer headers, and HTML error pages. The sign-in, consent
// and (later) dashboard pages all register inside such a scope.
import { randomBytes } from "node:crypto";
import cookie from "@fastify/cookie";
import csrf from "@fastify/csrf-protection";
import formbody from "@fastify/formbody";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Config } from "../config.ts";
import { isDatabaseUnavailable } from "../db/unavailable.ts";
import { AppError } from "../errors.ts";
import { refuseUnavailable } from "../http/error-handler.ts";
import { hashSecret } from "../lib/crypto.ts";
import { errorPage, html, type SafeHtml } from "./html.ts";
import { PageError } from "./page-error.ts";
import { type Reader, readerOf, readerSettings } from "./reader.ts";

export const CSRF_FIELD = "_csrf";

/** The hidden field that carries the CSRF token in every POST form. */
export function csrfField(csrf: string): SafeHtml {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${csrf}">`;
}
/**
 * The browser scope's cookie names. In production they carry the `__Host-` prefix (RFC 6265bis
 * 4.1.3.2): browsers then accept them only with Secure, Path=/ and no Domain, so a sibling
 * subdomain cannot plant or overwrite them (cookie tossing).
 */
export interface PageCookieNames {
  session: string;
  csrf: string;
  flash: string;
}

export function pageCookieNames(config: Config): PageCookieNames {
  const prefix = config.env === "production" ? "__Host-" : "";
  return { session: `${prefix}vendor_session`, csrf: `${prefix}vendor_csrf`, flash: `${prefix}vendor_flash` };
}

declare module "fastify" {
  interface FastifyRequest {
    /** The cookie names of this deployment (set on every request of a browser scope). */
    pageCookies: PageCookieNames;
  }
}

/**
 * What a CSRF token is bound to: the session cookie's value (hashed), or "anonymous" before
 * sign-in. A CSRF secret cookie alone (which anyone can mint with GET /login and might plant in
 * a victim's browser) then forges nothing: the token also needs the victim's session value.
 */
function csrfBinding(request: FastifyRequest): string {
  const session = request.cookies[request.pageCookies.session];
  return session ? `session:${hashSecret(session)}` : "anonymous";
}

/**
 * The second line of CSRF defence: a state-changing request must come from our own pages.
 * `Sec-Fetch-Site` (sent by every current browser) must be same-origin or none (typed, bookmark);
 * an `Origin` header must be our public origin or the origin the request was addressed to.
 * Clients that send neither (old browsers, scripts) still need the session-bound token.
 */
function crossSiteReason(request: FastifyRequest, publicOrigin: string): string | undefined {
  const site = request.headers["sec-fetch-site"];
  if (typeof site === "string" && site !== "same-origin" && site !== "none") return `Sec-Fetch-Site ${site}`;
  // A browser that says same-origin is believed (pages cannot set Sec-Fetch-* headers): with our
  // Referrer-Policy no-referrer, Chromium sends `Origin: null` on same-origin form posts, which
  // the Origin check below would refuse, so no sign-in or form would work in Chromium.
  if (site === "same-origin") return undefined;
  const origin = request.headers.origin;
  if (origin === undefined) return undefined;
  if (origin === publicOrigin || origin === `${request.protocol}://${request.host}`) return undefined;
  return "Origin";
}

/**
 * CONTRACT 6 page headers: no framing (clickjacking of the consent buttons, RFC 9700 4.16),
 * no Referer leaking codes or state to other sites, no caching of pages that carry CSRF tokens.
 * No form-action directive: browsers apply it to the redirect that follows a consent POST, and
 * that redirect goes to the client's own origin.
 */
export const PAGE_HEADERS = {
  "content-security-policy":
    "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' https: http:; frame-ancestors 'none'; base-uri 'none'",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "cache-control": "no-store",
} as const;

const withOwnScripts = new WeakSet<FastifyReply>();
const withOwnFetch = new WeakSet<FastifyReply>();

/**
 * Lets this one page load scripts from our own origin (`script-src 'self'`): the pages that show a
 * secret once, for its copy button, and New order, for its customer picker, which alone may also
 * fetch from our origin (`fetch`: `connect-src 'self'`). Every other page runs no script at all.
 */
export function allowOwnScripts(reply: FastifyReply, options: { fetch?: boolean } = {}): void {
  withOwnScripts.add(reply);
  if (options.fetch) withOwnFetch.add(reply);
}

export async function registerBrowserScope(app: FastifyInstance, config: Config): Promise<void> {
  // Signs the CSRF secret cookie; without SESSION_SECRET (development only, config enforces it in
  // production) a per-process key is used, which only means pages do not survive a restart.
  await app.register(cookie, { secret: config.sessionSecret ?? randomBytes(32).toString("hex") });
  app.removeAllContentTypeParsers();
  await app.register(formbody, { bodyLimit: 64 * 1024 });
  const names = pageCookieNames(config);
  app.decorateRequest("pageCookies", null as unknown as PageCookieNames);
  app.decorateRequest("readerSettings", null as unknown as ReturnType<typeof readerSettings>);
  const settings = readerSettings(config);
  app.addHook("onRequest", async (request) => {
    request.pageCookies = names;
    request.readerSettings = settings;
  });
  const publicOrigin = new URL(config.publicUrl).origin;
  app.addHook("onRequest", async (request) => {
    if (request.method === "GET" || request.method === "HEAD") return;
    const reason = crossSiteReason(request, publicOrigin);
    if (reason) throw new CrossSiteRequest(reason);
  });
  await app.register(csrf, {
    cookieKey: names.csrf,
    getUserInfo: csrfBinding,
    csrfOpts: { hmacKey: config.sessionSecret ?? randomBytes(32).toString("hex") },
    cookieOpts: {
      path: "/",
      httpOnly: true,
      sameSite: "lax",
      secure: config.env === "production",
      signed: true,
    },
    getToken: (request) => {
      const body = request.body as Record<string, unknown> | undefined;
      const token = body?.[CSRF_FIELD];
      return typeof token === "string" ? token : undefined;
    },
  });
  app.addHook("onSend", async (_request, reply) => {
    reply.headers(PAGE_HEADERS);
    if (withOwnScripts.has(reply)) {
      reply.header(
        "content-security-policy",
        `${PAGE_HEADERS["content-security-policy"]}; script-src 'self'${withOwnFetch.has(reply) ? "; connect-src 'self'" : ""}`,
      );
    }
  });
  app.setErrorHandler((error: FastifyError, request, reply) => {
    // In the reader's language: the member's once signed in, else the browser's.
    const reader = readerOf(request);
    const { t } = reader;
    const page = (status: number, title: string, message: string) =>
      sendPage(reply, status, errorPage(title, message, reader));
    // Errors that carry their own page (e.g. OAuth's untrusted redirect, which must never redirect).
    if (error instanceof PageError) {
      return error.translated
        ? page(error.status, t.t(error.title), t.t(error.description))
        : page(error.status, error.title, error.description);
    }
    // Domain errors from services (another vendor's or an unknown id, a cursor that does not
    // decode, a rate limit) become pages with their own status, for every page in this scope. The
    // service's own message is English for developers: the page says it in the reader's words.
    if (error instanceof AppError && error.status < 500) {
      if (error.extra.headers) reply.headers(error.extra.headers);
      if (error.status === 404) return page(404, t.t("errors.notFound.title"), t.t("errors.notFound.text"));
      if (error.status === 429) return page(429, t.t("errors.tooMany.title"), t.t("errors.tooMany.text"));
      return page(error.status, t.t("errors.badRequest.title"), badRequestText(error, t));
    }
    if (error.code?.startsWith("FST_CSRF") || error instanceof CrossSiteRequest) {
      return page(403, t.t("errors.formExpired.title"), t.t("errors.formExpired.text"));
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return page(error.statusCode, t.t("errors.badRequest.title"), t.t("errors.badRequest.text"));
    }
    // The database down or restarting: 503 with Retry-After, as the API answers (CONTRACT 9).
    if (error instanceof AppError && error.code === "unavailable") {
      if (error.extra.headers) reply.headers(error.extra.headers);
      return page(503, t.t("errors.unavailable.title"), t.t("errors.unavailable.text"));
    }
    if (isDatabaseUnavailable(error)) {
      refuseUnavailable(request, reply, error, undefined);
      return page(503, t.t("errors.unavailable.title"), t.t("errors.unavailable.database"));
    }
    request.log.error({ err: error }, "unhandled error on a page");
    return page(500, t.t("errors.failed.title"), t.t("errors.failed.text", { reference: request.id }));
  });
}

export function sendPage(reply: FastifyReply, status: number, page: string): FastifyReply {
  return reply.code(status).type("text/html; charset=utf-8").send(page);
}

/**
 * Drops the CSRF secret so the next page issues a new one: called at sign-in, so a secret known
 * before it (e.g. planted in the browser) is worthless afterwards, like the session id.
 */
export function rotateCsrfSecret(reply: FastifyReply, config: Config): void {
  reply.clearCookie(reply.request.pageCookies.csrf, {
    path: "/",
    httpOnly: true,
    sameSite: "lax",
    secure: config.env === "production",
  });
}

/** The CSRF token for a form on this page (sets the secret cookie on first use). */
export function csrfToken(reply: FastifyReply): string {
  return reply.generateCsrf({ userInfo: csrfBinding(reply.request) });
}

class CrossSiteRequest extends Error {
  constructor(reason: string) {
    super(`cross-site request refused (${reason})`);
    this.name = "CrossSiteRequest";
  }
}

/**
 * What a refused form says: the field it names and, for a cause a person can act on, the cause,
 * in the reader's words (the error's own message is English, for developers).
 */
function badRequestText(error: AppError, t: Reader["t"]): string {
  const errors = error.extra.errors as { field?: string; message?: string }[] | undefined;
  const first = errors?.[0];
  if (!first?.field) return t.t("errors.badRequest.text");
  if (first.message?.includes("NUL character")) return t.t("errors.badRequest.nul", { field: first.field });
  return t.t("errors.badRequest.field", { field: first.field });
}
