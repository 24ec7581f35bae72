import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createVendor } from "../helpers/factories.ts";
import {
  authorizePath,
  clientCredentials,
  createClient,
  exchangeCode,
  oauthPost,
  REDIRECT_URI,
  redirectParams,
  signedInBrowser,
  validParams,
} from "../helpers/oauth.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

// RFC 7636 Appendix B.
const VECTOR_VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const VECTOR_CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

async function codeFor(challenge: string) {
  const client = await createClient(t.ctx);
  const vendor = await createVendor(t.ctx);
  const browser = await signedInBrowser(t, vendor.email);
  const consent = await browser.get(authorizePath(validParams(client, challenge)));
  const res = await browser.submit(consent, { decision: "allow" });
  return { client, code: redirectParams(res).get("code") ?? "" };
}

describe("PKCE (RFC 7636)", () => {
  it("the RFC 7636 appendix B verifier redeems a code issued for the appendix B challenge", async () => {
    const { client, code } = await codeFor(VECTOR_CHALLENGE);
    const res = await exchangeCode(t, client, code, VECTOR_VERIFIER);
    expect(res.status).toBe(200);
    expect(res.body.access_token).toMatch(/^vat_/);
  });

  it("a verifier that does not hash to the challenge is invalid_grant", async () => {
    const { client, code } = await codeFor(VECTOR_CHALLENGE);
    const res = await exchangeCode(t, client, code, `${VECTOR_VERIFIER.slice(0, -1)}A`);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("invalid_grant");
  });

  it("the verifier is compared exactly: the challenge itself sent as verifier (the plain method) is invalid_grant", async () => {
    const { client, code } = await codeFor(VECTOR_CHALLENGE);
    const res = await exchangeCode(t, client, code, VECTOR_CHALLENGE);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("invalid_grant");
  });

  it.each([
    ["42 characters (under the minimum of 43)", "a".repeat(42)],
    ["129 characters (over the maximum of 128)", "a".repeat(129)],
    ["a character outside A-Z a-z 0-9 - . _ ~", `${"a".repeat(42)}+`],
    ["a space", `${"a".repeat(42)} b`],
  ])("a verifier of %s is invalid_request", async (_what, verifier) => {
    const { client, code } = await codeFor(VECTOR_CHALLENGE);
    const res = await exchangeCode(t, client, code, verifier);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("invalid_request");
  });

  it("verifiers of exactly 43 and 128 allowed characters are accepted", async () => {
    for (const verifier of [`${"-._~".repeat(10)}abc`, "Az9-._~x".repeat(16)]) {
      const challenge = createHash("sha256").update(verifier).digest("base64url");
      const { client, code } = await codeFor(challenge);
      const res = await exchangeCode(t, client, code, verifier);
      expect(res.status, verifier).toBe(200);
    }
  });

  it("a token request without code_verifier is invalid_request", async () => {
    const { client, code } = await codeFor(VECTOR_CHALLENGE);
    const res = await oauthPost(t, "/api/oauth/token", {
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT_URI,
      ...clientCredentials(client),
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("invalid_request");
  });

  it("an authorization request without a challenge, with method plain or with no method is refused with invalid_request", async () => {
    const client = await createClient(t.ctx);
    const vendor = await createVendor(t.ctx);
    const browser = await signedInBrowser(t, vendor.email);
    for (const overrides of [
      { code_challenge: undefined },
      { code_challenge_method: "plain" },
      { code_challenge_method: "s256" },
      { code_challenge_method: undefined },
      { code_challenge: "too-short" },
    ]) {
      const res = await browser.get(authorizePath(validParams(client, VECTOR_CHALLENGE, overrides)));
      expect(res.status, JSON.stringify(overrides)).toBe(302);
      expect(redirectParams(res).get("error"), JSON.stringify(overrides)).toBe("invalid_request");
    }
  });
});
