// Authorization codes (RFC 6749 4.1.2): 256 random bits, stored hashed, single use, valid for
// 5 minutes (CONTRACT 6; RFC 6749 4.1.2 recommends at most 10), bound to the client, the
// redirect URI, the vendor who consented, the scopes and the PKCE challenge.
import type { ServiceContext } from "../context.ts";
import { generateSecret, hashSecret } from "../lib/crypto.ts";
import { newId } from "../lib/ids.ts";
import { insertCode } from "../modules/connections/oauth.repository.ts";
import type { AuthorizationRequest } from "./authorize/index.ts";

export const CODE_TTL_MS = 5 * 60 * 1000;
const CODE_PREFIX = "vac_";

export async function createAuthorizationCode(
  ctx: ServiceContext,
  vendorId: string,
  request: AuthorizationRequest,
): Promise<string> {
  const code = generateSecret(CODE_PREFIX, 32);
  const now = ctx.now();
  await insertCode(ctx.db, {
    id: newId(),
    codeHash: hashSecret(code),
    applicationId: request.application.id,
    vendorId,
    redirectUri: request.redirectUri,
    scopes: request.scopes,
    codeChallenge: request.codeChallenge,
    createdAt: now,
    expiresAt: new Date(now.getTime() + CODE_TTL_MS),
  });
  return code;
}
