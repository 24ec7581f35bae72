// What routes cannot state in their own schemas: the photo upload's multipart body, the OAuth
// endpoints' form bodies and RFC 6749 answers, HTML pages, and examples of unnamed bodies; each
// by operation id.
import { exampleIds } from "./examples.ts";
import { headerRef, type Json } from "./json.ts";
import { problemExample } from "./problems.ts";

export const formBodies: Record<string, Json> = {
  uploadOrderPhoto: {
    required: true,
    description:
      "multipart/form-data with one part named `file`: the photo, at most 15 MB (JPEG, PNG, WebP, HEIF, AVIF, GIF or TIFF, recognised from its bytes; the part's file name and type are not trusted).",
    content: {
      "multipart/form-data": {
        schema: {
          type: "object",
          required: ["file"],
          properties: { file: { type: "string", format: "binary", description: "The photo" } },
        },
        encoding: { file: { contentType: "image/*" } },
      },
    },
  },
  oauthToken: {
    required: true,
    description:
      "Form-encoded (RFC 6749 4.1.3 and 6). The client authenticates with HTTP Basic or client_id and client_secret here.",
    content: {
      "application/x-www-form-urlencoded": {
        schema: {
          type: "object",
          required: ["grant_type"],
          properties: {
            grant_type: { type: "string", enum: ["authorization_code", "refresh_token"] },
            code: { type: "string", description: "authorization_code: the code from the redirect" },
            redirect_uri: {
              type: "string",
              description: "authorization_code: the same redirect_uri as in the authorization request",
            },
            code_verifier: {
              type: "string",
              description: "authorization_code: the PKCE verifier (43-128 characters)",
            },
            refresh_token: {
              type: "string",
              description: "refresh_token: the current refresh token (vrt_…)",
            },
            scope: {
              type: "string",
              description: "refresh_token: optionally a narrower, space-separated set of scopes",
            },
            client_id: { type: "string" },
            client_secret: { type: "string" },
          },
        },
        example: {
          grant_type: "authorization_code",
          code: "vac_Q2x5b3J0aGVyZWZvcmVpdGlzdGhlY29kZQ",
          redirect_uri: "https://pos.bellabridal.example/oauth/callback",
          code_verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
          client_id: "app_5f2c8e1a9b3d7f0e4c6a",
          client_secret: "vcs_7Hk2pQ9rT4wX1zB6nM3vC8yL0aS5dF",
        },
      },
    },
  },
  oauthRevoke: {
    required: true,
    description: "Form-encoded (RFC 7009 2.1). The client authenticates as at the token endpoint.",
    content: {
      "application/x-www-form-urlencoded": {
        schema: {
          type: "object",
          required: ["token"],
          properties: {
            token: { type: "string", description: "An access token (vat_…) or refresh token (vrt_…)" },
            token_type_hint: { type: "string", enum: ["access_token", "refresh_token"] },
            client_id: { type: "string" },
            client_secret: { type: "string" },
          },
        },
        example: {
          token: "vrt_8Jd3kS9fL2mQ7wX4",
          token_type_hint: "refresh_token",
          client_id: "app_5f2c8e1a9b3d7f0e4c6a",
          client_secret: "vcs_7Hk2pQ9rT4wX1zB6nM3vC8yL0aS5dF",
        },
      },
    },
  },
};

/** Answers whose shape the route cannot state in its own schema (HTML pages, RFC 8414 metadata). */
const html = (description: string) => ({
  description,
  content: {
    "text/html": { schema: { type: "string" }, example: "<!doctype html><title>Authorize</title>" },
  },
});
export const responseOverrides: Record<string, Json> = {
  authorize: {
    "200": html("The consent page, where the signed-in vendor approves or denies the application"),
    "400": html(
      "An error page: unknown client, or a redirect URI that is not registered (no redirect is safe)",
    ),
  },
  oauthMetadata: {
    "200": {
      description: "Authorization server metadata (RFC 8414)",
      content: {
        "application/json": {
          schema: {
            type: "object",
            required: ["issuer", "authorization_endpoint", "token_endpoint"],
            properties: {
              issuer: { type: "string" },
              authorization_endpoint: { type: "string" },
              token_endpoint: { type: "string" },
              revocation_endpoint: { type: "string" },
              scopes_supported: { type: "array", items: { type: "string" } },
              response_types_supported: { type: "array", items: { type: "string" } },
              grant_types_supported: { type: "array", items: { type: "string" } },
              code_challenge_methods_supported: { type: "array", items: { type: "string" } },
            },
            additionalProperties: true,
          },
          example: {
            issuer: "https://api.vendor-api.example",
            authorization_endpoint: "https://api.vendor-api.example/api/oauth/authorize",
            token_endpoint: "https://api.vendor-api.example/api/oauth/token",
            revocation_endpoint: "https://api.vendor-api.example/api/oauth/revoke",
            scopes_supported: ["orders:read", "orders:write"],
            response_types_supported: ["code"],
            grant_types_supported: ["authorization_code", "refresh_token"],
            code_challenge_methods_supported: ["S256"],
          },
        },
      },
    },
  },
};

const oauthError = (error: string, description: string) => ({ error, error_description: description });

const oauthErrorSchema: Json = {
  description: "OAuth error (RFC 6749 5.2); not problem+json",
  type: "object",
  required: ["error", "error_description"],
  properties: {
    error: { type: "string", description: "RFC 6749 5.2 error code" },
    error_description: { type: "string", description: "Human-readable explanation" },
  },
};

/**
 * What every OAuth protocol endpoint can answer besides its own errors (oauth.error-handler.ts,
 * request-guards.ts): its per-address budget spent (429), the database unreachable or the disk
 * full (503), a bug (500). RFC 6749 5.2 JSON, except on the authorization endpoint, a browser
 * page, which answers HTML pages.
 */
export function oauthProtocolErrors(operationId: string): Json {
  const page = operationId === "authorize";
  const answer = (description: string, error: string, text: string, retry: boolean): Json => ({
    description,
    headers: {
      "X-Request-Id": headerRef("X-Request-Id"),
      ...(retry ? { "Retry-After": headerRef("Retry-After") } : {}),
    },
    content: page
      ? { "text/html": { schema: { type: "string" }, example: `<!doctype html><title>${text}</title>` } }
      : { "application/json": { schema: oauthErrorSchema, example: oauthError(error, text) } },
  });
  return {
    "429": answer(
      "Too many requests from this client address (`temporarily_unavailable`); retry after Retry-After seconds",
      "temporarily_unavailable",
      "Too many requests from this address; retry later",
      true,
    ),
    "500": answer(
      "A bug (`server_error`); logged with the request id",
      "server_error",
      "Internal server error",
      false,
    ),
    "503": answer(
      "The service is temporarily unavailable (`temporarily_unavailable`); retry after Retry-After seconds",
      "temporarily_unavailable",
      "The service is temporarily unavailable",
      true,
    ),
  };
}

/** Examples of bodies that are not named schemas, by operation and status ("req": the request). */
export const operationExamples: Record<string, unknown> = {
  "getHealth 200": { status: "ok" },
  "getReady 200": { status: "ok" },
  "getReady 503": problemExample("unavailable"),
  "testWebhook req": {},
  "testWebhook 202": { eventId: exampleIds.event },
  "redeliverWebhookDelivery req": {},
  "redeliverWebhookDelivery 202": { deliveryId: exampleIds.delivery, eventId: exampleIds.event },
  "oauthToken 200": {
    access_token: "vat_3Yq8Zr1Lm6Tx0Wb4Nc7Vd2Kp9Hs5Gf",
    token_type: "Bearer",
    expires_in: 3600,
    refresh_token: "vrt_8Jd3kS9fL2mQ7wX4aB6cE1gH5iK0nP",
    scope: "orders:read orders:write appointments:read",
  },
  "oauthToken 400": oauthError("invalid_grant", "The authorization code is invalid, expired or already used"),
  "oauthToken 401": oauthError("invalid_client", "Client authentication failed"),
  "oauthRevoke 400": oauthError("invalid_request", "token is required"),
  "oauthRevoke 401": oauthError("invalid_client", "Client authentication failed"),
};
