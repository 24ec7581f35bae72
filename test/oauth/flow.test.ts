import { describe, expect, it } from "vitest";
import { createApplication } from "../../src/modules/applications/applications.service.ts";
import { Browser } from "../helpers/browser.ts";
import { createVendor } from "../helpers/factories.ts";
import {
  authorizePath,
  createClient,
  exchangeCode,
  pkcePair,
  REDIRECT_URI,
  redirectParams,
  signedInBrowser,
  validParams,
} from "../helpers/oauth.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

describe("authorization code flow through the sign-in and consent pages", () => {
  it("a vendor not signed in is sent to sign in and back, consents, and the client's token acts for that vendor", async () => {
    const client = await createClient(t.ctx);
    const vendor = await createVendor(t.ctx, "Atelier Rosa");
    const browser = new Browser(t.url);
    const { verifier, challenge } = pkcePair();
    const start = authorizePath(validParams(client, challenge));

    const toLogin = await browser.get(start);
    expect(toLogin.status).toBe(302);
    const loginUrl = new URL(toLogin.location ?? "", t.url);
    expect(loginUrl.pathname).toBe("/login");

    const login = await browser.get(loginUrl.pathname + loginUrl.search);
    expect(login.status).toBe(200);
    expect(login.text).toContain('<label for="email">Email</label>');
    expect(login.text).toContain('<label for="password">Password</label>');
    expect(login.text).toContain("Sign in</button>");
    const signedIn = await browser.submit(login, {
      email: vendor.email,
      password: "correct horse battery staple",
    });
    expect(signedIn.status).toBe(303);
    expect(new URL(signedIn.location ?? "", t.url).toString()).toBe(new URL(start, t.url).toString());

    const consent = await browser.get(signedIn.location ?? "");
    expect(consent.status).toBe(200);
    expect(consent.text).toContain("Bridal POS");
    expect(consent.text).toContain("Read your orders and their status history");
    expect(consent.text).toContain("Create orders and update their status");
    expect(consent.text).toMatch(/<button[^>]*value="allow">Allow<\/button>/);
    expect(consent.text).toMatch(/<button[^>]*value="deny">Deny<\/button>/);

    const allowed = await browser.submit(consent, { decision: "allow" });
    expect(allowed.status).toBe(303);
    const params = redirectParams(allowed);
    expect(params.get("state")).toBe("xyz-state");
    expect(params.get("iss")).toBe(t.url);
    const code = params.get("code") ?? "";

    const token = await exchangeCode(t, client, code, verifier);
    expect(token.status).toBe(200);
    expect(token.headers.get("cache-control")).toBe("no-store");
    expect(token.body).toEqual({
      access_token: expect.stringMatching(/^vat_/),
      token_type: "Bearer",
      expires_in: 3600,
      refresh_token: expect.stringMatching(/^vrt_/),
      scope: "orders:read orders:write",
    });

    const created = await t.api.post(
      "/api/vendor/orders",
      { customerName: "Ana", type: "BRIDAL_DRESS", customerEmail: "ana@example.com" },
      { token: token.body.access_token },
    );
    expect(created.status).toBe(201);
    const list = await t.api.get("/api/vendor/orders", { token: token.body.access_token });
    expect(list.status).toBe(200);
    expect(list.body.orders.map((o: { id: string }) => o.id)).toEqual([created.body.id]);
  });

  it("clicking Deny redirects with access_denied, state and iss, and no code", async () => {
    const client = await createClient(t.ctx);
    const vendor = await createVendor(t.ctx);
    const browser = await signedInBrowser(t, vendor.email);
    const consent = await browser.get(authorizePath(validParams(client, pkcePair().challenge)));
    const denied = await browser.submit(consent, { decision: "deny" });
    expect(denied.status).toBe(303);
    const params = redirectParams(denied);
    expect(params.get("error")).toBe("access_denied");
    expect(params.get("state")).toBe("xyz-state");
    expect(params.get("iss")).toBe(t.url);
    expect(params.has("code")).toBe(false);
  });

  it("the consent POST without the page's CSRF token is refused and issues no code", async () => {
    const client = await createClient(t.ctx);
    const vendor = await createVendor(t.ctx);
    const browser = await signedInBrowser(t, vendor.email);
    const res = await browser.post("/api/oauth/authorize", {
      ...validParams(client, pkcePair().challenge),
      decision: "allow",
    });
    expect(res.status).toBe(403);
    expect(res.location).toBeNull();
  });

  it("the redirect keeps the query the redirect URI was registered with", async () => {
    const uri = "https://client.example/cb?tenant=7";
    const client = await createClient(t.ctx, [uri]);
    const vendor = await createVendor(t.ctx);
    const browser = await signedInBrowser(t, vendor.email);
    const consent = await browser.get(
      authorizePath(validParams(client, pkcePair().challenge, { redirect_uri: uri })),
    );
    const res = await browser.submit(consent, { decision: "allow" });
    const url = new URL(res.location ?? "");
    expect(url.searchParams.get("tenant")).toBe("7");
    expect(url.searchParams.get("code")).toMatch(/^vac_/);
    expect(REDIRECT_URI).not.toBe(uri);
  });

  it("the consent page escapes what the application registered: a name with markup is shown as text", async () => {
    const owner = await createVendor(t.ctx);
    const { application } = await createApplication(t.ctx, owner.id, {
      name: '<script>alert("x")</script><img src=x>',
      redirectUris: [REDIRECT_URI],
      public: true,
    });
    const vendor = await createVendor(t.ctx);
    const browser = await signedInBrowser(t, vendor.email);
    const consent = await browser.get(
      authorizePath(validParams({ clientId: application.clientId } as never, pkcePair().challenge)),
    );
    expect(consent.status).toBe(200);
    expect(consent.text).not.toContain("<script>");
    expect(consent.text).not.toContain("<img");
    expect(consent.text).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
  });
});
