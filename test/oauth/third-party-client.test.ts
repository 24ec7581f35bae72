// A real OAuth client library (oauth4webapi) against the running server: discovery, code + PKCE
// with state and iss checks, refresh and revocation, as an integrator's software would do it.
import * as oauth from "oauth4webapi";
import { describe, expect, it } from "vitest";
import { Browser } from "../helpers/browser.ts";
import { createVendor, TEST_PASSWORD } from "../helpers/factories.ts";
import { createClient, REDIRECT_URI } from "../helpers/oauth.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

// The test server is plain http on 127.0.0.1; the library refuses http unless told otherwise.
const insecure = { [oauth.allowInsecureRequests]: true };

async function discover(): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(t.url);
  return oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure }),
  );
}

/** The vendor's part: follow the authorization URL, sign in, click Allow; returns the callback URL. */
async function vendorAllows(authorizationUrl: URL): Promise<URL> {
  const vendor = await createVendor(t.ctx);
  const browser = new Browser(t.url);
  const toLogin = await browser.get(authorizationUrl.toString());
  const login = await browser.get(toLogin.location ?? "");
  const back = await browser.submit(login, { email: vendor.email, password: TEST_PASSWORD });
  const consent = await browser.get(back.location ?? "");
  const done = await browser.submit(consent, { decision: "allow" });
  return new URL(done.location ?? "");
}

describe("oauth4webapi completes discovery, code + PKCE, refresh and revocation", () => {
  for (const [method, auth] of [
    ["client_secret_basic", oauth.ClientSecretBasic],
    ["client_secret_post", oauth.ClientSecretPost],
  ] as const) {
    it(`the full client lifecycle works with ${method}`, async () => {
      const registered = await createClient(t.ctx);
      const as = await discover();
      expect(as.issuer).toBe(t.url);
      const client: oauth.Client = { client_id: registered.clientId };
      const clientAuth = auth(registered.clientSecret);

      const codeVerifier = oauth.generateRandomCodeVerifier();
      const state = oauth.generateRandomState();
      const authorizationUrl = new URL(as.authorization_endpoint ?? "");
      authorizationUrl.search = new URLSearchParams({
        client_id: client.client_id,
        redirect_uri: REDIRECT_URI,
        response_type: "code",
        scope: "orders:read profile:read",
        state,
        code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: "S256",
      }).toString();

      const callback = await vendorAllows(authorizationUrl);
      // Checks state and, as the metadata announces RFC 9207 support, iss.
      const params = oauth.validateAuthResponse(as, client, callback, state);
      const tokenResponse = await oauth.authorizationCodeGrantRequest(
        as,
        client,
        clientAuth,
        params,
        REDIRECT_URI,
        codeVerifier,
        insecure,
      );
      const tokens = await oauth.processAuthorizationCodeResponse(as, client, tokenResponse);
      expect(tokens.token_type).toBe("bearer");
      expect(tokens.expires_in).toBe(3600);
      expect(tokens.scope).toBe("orders:read profile:read");
      expect((await t.api.get("/api/vendor/orders", { token: tokens.access_token })).status).toBe(200);

      const refreshed = await oauth.processRefreshTokenResponse(
        as,
        client,
        await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token ?? "", insecure),
      );
      expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
      expect((await t.api.get("/api/vendor/orders", { token: refreshed.access_token })).status).toBe(200);

      await oauth.processRevocationResponse(
        await oauth.revocationRequest(as, client, clientAuth, refreshed.refresh_token ?? "", insecure),
      );
      expect((await t.api.get("/api/vendor/orders", { token: refreshed.access_token })).status).toBe(401);
      // The library surfaces the RFC 6749 5.2 error of the revoked grant.
      await expect(
        oauth.processRefreshTokenResponse(
          as,
          client,
          await oauth.refreshTokenGrantRequest(
            as,
            client,
            clientAuth,
            refreshed.refresh_token ?? "",
            insecure,
          ),
        ),
      ).rejects.toMatchObject({ error: "invalid_grant" });
    });
  }

  it("the library rejects a callback whose iss is not the discovered issuer (mix-up defence, RFC 9207)", async () => {
    const registered = await createClient(t.ctx);
    const as = await discover();
    const client: oauth.Client = { client_id: registered.clientId };
    const forged = new URL(
      `${REDIRECT_URI}?code=vac_x&state=s&iss=${encodeURIComponent("https://evil.example")}`,
    );
    expect(() => oauth.validateAuthResponse(as, client, forged, "s")).toThrow();
  });
});
