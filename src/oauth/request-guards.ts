// What the OAuth endpoints check before any parameter reaches a query (CONTRACT 2, 6 and 8):
// - every request counts against its client address ("oauth" budget) before the body is read.
//   Not against the client_id it names: a client_id is public, and ~300 wrong secrets a minute
//   naming it closed a client's endpoints for everyone. Failed client authentications count per
//   address instead (oauth.routes.ts), and a 256-bit secret is not guessed anyway;
// - a U+0000 anywhere, or a value longer than any legitimate one, is refused as invalid_request
//   (PostgreSQL text cannot hold NUL: it would surface as a 500 and log the statement).
import type { FastifyInstance } from "fastify";
import { type RateLimitStore, registerAddressRateLimit } from "../http/rate-limit.ts";
import { findNul } from "../http/reject-nul.ts";
import { PageError } from "../web/page-error.ts";
import { InvalidRequest } from "./oauth.errors.ts";
import { asParams } from "./params.ts";

/** Longer than any value we issue or accept (redirect URIs are at most 2048, state is opaque). */
export const MAX_PARAM_LENGTH = 8192;

/**
 * Parameters with no length bound: revocation answers 200 for any `token` (RFC 7009 2.2), an
 * over-long one included; it is only hashed, never compared or stored, and the body limit bounds it.
 */
const UNBOUNDED_PARAMS = new Set(["token"]);

/** The first parameter that holds NUL or is over-long, as an OAuth invalid_request. */
export function checkParamValues(params: unknown): InvalidRequest | undefined {
  const nul = findNul(params);
  if (nul !== undefined) return new InvalidRequest(`${nul} must not contain the NUL character`);
  for (const [name, value] of Object.entries(asParams(params))) {
    if (UNBOUNDED_PARAMS.has(name)) continue;
    for (const one of [value ?? ""].flat()) {
      if (one.length > MAX_PARAM_LENGTH) {
        return new InvalidRequest(`${name} must be at most ${MAX_PARAM_LENGTH} characters`);
      }
    }
  }
  return undefined;
}

export function registerOAuthRequestGuards(
  scope: FastifyInstance,
  store: RateLimitStore,
  options: { policy: string; maxPerMinute: number; asPage?: boolean },
): void {
  registerAddressRateLimit(scope, store, options);
  scope.addHook("preHandler", async (request) => {
    const problem = checkParamValues(request.query) ?? checkParamValues(request.body);
    // On the authorize page the client is not trusted yet: an error page, never a redirect.
    if (problem)
      throw options.asPage
        ? new PageError(400, "Invalid authorization request", problem.description)
        : problem;
  });
}
