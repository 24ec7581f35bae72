// grant_type=authorization_code (RFC 6749 4.1.3, RFC 7636 4.5-4.6, CONTRACT 6).
// Rules, in this order:
// - code, redirect_uri and code_verifier are required, each once (invalid_request);
// - the code exists and was issued to the authenticated client; a code issued to another
//   client gets the very answer an unknown code gets, so a stranger learns nothing about it
//   (RFC 6749 4.1.3: "ensure that the authorization code was issued to the authenticated
//   confidential client" comes before anything else);
// - its redirect_uri equals the one given, and the verifier matches the challenge (invalid_grant);
// - only then does a used code count as a replay: invalid_grant, and the grant (so every token)
//   issued from it is revoked (RFC 6749 4.1.2, RFC 9700 4.5.3). A replay that fails any check
//   above revokes nothing: otherwise any vendor could register an application and, with its own
//   credentials and someone else's used code, kill the rightful client's tokens;
// - the code is unexpired (5 minutes);
// - concurrent uses are settled by one conditional UPDATE: only one request can mark it used.
import type { Scope } from "../../auth/scopes.ts";
import type { ServiceContext } from "../../context.ts";
import { hashSecret } from "../../lib/crypto.ts";
import { newId } from "../../lib/ids.ts";
import type { ApplicationRow } from "../../modules/applications/applications.service.ts";
import {
  consumeCode,
  findCodeByHash,
  insertGrant,
  linkCodeToGrant,
  revokeGrant,
} from "../../modules/connections/oauth.repository.ts";
import { InvalidGrant, InvalidRequest } from "../oauth.errors.ts";
import { type RawParams, single } from "../params.ts";
import { issueTokens, type TokenResponse } from "../tokens.ts";
import { checkVerifierMatches, checkVerifierSyntax } from "./pkce.ts";

const UNKNOWN_CODE = "The code is not valid for this client";
const repeated = (name: string) => new InvalidRequest(`${name} is given more than once`);

export async function exchangeAuthorizationCode(
  ctx: ServiceContext,
  client: ApplicationRow,
  body: RawParams,
): Promise<TokenResponse> {
  const code = single(body, "code", repeated);
  const redirectUri = single(body, "redirect_uri", repeated);
  if (code === undefined) throw new InvalidRequest("code is required");
  if (redirectUri === undefined) throw new InvalidRequest("redirect_uri is required");
  const verifier = checkVerifierSyntax(single(body, "code_verifier", repeated));

  const codeHash = hashSecret(code);
  const row = code.length <= 200 ? await findCodeByHash(ctx.db, codeHash) : undefined;
  if (!row || row.applicationId !== client.id) throw new InvalidGrant(UNKNOWN_CODE);
  if (row.redirectUri !== redirectUri) {
    throw new InvalidGrant("redirect_uri differs from the one in the authorization request");
  }
  checkVerifierMatches(verifier, row.codeChallenge);
  if (row.usedAt) return replayed(ctx, row.vendorId, row.grantId);
  if (row.expiresAt.getTime() <= ctx.now().getTime()) throw new InvalidGrant("The code has expired");

  const outcome = await ctx.db.transaction(async (tx) => {
    const now = ctx.now();
    const consumed = await consumeCode(tx, row.vendorId, codeHash, now);
    if (!consumed) return undefined;
    const grantId = newId();
    const scopes = row.scopes as Scope[];
    await insertGrant(tx, {
      id: grantId,
      applicationId: client.id,
      vendorId: row.vendorId,
      scopes,
      createdAt: now,
    });
    await linkCodeToGrant(tx, row.vendorId, row.id, grantId);
    return issueTokens(tx, now, grantId, scopes, scopes);
  });
  if (outcome) return outcome;
  // Another request used the code between our read and our update: this one is the second use.
  const after = await findCodeByHash(ctx.db, codeHash);
  return replayed(ctx, row.vendorId, after?.grantId ?? null);
}

async function replayed(ctx: ServiceContext, vendorId: string, grantId: string | null): Promise<never> {
  if (grantId) await revokeGrant(ctx.db, vendorId, grantId, ctx.now());
  throw new InvalidGrant("The code has already been used; the tokens issued from it are revoked");
}
