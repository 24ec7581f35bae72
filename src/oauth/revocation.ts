// Token revocation (RFC 7009, CONTRACT 6).
// Rules:
// - token is required, once (invalid_request); the client is authenticated first;
// - the answer is 200 for any token value: unknown, expired, already revoked or another
//   client's (RFC 7009 2.2), so the endpoint reveals nothing about tokens it did not issue to
//   the caller;
// - a token is revoked only when it was issued to the authenticated client (RFC 7009 2.1);
// - token_type_hint is only a hint: the token's prefix tells its type, so a wrong or unknown
//   hint never prevents revocation (RFC 7009 2.1 allows extending the search);
// - revoking a refresh token revokes its grant, and with it the grant's access tokens
//   (RFC 7009 2.1: "SHOULD also invalidate all access tokens based on the same authorization grant").
import type { ServiceContext } from "../context.ts";
import { hashSecret } from "../lib/crypto.ts";
import type { ApplicationRow } from "../modules/applications/applications.service.ts";
import {
  findAccessTokenWithClient,
  findRefreshToken,
  revokeAccessToken,
  revokeGrant,
} from "../modules/connections/oauth.repository.ts";
import { InvalidRequest } from "./oauth.errors.ts";
import { type RawParams, single } from "./params.ts";
import { ACCESS_TOKEN_PREFIX, REFRESH_TOKEN_PREFIX } from "./tokens.ts";

const repeated = (name: string) => new InvalidRequest(`${name} is given more than once`);

export async function revokeToken(
  ctx: ServiceContext,
  client: ApplicationRow,
  body: RawParams,
): Promise<void> {
  const token = single(body, "token", repeated);
  if (token === undefined) throw new InvalidRequest("token is required");
  single(body, "token_type_hint", repeated);
  if (token.length > 200) return;
  const hash = hashSecret(token);
  const now = ctx.now();
  if (token.startsWith(ACCESS_TOKEN_PREFIX)) {
    const access = await findAccessTokenWithClient(ctx.db, hash);
    if (access && access.applicationId === client.id)
      await revokeAccessToken(ctx.db, access.vendorId, access.id, now);
  } else if (token.startsWith(REFRESH_TOKEN_PREFIX)) {
    const refresh = await findRefreshToken(ctx.db, hash);
    if (refresh && refresh.grant.applicationId === client.id)
      await revokeGrant(ctx.db, refresh.grant.vendorId, refresh.grant.id, now);
  }
}
