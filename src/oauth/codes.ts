// Authorization codes (RFC 6749 4.1.2): 256 random bits, stored hashed, single use, valid for
// 5 minutes (CONTRACT 6; RFC 6749 4.1.2 recommends at most 10), bound to the client, the
// redirect URI, the vendor who consented, the scopes and the PKCE challenge.
import type { ServiceContext } from "../context.ts";
import { generateSecret, hashSecret } from "../lib/crypto.ts";
import { newId } from "../lib/ids.ts";
import { recordActivity } from "../modules/activity/activity.repository.ts";
import { insertCode } from "../modules/connections/oauth.repository.ts";
import type { AuthorizationRequest } from "./authorize/index.ts";

export const CODE_TTL_MS = 5 * 60 * 1000;
const CODE_PREFIX = "vac_";

/**
 * A new code. `consented`: the person has just said yes on the consent page (not a silent
 * re-authorization of scopes already granted), which the activity log records with the code.
 */
export async function createAuthorizationCode(
  ctx: ServiceContext,
  vendorId: string,
  request: AuthorizationRequest,
  options: { consented?: boolean } = {},
): Promise<string> {
  const code = generateSecret(CODE_PREFIX, 32);
  const now = ctx.now();
  if (!options.consented) {
    await insertCode(ctx.db, codeRow(code, vendorId, request, now));
    return code;
  }
  await ctx.db.transaction(async (tx) => {
    await insertCode(tx, codeRow(code, vendorId, request, now));
    await recordActivity(tx, {
      vendorId,
      action: "application.authorized",
      subjectId: request.application.id,
      at: now,
      detail: { scopes: request.scopes },
    });
  });
  return code;
}

function codeRow(code: string, vendorId: string, request: AuthorizationRequest, now: Date) {
  return {
    id: newId(),
    codeHash: hashSecret(code),
    applicationId: request.application.id,
    vendorId,
    redirectUri: request.redirectUri,
    scopes: request.scopes,
    codeChallenge: request.codeChallenge,
    createdAt: now,
    expiresAt: new Date(now.getTime() + CODE_TTL_MS),
  };
}
