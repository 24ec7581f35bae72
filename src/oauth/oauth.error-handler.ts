// The token and revocation endpoints speak RFC 6749 5.2, not RFC 9457: a JSON object with
// `error` and `error_description`, status 400 (401 for invalid_client), never cached.
import type { FastifyError, FastifyInstance } from "fastify";
import { isDatabaseUnavailable } from "../db/unavailable.ts";
import { AppError } from "../errors.ts";
import { refuseUnavailable } from "../http/error-handler.ts";
import { InvalidClient, OAuthError } from "./oauth.errors.ts";

export function registerOAuthErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    let oauth: OAuthError;
    if (error instanceof OAuthError) {
      oauth = error;
    } else if (error instanceof AppError && error.code === "rate_limited") {
      // RFC 6749 5.2 has no code for this; 429 with Retry-After is what clients act on.
      oauth = new OAuthError("temporarily_unavailable", error.message, 429);
    } else if (error instanceof AppError && error.code === "unavailable") {
      // A full disk (http/disk-guard.ts): RFC 6749's temporarily_unavailable, with Retry-After.
      if (error.extra.headers) reply.headers(error.extra.headers);
      oauth = new OAuthError("temporarily_unavailable", error.message, 503);
    } else if (isDatabaseUnavailable(error)) {
      refuseUnavailable(request, reply, error, undefined);
      oauth = new OAuthError("temporarily_unavailable", "The service is temporarily unavailable", 503);
    } else if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      // A body that is not form-encoded, too large or unparsable (RFC 6749 3.2: form-encoded only).
      oauth = new OAuthError(
        "invalid_request",
        error.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE"
          ? "The body must be application/x-www-form-urlencoded"
          : "The request could not be read",
      );
    } else {
      request.log.error({ err: error }, "unhandled error at an OAuth endpoint");
      oauth = new OAuthError("server_error", "Internal server error", 500);
    }
    if (oauth instanceof InvalidClient && oauth.usedBasic) {
      reply.header("www-authenticate", 'Basic realm="vendor-api"');
    }
    return reply
      .code(oauth.status)
      .header("cache-control", "no-store")
      .header("pragma", "no-cache")
      .type("application/json")
      .send({ error: oauth.error, error_description: oauth.description });
  });
}
