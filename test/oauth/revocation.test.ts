import { describe, expect, it } from "vitest";
import { clientCredentials, createClient, oauthPost, obtainTokens, refresh } from "../helpers/oauth.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

const ordersStatus = async (token: string) => (await t.api.get("/api/vendor/orders", { token })).status;

async function revoke(client: Awaited<ReturnType<typeof createClient>>, token: string, hint?: string) {
  return oauthPost(t, "/api/oauth/revoke", {
    token,
    ...(hint ? { token_type_hint: hint } : {}),
    ...clientCredentials(client),
  });
}

describe("POST /api/oauth/revoke (RFC 7009, CONTRACT 6)", () => {
  for (const hint of [undefined, "access_token", "refresh_token", "something_else"]) {
    it(`revoking an access token (hint ${hint ?? "none"}) answers 200 with an empty body and the token stops working`, async () => {
      const client = await createClient(t.ctx);
      const tokens = await obtainTokens(t, client);
      const res = await revoke(client, tokens.access_token, hint);
      expect(res.status).toBe(200);
      expect(res.body).toBeUndefined();
      expect(await ordersStatus(tokens.access_token)).toBe(401);
      // Only the access token: the refresh token still works.
      expect((await refresh(t, client, tokens.refresh_token)).status).toBe(200);
    });

    it(`revoking a refresh token (hint ${hint ?? "none"}) answers 200 and revokes the grant's access tokens too`, async () => {
      const client = await createClient(t.ctx);
      const tokens = await obtainTokens(t, client);
      const res = await revoke(client, tokens.refresh_token, hint);
      expect(res.status).toBe(200);
      expect(res.body).toBeUndefined();
      expect((await refresh(t, client, tokens.refresh_token)).body.error).toBe("invalid_grant");
      expect(await ordersStatus(tokens.access_token)).toBe(401);
    });
  }

  it("another client's token: 200, and the token keeps working (revoked only for the client it was issued to)", async () => {
    const owner = await createClient(t.ctx);
    const stranger = await createClient(t.ctx);
    const tokens = await obtainTokens(t, owner);
    expect((await revoke(stranger, tokens.access_token)).status).toBe(200);
    expect((await revoke(stranger, tokens.refresh_token)).status).toBe(200);
    expect(await ordersStatus(tokens.access_token)).toBe(200);
    expect((await refresh(t, owner, tokens.refresh_token)).status).toBe(200);
  });

  it.each([
    ["garbage", "garbage"],
    ["vat_unknown", "vat_unknown"],
    ["vrt_unknown", "vrt_unknown"],
    ["5,000 x", "x".repeat(5000)],
    // Longer than any other OAuth parameter may be: still 200.
    ["10 KiB of x", "x".repeat(10_240)],
    ["vat_ and 10 KiB", `vat_${"x".repeat(10_240)}`],
  ])("an unknown or garbage token (%s) answers 200", async (_label, token) => {
    const client = await createClient(t.ctx);
    const res = await revoke(client, token);
    expect(res.status).toBe(200);
  });

  it("an already revoked token answers 200 again", async () => {
    const client = await createClient(t.ctx);
    const tokens = await obtainTokens(t, client);
    expect((await revoke(client, tokens.refresh_token)).status).toBe(200);
    expect((await revoke(client, tokens.refresh_token)).status).toBe(200);
    expect((await revoke(client, tokens.access_token)).status).toBe(200);
  });

  it("bad client credentials: 401 invalid_client, and nothing is revoked", async () => {
    const client = await createClient(t.ctx);
    const tokens = await obtainTokens(t, client);
    const wrong = await oauthPost(t, "/api/oauth/revoke", {
      token: tokens.access_token,
      client_id: client.clientId,
      client_secret: "vcs_wrong",
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe("invalid_client");
    const none = await oauthPost(t, "/api/oauth/revoke", { token: tokens.refresh_token });
    expect(none.status).toBe(401);
    expect(none.body.error).toBe("invalid_client");
    const basic = await oauthPost(
      t,
      "/api/oauth/revoke",
      { token: tokens.access_token },
      {
        id: client.clientId,
        secret: "nope",
      },
    );
    expect(basic.status).toBe(401);
    expect(basic.headers.get("www-authenticate")).toMatch(/^Basic /);
    expect(await ordersStatus(tokens.access_token)).toBe(200);
    expect((await refresh(t, client, tokens.refresh_token)).status).toBe(200);
  });

  it("HTTP Basic client authentication works for revocation too", async () => {
    const client = await createClient(t.ctx);
    const tokens = await obtainTokens(t, client);
    const res = await oauthPost(
      t,
      "/api/oauth/revoke",
      { token: tokens.access_token },
      {
        id: client.clientId,
        secret: client.clientSecret,
      },
    );
    expect(res.status).toBe(200);
    expect(await ordersStatus(tokens.access_token)).toBe(401);
  });

  it("a request without token is invalid_request", async () => {
    const client = await createClient(t.ctx);
    const res = await oauthPost(t, "/api/oauth/revoke", { ...clientCredentials(client) });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("invalid_request");
  });
});
