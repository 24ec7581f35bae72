// grant_type=refresh_token (RFC 6749 6, RFC 9700 4.14, CONTRACT 6).
// Rules:
// - refresh_token is required, once (invalid_request);
// - it exists, belongs to this client, is unexpired (30 days) and its grant is not revoked
//   (invalid_grant);
// - scope, if given, may narrow the token's scope, never widen it (invalid_scope); the new
//   access token carries the narrowed scope, the new refresh token the unchanged one (RFC 6749 6);
// - every use rotates the token: the old one stops working;
// - a rotated token presented again is reuse: invalid_grant, and the whole grant is revoked
//   (RFC 9700 4.14.2), so the attacker's and the victim's tokens both die;
// - of concurrent refreshes with one token exactly one succeeds: the rotation is one conditional
//   UPDATE. A loser, a request received before the token was rotated, gets invalid_grant without
//   revoking the grant: the token was live when it was sent, so this is a racing client, not a
//   replay (and a loser that retries with the token later is caught as reuse then). A request
//   received after the rotation is reuse, however soon after.
import { isScope, type Scope } from "../../auth/scopes.ts";
import type { ServiceContext } from "../../context.ts";
import { hashSecret } from "../../lib/crypto.ts";
import type { ApplicationRow } from "../../modules/applications/applications.service.ts";
import {
  findRefreshToken,
  markRefreshTokenRotated,
  revokeGrant,
} from "../../modules/connections/oauth.repository.ts";
import { InvalidGrant, InvalidRequest, InvalidScope } from "../oauth.errors.ts";
import { type RawParams, single } from "../params.ts";
import { issueTokens, parseScope, REFRESH_TOKEN_PREFIX, type TokenResponse } from "../tokens.ts";

const repeated = (name: string) => new InvalidRequest(`${name} is given more than once`);

export async function exchangeRefreshToken(
  ctx: ServiceContext,
  client: ApplicationRow,
  body: RawParams,
  /** When the request arrived: tells a concurrent request from a replay. */
  receivedAt: Date,
): Promise<TokenResponse> {
  const token = single(body, "refresh_token", repeated);
  if (token === undefined) throw new InvalidRequest("refresh_token is required");
  const scopeParam = single(body, "scope", repeated);

  const found =
    token.startsWith(REFRESH_TOKEN_PREFIX) && token.length <= 200
      ? await findRefreshToken(ctx.db, hashSecret(token))
      : undefined;
  if (!found) throw new InvalidGrant("The refresh token is unknown");
  const { token: row, grant } = found;
  if (grant.applicationId !== client.id)
    throw new InvalidGrant("The refresh token was issued to another client");
  if (grant.revokedAt) throw new InvalidGrant("The refresh token has been revoked");
  if (row.rotatedAt) {
    if (receivedAt.getTime() < row.rotatedAt.getTime()) throw lostRace();
    await revokeGrant(ctx.db, grant.vendorId, grant.id, ctx.now());
    throw new InvalidGrant("The refresh token was already used; the grant is revoked");
  }
  if (row.expiresAt.getTime() <= ctx.now().getTime()) throw new InvalidGrant("The refresh token has expired");

  const held = row.scopes.filter(isScope) as Scope[];
  let accessScopes = held;
  if (scopeParam !== undefined) {
    const requested = parseScope(scopeParam);
    const wider = requested.filter((s) => !(held as string[]).includes(s));
    if (requested.length === 0) throw new InvalidScope("scope must name at least one scope");
    if (wider.length > 0) {
      throw new InvalidScope(
        `A refresh may narrow the scope, never widen it: ${wider.join(" ")} not granted`,
      );
    }
    accessScopes = requested as Scope[];
  }

  const issued = await ctx.db.transaction(async (tx) => {
    const now = ctx.now();
    if (!(await markRefreshTokenRotated(tx, grant.vendorId, row.id, now))) return undefined;
    return issueTokens(tx, now, grant.id, accessScopes, held);
  });
  if (!issued) throw lostRace();
  return issued;
}

const lostRace = () => new InvalidGrant("The refresh token was used by a concurrent request");
