// Rules (RFC 7636 4.2-4.4, RFC 9700 2.1.1, CONTRACT 6):
// - code_challenge is required (invalid_request when missing);
// - code_challenge_method is required and must be S256: "plain" and a missing method (which
//   RFC 7636 would read as plain) are refused with invalid_request;
// - an S256 challenge is the base64url SHA-256 of the verifier: exactly 43 base64url characters.
import { InvalidRequest } from "../oauth.errors.ts";
import { param, type RawParams } from "../params.ts";

const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export function checkPkce(params: RawParams): string {
  const challenge = param(params, "code_challenge");
  if (challenge.kind !== "one") throw new InvalidRequest("code_challenge is required (PKCE, RFC 7636)");
  const method = param(params, "code_challenge_method");
  if (method.kind !== "one") throw new InvalidRequest("code_challenge_method is required and must be S256");
  if (method.value !== "S256") throw new InvalidRequest("code_challenge_method must be S256");
  if (!S256_CHALLENGE.test(challenge.value)) {
    throw new InvalidRequest("code_challenge must be 43 base64url characters (RFC 7636 4.2)");
  }
  return challenge.value;
}
