// Rules (RFC 7636 4.1 and 4.6):
// - code_verifier is required when the code carries a challenge (always, here): invalid_request;
// - it is 43-128 characters of [A-Z] [a-z] [0-9] "-" "." "_" "~": otherwise invalid_request;
// - BASE64URL(SHA256(ASCII(code_verifier))) equals the stored challenge: otherwise invalid_grant.
import { createHash } from "node:crypto";
import { safeEqual } from "../../lib/crypto.ts";
import { InvalidGrant, InvalidRequest } from "../oauth.errors.ts";

const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

export function checkVerifierSyntax(verifier: string | undefined): string {
  if (verifier === undefined) throw new InvalidRequest("code_verifier is required (PKCE, RFC 7636)");
  if (!VERIFIER.test(verifier)) {
    throw new InvalidRequest("code_verifier must be 43-128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636 4.1)");
  }
  return verifier;
}

export function s256(verifier: string): string {
  return createHash("sha256").update(verifier, "ascii").digest("base64url");
}

export function checkVerifierMatches(verifier: string, challenge: string): void {
  if (!safeEqual(s256(verifier), challenge)) {
    throw new InvalidGrant("code_verifier does not match the code_challenge");
  }
}
