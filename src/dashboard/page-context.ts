import type { FastifyReply, FastifyRequest } from "fastify";
import type { ServiceContext } from "../context.ts";
import { findVendorById } from "../modules/vendors/vendors.repository.ts";
import { allowOwnScripts, csrfToken } from "./browser-scope.ts";
import { takeFlash } from "./flash.ts";
import type { PageContext } from "./layout.ts";

/** The signed-in vendor's id; only on routes behind requireSession. */
export function vendorIdOf(request: FastifyRequest): string {
  const session = request.dashboardSession;
  if (!session) throw new Error(`${request.routeOptions.url} is a dashboard page without requireSession`);
  return session.vendorId;
}

/** What every dashboard page needs for its frame: the vendor's name, a CSRF token, the flash. */
export async function pageContext(
  ctx: ServiceContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<PageContext> {
  const vendor = await findVendorById(ctx.db, vendorIdOf(request));
  const flash = takeFlash(request, reply);
  // A secret shown once gets a copy button, the one script the dashboard has.
  if (flash?.secret) allowOwnScripts(reply);
  return { vendorName: vendor?.name ?? "Vendor", csrf: csrfToken(reply), flash };
}
