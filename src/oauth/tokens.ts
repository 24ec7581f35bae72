// Token issuance and access-token verification. Tokens are opaque random strings (CONTRACT 3):
// `vat_` access tokens for 1 hour, `vrt_` refresh tokens for 30 days (spec 5 rules 3-4), stored
// only as SHA-256 hashes. An access token becomes the same Principal an API key produces.
import type { Principal } from "../auth/principal.ts";
import { isScope, type Scope } from "../auth/scopes.ts";
import type { ServiceContext } from "../context.ts";
import type { Executor } from "../db/client.ts";
import { generateSecret, hashSecret } from "../lib/crypto.ts";
import { newId } from "../lib/ids.ts";
import {
  findLiveAccessToken,
  insertAccessToken,
  insertRefreshToken,
} from "../modules/connections/oauth.repository.ts";

export const ACCESS_TOKEN_PREFIX = "vat_";
export const REFRESH_TOKEN_PREFIX = "vrt_";
export const ACCESS_TOKEN_TTL_S = 3600;
export const REFRESH_TOKEN_TTL_S = 30 * 24 * 3600;

/** RFC 6749 5.1 / spec 2.5. */
export interface TokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/**
 * A new access token with `accessScopes` and a new refresh token with `refreshScopes` under one
 * grant. The refresh token keeps the grant's scope while an access token may be narrower
 * (RFC 6749 6: the new refresh token's scope is that of the one it replaces).
 */
export async function issueTokens(
  db: Executor,
  now: Date,
  grantId: string,
  accessScopes: readonly Scope[],
  refreshScopes: readonly Scope[],
): Promise<TokenResponse> {
  const accessToken = generateSecret(ACCESS_TOKEN_PREFIX, 32);
  const refreshToken = generateSecret(REFRESH_TOKEN_PREFIX, 32);
  await insertAccessToken(db, {
    id: newId(),
    tokenHash: hashSecret(accessToken),
    grantId,
    scopes: [...accessScopes],
    createdAt: now,
    expiresAt: new Date(now.getTime() + ACCESS_TOKEN_TTL_S * 1000),
  });
  await insertRefreshToken(db, {
    id: newId(),
    tokenHash: hashSecret(refreshToken),
    grantId,
    scopes: [...refreshScopes],
    createdAt: now,
    expiresAt: new Date(now.getTime() + REFRESH_TOKEN_TTL_S * 1000),
  });
  return {
    access_token: accessToken,
    token_type: "Bearer",
    expires_in: ACCESS_TOKEN_TTL_S,
    refresh_token: refreshToken,
    scope: accessScopes.join(" "),
  };
}

/** The principal of a live access token (not expired, not revoked, grant not revoked). */
export async function authenticateAccessToken(
  ctx: ServiceContext,
  token: string,
): Promise<Principal | undefined> {
  if (!token.startsWith(ACCESS_TOKEN_PREFIX) || token.length > 200) return undefined;
  const row = await findLiveAccessToken(ctx.db, hashSecret(token), ctx.now());
  if (!row) return undefined;
  return {
    vendorId: row.vendorId,
    scopes: new Set(row.scopes.filter(isScope)),
    credential: {
      kind: "oauth",
      grantId: row.grantId,
      clientId: row.clientId,
      tokenId: row.tokenId,
      expiresAt: row.expiresAt,
    },
    // Only a shop that signs in grants access, and a sandbox never signs in: no sandbox tokens.
    livemode: true,
  };
}

/** Scopes as RFC 6749 3.3 writes them: space-delimited, order irrelevant, duplicates ignored. */
export function parseScope(value: string): string[] {
  return [...new Set(value.split(" ").filter((s) => s !== ""))];
}
