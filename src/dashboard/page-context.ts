import type { FastifyReply, FastifyRequest } from "fastify";
import type { ServiceContext } from "../context.ts";
import { DEFAULT_TIME_ZONE } from "../lib/time-zone.ts";
import type { DashboardSession, SessionMember } from "../modules/sessions/sessions.service.ts";
import { findShopSettings } from "../modules/vendors/shop-settings.ts";
import { allowOwnScripts, csrfToken } from "../web/browser-scope.ts";
import { takeFlash } from "../web/flash.ts";
import { readerOf } from "../web/reader.ts";
import { takeSecretKeptForPage } from "../web/session.ts";
import type { PageContext } from "./layout.ts";

function sessionOf(request: FastifyRequest): DashboardSession {
  const session = request.dashboardSession;
  if (!session) throw new Error(`${request.routeOptions.url} is a dashboard page without requireSession`);
  return session;
}

/** The signed-in vendor's id; only on routes behind requireSession. */
export function vendorIdOf(request: FastifyRequest): string {
  return sessionOf(request).vendorId;
}

/**
 * The person signed in (id, name, e-mail, role); only on routes behind requireSession. Whoever
 * records who did something (the activity log) reads it here.
 */
export function memberOf(request: FastifyRequest): SessionMember {
  return sessionOf(request).member;
}

/** The signed-in vendor's shop time zone: typed dates are read in it. */
export async function vendorTimeZone(ctx: ServiceContext, request: FastifyRequest): Promise<string> {
  const shop = await findShopSettings(ctx, vendorIdOf(request));
  return shop?.timeZone ?? DEFAULT_TIME_ZONE;
}

/** What every dashboard page needs for its frame: the vendor's name, a CSRF token, the flash. */
export async function pageContext(
  ctx: ServiceContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<PageContext> {
  const shop = await findShopSettings(ctx, vendorIdOf(request));
  const flash = takeFlash(request, reply);
  if (flash?.secretKept) {
    const secret = await takeSecretKeptForPage(ctx, request);
    if (secret) flash.secret = secret;
  }
  // A secret shown once gets a copy button, the one script the dashboard has.
  if (flash?.secret) allowOwnScripts(reply);
  const reader = readerOf(request);
  return {
    t: reader.t,
    productName: reader.productName,
    // Only a shop deleted during the session has no settings: the frame names it in the reader's words.
    vendorName: shop?.name ?? reader.t.t("dashboard.layout.yourShop"),
    csrf: csrfToken(reply),
    flash,
    timeZone: shop?.timeZone ?? DEFAULT_TIME_ZONE,
    member: memberOf(request),
  };
}
