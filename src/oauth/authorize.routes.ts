// The authorization endpoint (RFC 6749 4.1.1-4.1.2, CONTRACT 6) and its consent form. Runs in a
// browser scope (cookies, CSRF, page headers, HTML errors). The GET validates the request and,
// for a signed-in vendor, shows the consent page; the consent form POSTs the same parameters
// back, which are validated again (nothing is trusted from the page) before a code is issued.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { runAsActor } from "../auth/actor.ts";
import { may } from "../auth/member-policy.ts";
import type { Config } from "../config.ts";
import type { ServiceContext } from "../context.ts";
import { mayAuthorize } from "../modules/applications/applications.service.ts";
import { alreadyGranted } from "../modules/connections/connections.service.ts";
import type { DashboardSession } from "../modules/sessions/sessions.service.ts";
import { findVendor } from "../modules/use-cases/vendor-accounts.service.ts";
import { csrfToken, sendPage } from "../web/browser-scope.ts";
import { errorPage } from "../web/html.ts";
import { type Reader, translatorFor } from "../web/reader.ts";
import { currentSession } from "../web/session.ts";
import {
  AUTHORIZATION_PARAMS,
  AuthorizationErrorRedirect,
  type AuthorizationRequest,
  checkAuthorizationRequest,
  redirectWith,
} from "./authorize/index.ts";
import { createAuthorizationCode } from "./codes.ts";
import { consentPage } from "./consent.page.ts";
import { AccessDenied, type OAuthError, UnauthorizedClient } from "./oauth.errors.ts";
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

// Documentation only: the parameters carry no types, so validation never answers here; every
// check happens in the pipeline, which must redirect (or show the HTML error page) as CONTRACT 6 says.
const authorizeDocs = {
  tags: ["OAuth"],
  operationId: "authorize",
  summary: "Start authorization (RFC 6749 4.1.1, PKCE RFC 7636)",
  description:
    "Browser endpoint. Sends a vendor who is not signed in to /login and back, then shows the consent page. " +
    "Allow redirects to redirect_uri with code, state and iss (RFC 9207); errors redirect with error, " +
    "error_description, state and iss, except an unknown client_id or a redirect_uri that is not exactly " +
    "registered, which answer an HTML 400 page and never redirect.",
  querystring: {
    type: "object",
    properties: {
      response_type: { description: "Must be `code`" },
      client_id: { description: "The application's client ID (app_…)" },
      redirect_uri: { description: "Exactly one of the application's registered redirect URIs" },
      scope: { description: "Space-separated scopes" },
      state: { description: "Opaque value returned with the code (CSRF protection)" },
      code_challenge: { description: "base64url(SHA-256(code_verifier)), 43 characters" },
      code_challenge_method: { description: "Must be `S256`" },
    },
  },
  response: {
    302: {
      description: "Redirect to the sign-in page, or back to redirect_uri with a code or an error",
      type: "null",
    },
    303: { description: "Redirect after the consent form", type: "null" },
    200: { description: "The consent page (HTML)", type: "string" },
    400: { description: "HTML error page: unknown client or redirect URI not registered", type: "string" },
  },
};

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

  /** The error sent back to the client's redirect URI. */
  function refuse(reply: FastifyReply, status: number, authz: AuthorizationRequest, reason: OAuthError) {
    const location = redirectWith(authz.redirectUri, issuer, {
      error: reason.error,
      error_description: reason.description,
      state: authz.state,
    });
    return reply.code(status).header("location", location).send();
  }

  // Only an owner gives an application access to the shop (CONTRACT 10, src/auth/member-policy.ts):
  // a staff member is told so, and the application hears nothing (no redirect, no code).
  const ownersOnly = (reply: FastifyReply, reader: Reader) =>
    sendPage(
      reply,
      403,
      errorPage(reader.t.t("errors.ownersOnly.title"), reader.t.t("oauth.consent.ownersOnly"), reader),
    );

  /** The signed-in member reads the consent page in their own language, else the shop's. */
  const readerFor = (request: FastifyRequest, session: DashboardSession): Reader => ({
    t: translatorFor(request, session.member.language).t,
    productName: request.readerSettings.productName,
  });

  const privateApplication = () =>
    new UnauthorizedClient("This application is private to the shop that registered it");

  app.get(PATH, { schema: authorizeDocs }, async (request, reply) => {
    const params = asParams(request.query);
    const authz = await validate(params, reply, 302);
    if (!authz) return reply;
    const session = await currentSession(ctx, request);
    if (!session) return reply.code(302).header("location", signInRedirect(params)).send();
    if (!may(session.member.role, "oauth-consent")) return ownersOnly(reply, readerFor(request, session));
    if (!mayAuthorize(authz.application, session.vendorId)) {
      return refuse(reply, 302, authz, privateApplication());
    }
    // Consent remembered: scopes the vendor already granted this application are not asked again.
    if (await alreadyGranted(ctx, session.vendorId, authz.application.id, authz.scopes)) {
      const code = await createAuthorizationCode(ctx, session.vendorId, authz);
      return reply
        .code(302)
        .header("location", redirectWith(authz.redirectUri, issuer, { code, state: authz.state }))
        .send();
    }
    const [vendor, publisher] = await Promise.all([
      findVendor(ctx, session.vendorId),
      findVendor(ctx, authz.application.vendorId),
    ]);
    return sendPage(
      reply,
      200,
      consentPage({
        request: authz,
        params: carried(params),
        vendorName: vendor?.name ?? "",
        publisherName: publisher?.name ?? "",
        csrf: csrfToken(reply),
        reader: readerFor(request, session),
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
    if (!may(session.member.role, "oauth-consent")) return ownersOnly(reply, readerFor(request, session));
    if (!mayAuthorize(authz.application, session.vendorId)) {
      return refuse(reply, 303, authz, privateApplication());
    }
    if (body.decision !== "allow") return refuse(reply, 303, authz, new AccessDenied());
    // The person who consented is who the activity log names (auth/actor.ts).
    const code = await runAsActor({ kind: "person", id: session.member.id }, () =>
      createAuthorizationCode(ctx, session.vendorId, authz, { consented: true }),
    );
    return reply
      .code(303)
      .header("location", redirectWith(authz.redirectUri, issuer, { code, state: authz.state }))
      .send();
  });
}
