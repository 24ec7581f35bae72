// The authorization endpoint (RFC 6749 4.1.1-4.1.2, CONTRACT 6) and its consent form. Runs in a
// browser scope (cookies, CSRF, page headers, HTML errors). The GET validates the request and,
// for a signed-in vendor, shows the consent page; the consent form POSTs the same parameters
// back, which are validated again (nothing is trusted from the page) before a code is issued.
import type { FastifyInstance, FastifyReply } from "fastify";
import type { Config } from "../config.ts";
import type { ServiceContext } from "../context.ts";
import { csrfToken, sendPage } from "../dashboard/browser-scope.ts";
import { currentSession } from "../dashboard/session.ts";
import { findVendor } from "../modules/vendors/vendors.service.ts";
import {
  AUTHORIZATION_PARAMS,
  AuthorizationErrorRedirect,
  type AuthorizationRequest,
  checkAuthorizationRequest,
  redirectWith,
} from "./authorize/index.ts";
import { createAuthorizationCode } from "./codes.ts";
import { consentPage } from "./consent.page.ts";
import { AccessDenied } from "./oauth.errors.ts";
import { asParams, type RawParams } from "./params.ts";

const PATH = "/api/oauth/authorize";

/** Only the authorization parameters, as single strings (the checks refused repeats already). */
function carried(params: RawParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of AUTHORIZATION_PARAMS) {
    const value = params[name];
    if (typeof value === "string") out[name] = value;
  }
  return out;
}

function signInRedirect(params: RawParams): string {
  const returnTo = `${PATH}?${new URLSearchParams(carried(params)).toString()}`;
  return `/login?${new URLSearchParams({ return_to: returnTo }).toString()}`;
}

export async function authorizeRoutes(
  app: FastifyInstance,
  { ctx, config }: { ctx: ServiceContext; config: Config },
) {
  const issuer = config.publicUrl;

  /** Validates, or answers with the error redirect; untrusted clients fall to the HTML page. */
  async function validate(
    params: RawParams,
    reply: FastifyReply,
    status: number,
  ): Promise<AuthorizationRequest | undefined> {
    try {
      return await checkAuthorizationRequest(ctx, params);
    } catch (err) {
      if (!(err instanceof AuthorizationErrorRedirect)) throw err;
      const location = redirectWith(err.redirectUri, issuer, {
        error: err.reason.error,
        error_description: err.reason.description,
        state: err.state,
      });
      reply.code(status).header("location", location).send();
      return undefined;
    }
  }

  app.get(PATH, { schema: { hide: true } }, async (request, reply) => {
    const params = asParams(request.query);
    const authz = await validate(params, reply, 302);
    if (!authz) return reply;
    const session = await currentSession(ctx, request);
    if (!session) return reply.code(302).header("location", signInRedirect(params)).send();
    const vendor = await findVendor(ctx, session.vendorId);
    return sendPage(
      reply,
      200,
      consentPage({
        request: authz,
        params: carried(params),
        vendorName: vendor?.name ?? "",
        csrf: csrfToken(reply),
      }),
    );
  });

  app.post(PATH, { schema: { hide: true }, preHandler: app.csrfProtection }, async (request, reply) => {
    const body = asParams(request.body);
    const params: RawParams = {};
    for (const name of AUTHORIZATION_PARAMS) if (Object.hasOwn(body, name)) params[name] = body[name];
    const authz = await validate(params, reply, 303);
    if (!authz) return reply;
    const session = await currentSession(ctx, request);
    if (!session) return reply.code(303).header("location", signInRedirect(params)).send();

    if (body.decision !== "allow") {
      const denied = new AccessDenied();
      const location = redirectWith(authz.redirectUri, issuer, {
        error: denied.error,
        error_description: denied.description,
        state: authz.state,
      });
      return reply.code(303).header("location", location).send();
    }
    const code = await createAuthorizationCode(ctx, session.vendorId, authz);
    return reply
      .code(303)
      .header("location", redirectWith(authz.redirectUri, issuer, { code, state: authz.state }))
      .send();
  });
}
