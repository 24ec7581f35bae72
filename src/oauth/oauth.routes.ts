// The OAuth endpoints a client calls directly: token (RFC 6749 3.2), revocation (RFC 7009) and
// metadata (RFC 8414). The authorization endpoint is a browser page: see authorize.routes.ts.
import formbody from "@fastify/formbody";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Config } from "../config.ts";
import type { ServiceContext } from "../context.ts";
import { declareApiTag } from "../http/api-tags.ts";
import { authFailuresBudget, countFailedAuthentication } from "../http/rate-limit.ts";
import { authenticateClientRequest } from "./client-auth.ts";
import { exchangeAuthorizationCode } from "./grants/authorization-code.ts";
import { exchangeRefreshToken } from "./grants/refresh-token.ts";
import { authorizationServerMetadata } from "./metadata.ts";
import { registerOAuthErrorHandler } from "./oauth.error-handler.ts";
import { InvalidClient, InvalidRequest, UnsupportedGrantType } from "./oauth.errors.ts";
import { asParams, type RawParams, single } from "./params.ts";
import { registerOAuthRequestGuards } from "./request-guards.ts";
import { revokeToken } from "./revocation.ts";

declare module "fastify" {
  interface FastifyRequest {
    /** When the request arrived (set first thing), to tell a concurrent refresh from a replay. */
    oauthReceivedAt: Date | null;
  }
}

const tags = declareApiTag("OAuth", "OAuth 2.0 authorization server (RFC 6749, 7009, 7636, 8414, 9207)");
const OAuthErrorBody = Type.Object(
  {
    error: Type.String({ description: "RFC 6749 5.2 error code, e.g. invalid_grant" }),
    error_description: Type.String({ description: "Human-readable explanation" }),
  },
  { description: "OAuth error (RFC 6749 5.2); not problem+json" },
);

const formField = (description: string) => Type.String({ description });
const ClientCredentials = {
  client_id: Type.Optional(formField("Client ID (app_…), unless sent by HTTP Basic")),
  client_secret: Type.Optional(formField("Client secret (client_secret_post), unless sent by HTTP Basic")),
};
const TokenForm = Type.Object(
  {
    grant_type: Type.Unsafe<string>({ type: "string", enum: ["authorization_code", "refresh_token"] }),
    code: Type.Optional(formField("authorization_code: the code from the redirect")),
    redirect_uri: Type.Optional(
      formField("authorization_code: the redirect URI of the authorization request"),
    ),
    code_verifier: Type.Optional(formField("authorization_code: the PKCE verifier (RFC 7636)")),
    refresh_token: Type.Optional(formField("refresh_token: the refresh token (vrt_…)")),
    scope: Type.Optional(formField("refresh_token: a narrower space-separated scope")),
    ...ClientCredentials,
  },
  { description: "Token request (RFC 6749 4.1.3, 6)" },
);
const RevokeForm = Type.Object(
  {
    token: formField("The access or refresh token to revoke"),
    token_type_hint: Type.Optional(
      Type.Unsafe<string>({ type: "string", enum: ["access_token", "refresh_token"] }),
    ),
    ...ClientCredentials,
  },
  { description: "Revocation request (RFC 7009 2.1)" },
);

export async function oauthRoutes(
  app: FastifyInstance,
  { ctx, config }: { ctx: ServiceContext; config: Config },
) {
  // Form bodies only, here and nowhere under /api/vendor (which answers them 415).
  app.removeAllContentTypeParsers();
  await app.register(formbody);
  registerOAuthErrorHandler(app);
  // The form schemas document the parameters; the grant and revocation pipelines check them in
  // the order and with the error codes RFC 6749 and 7009 prescribe, so no schema check runs first.
  app.setValidatorCompiler(() => () => true);
  app.decorateRequest("oauthReceivedAt", null);
  app.addHook("onRequest", async (request) => {
    request.oauthReceivedAt = ctx.now();
  });
  app.addHook("onSend", async (_request, reply) => {
    // RFC 6749 5.1: token answers are never cached.
    reply.header("cache-control", "no-store");
    reply.header("pragma", "no-cache");
    reply.header("x-content-type-options", "nosniff");
  });
  registerOAuthRequestGuards(app, app.rateLimitStore, {
    policy: "oauth",
    maxPerMinute: config.oauthRateLimitPerMinute,
  });
  // A failed client authentication counts against the address, as a failed API credential does
  // (one budget for both); a client that authenticates is never refused because of others.
  const failures = authFailuresBudget(config.authFailuresPerMinute);
  const authenticateClient = async (request: FastifyRequest, reply: FastifyReply, body: RawParams) => {
    try {
      return await authenticateClientRequest(ctx, request.headers.authorization, body);
    } catch (err) {
      if (err instanceof InvalidClient)
        await countFailedAuthentication(app.rateLimitStore, failures, request, reply);
      throw err;
    }
  };

  app.post(
    "/api/oauth/token",
    {
      schema: {
        tags,
        operationId: "oauthToken",
        summary: "Exchange an authorization code or a refresh token",
        description:
          "Form-encoded. Client authentication by HTTP Basic or client_id + client_secret in the body. " +
          "grant_type authorization_code (code, redirect_uri, code_verifier) or refresh_token (refresh_token, optional narrower scope). " +
          "Errors are RFC 6749 5.2 JSON; failed client authentication is 401 invalid_client.",
        consumes: ["application/x-www-form-urlencoded"],
        body: TokenForm,
        response: {
          200: Type.Object(
            {
              access_token: Type.String({ description: "Opaque bearer token (vat_…), valid for 1 hour" }),
              token_type: Type.Literal("Bearer"),
              expires_in: Type.Integer({ description: "Seconds until the access token expires: 3600" }),
              refresh_token: Type.String({
                description: "Opaque refresh token (vrt_…), valid 30 days, rotated on every use",
              }),
              scope: Type.String({ description: "Space-separated scopes of the access token" }),
            },
            { description: "Token response (RFC 6749 5.1)" },
          ),
          400: OAuthErrorBody,
          401: OAuthErrorBody,
        },
      },
    },
    async (request, reply) => {
      const receivedAt = request.oauthReceivedAt ?? ctx.now();
      const body = asParams(request.body);
      const client = await authenticateClient(request, reply, body);
      const grantType = single(body, "grant_type", (n) => new InvalidRequest(`${n} is given more than once`));
      if (grantType === undefined) throw new InvalidRequest("grant_type is required");
      if (grantType === "authorization_code") return exchangeAuthorizationCode(ctx, client, body);
      if (grantType === "refresh_token") return exchangeRefreshToken(ctx, client, body, receivedAt);
      throw new UnsupportedGrantType(`grant_type ${grantType} is not supported`);
    },
  );

  app.post(
    "/api/oauth/revoke",
    {
      schema: {
        tags,
        operationId: "oauthRevoke",
        summary: "Revoke an access or refresh token (RFC 7009)",
        description:
          "Form-encoded `token` (and optional `token_type_hint`) with client authentication. Always 200 with an empty body for " +
          "an authenticated client; revokes only tokens issued to that client. Revoking a refresh token revokes the grant's access tokens too.",
        consumes: ["application/x-www-form-urlencoded"],
        body: RevokeForm,
        response: { 200: Type.Null(), 400: OAuthErrorBody, 401: OAuthErrorBody },
      },
    },
    async (request, reply) => {
      const body = asParams(request.body);
      const client = await authenticateClient(request, reply, body);
      await revokeToken(ctx, client, body);
      return reply.code(200).send();
    },
  );

  const metadata = authorizationServerMetadata(config.publicUrl);
  app.get(
    "/.well-known/oauth-authorization-server",
    { schema: { tags, operationId: "oauthMetadata", summary: "Authorization server metadata (RFC 8414)" } },
    async () => metadata,
  );
}
