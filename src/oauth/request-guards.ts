// What the OAuth endpoints check before any parameter reaches a query (CONTRACT 2, 6 and 8):
// - every request counts against its client address ("oauth" budget) before the body is read,
//   and, once the body or Basic header names a client, against that client_id ("oauth-client"),
//   so neither a single address nor a botnet aiming at one client can guess freely;
// - a U+0000 anywhere, or a value longer than any legitimate one, is refused as invalid_request
//   (PostgreSQL text cannot hold NUL: it would surface as a 500 and log the statement).
import type { FastifyInstance, FastifyRequest } from "fastify";
import { enforce, type RateLimitStore, registerAddressRateLimit } from "../http/rate-limit.ts";
import { findNul } from "../http/reject-nul.ts";
import { hashSecret } from "../lib/crypto.ts";
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

/** The client_id a request names, in the body, the query or the Basic header (not verified). */
function claimedClientId(request: FastifyRequest): string | undefined {
  for (const params of [request.body, request.query]) {
    const id = asParams(params).client_id;
    if (typeof id === "string" && id) return id;
  }
  const basic = /^Basic +([A-Za-z0-9+/]+=*) *$/i.exec(request.headers.authorization ?? "");
  if (!basic?.[1]) return undefined;
  const decoded = Buffer.from(basic[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return colon > 0 ? decoded.slice(0, colon) : undefined;
}

export function registerOAuthRequestGuards(
  scope: FastifyInstance,
  store: RateLimitStore,
  options: { policy: string; maxPerMinute: number; asPage?: boolean },
): void {
  registerAddressRateLimit(scope, store, options);
  const perClient = { policy: "oauth-client", max: options.maxPerMinute };
  scope.addHook("preHandler", async (request, reply) => {
    const problem = checkParamValues(request.query) ?? checkParamValues(request.body);
    // On the authorize page the client is not trusted yet: an error page, never a redirect.
    if (problem)
      throw options.asPage
        ? new PageError(400, "Invalid authorization request", problem.description)
        : problem;
    const clientId = claimedClientId(request);
    // Hashed: the key must not carry whatever a caller put there into Redis or memory as is.
    if (clientId) await enforce(store, perClient, `c:${hashSecret(clientId)}`, reply);
  });
}
