import { describe, expect, it } from "vitest";
import { adjustableClock } from "../helpers/clock.ts";
import {
  authorizeCode,
  clientCredentials,
  createClient,
  exchangeCode,
  oauthPost,
  REDIRECT_URI,
  refresh,
} from "../helpers/oauth.ts";
import { useTestApp } from "../helpers/test-app.ts";

const clock = adjustableClock();
const t = useTestApp({ now: clock.now });

describe("grant_type=authorization_code (RFC 6749 4.1.3, CONTRACT 6)", () => {
  it("a code is single use: the second use is invalid_grant and revokes every token issued from the code", async () => {
    const client = await createClient(t.ctx);
    const { code, verifier } = await authorizeCode(t, client);
    const first = await exchangeCode(t, client, code, verifier);
    expect(first.status).toBe(200);
    expect((await t.api.get("/api/vendor/orders", { token: first.body.access_token })).status).toBe(200);

    const second = await exchangeCode(t, client, code, verifier);
    expect(second.status).toBe(400);
    expect(second.body.error).toBe("invalid_grant");
    expect(second.headers.get("cache-control")).toBe("no-store");

    const api = await t.api.get("/api/vendor/orders", { token: first.body.access_token });
    expect(api.status).toBe(401);
    expect(api.headers.get("www-authenticate")).toContain('error="invalid_token"');
    const refreshed = await refresh(t, client, first.body.refresh_token);
    expect(refreshed.status).toBe(400);
    expect(refreshed.body.error).toBe("invalid_grant");
  });

  it("concurrent uses of one code: exactly one gets tokens", async () => {
    const client = await createClient(t.ctx);
    const { code, verifier } = await authorizeCode(t, client);
    const results = await Promise.all([1, 2, 3].map(() => exchangeCode(t, client, code, verifier)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.body.error === "invalid_grant")).toHaveLength(2);
  });

  it("a code older than 5 minutes is invalid_grant", async () => {
    const client = await createClient(t.ctx);
    const { code, verifier } = await authorizeCode(t, client);
    clock.advance(5 * 60 * 1000 + 1000);
    const res = await exchangeCode(t, client, code, verifier);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("invalid_grant");
  });

  it("a code just under 5 minutes old is still accepted", async () => {
    const client = await createClient(t.ctx);
    const { code, verifier } = await authorizeCode(t, client);
    clock.advance(4 * 60 * 1000 + 50 * 1000);
    const res = await exchangeCode(t, client, code, verifier);
    expect(res.status).toBe(200);
  });

  it("a code is bound to its client: another client's valid credentials get invalid_grant", async () => {
    const client = await createClient(t.ctx);
    const other = await createClient(t.ctx);
    const { code, verifier } = await authorizeCode(t, client);
    const res = await exchangeCode(t, other, code, verifier);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("invalid_grant");
    // The rightful client can still redeem it: a wrong client does not burn the code.
    expect((await exchangeCode(t, client, code, verifier)).status).toBe(200);
  });

  it("a code is bound to its redirect URI: another registered URI is invalid_grant", async () => {
    const second = "https://client.example/other";
    const client = await createClient(t.ctx, [REDIRECT_URI, second]);
    const { code, verifier } = await authorizeCode(t, client);
    const res = await exchangeCode(t, client, code, verifier, second);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("invalid_grant");
    const missing = await oauthPost(t, "/api/oauth/token", {
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      ...clientCredentials(client),
    });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe("invalid_request");
  });

  it("an unknown code is invalid_grant", async () => {
    const client = await createClient(t.ctx);
    const res = await exchangeCode(t, client, "vac_not-a-code", "a".repeat(43));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "invalid_grant", error_description: expect.any(String) });
  });

  it("grant_type=password and other grants are unsupported_grant_type", async () => {
    const client = await createClient(t.ctx);
    for (const grant_type of [
      "password",
      "client_credentials",
      "implicit",
      "urn:ietf:params:oauth:grant-type:device_code",
    ]) {
      const res = await oauthPost(t, "/api/oauth/token", {
        grant_type,
        username: "a",
        password: "b",
        ...clientCredentials(client),
      });
      expect(res.status, grant_type).toBe(400);
      expect(res.body.error, grant_type).toBe("unsupported_grant_type");
    }
  });

  it("a missing grant_type or a parameter given twice is invalid_request", async () => {
    const client = await createClient(t.ctx);
    const missing = await oauthPost(t, "/api/oauth/token", { ...clientCredentials(client) });
    expect(missing.body.error).toBe("invalid_request");
    const { code, verifier } = await authorizeCode(t, client);
    const twice = await oauthPost(t, "/api/oauth/token", {
      grant_type: "authorization_code",
      code: [code, code],
      redirect_uri: REDIRECT_URI,
      code_verifier: verifier,
      ...clientCredentials(client),
    });
    expect(twice.status).toBe(400);
    expect(twice.body.error).toBe("invalid_request");
  });
});
