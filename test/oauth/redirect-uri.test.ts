import { describe, expect, it } from "vitest";
import { redirectUriProblem } from "../../src/modules/applications/applications.service.ts";
import { createVendor } from "../helpers/factories.ts";
import { authorizePath, createClient, pkcePair, signedInBrowser, validParams } from "../helpers/oauth.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

const REGISTERED = "https://client.example:8443/oauth/callback";

describe("the redirect URI must match a registered one exactly (spec 5 rule 1, RFC 9700 2.1)", () => {
  const variants: Array<[string, string]> = [
    ["different case in the path", "https://client.example:8443/OAuth/callback"],
    ["different case in the host", "https://CLIENT.example:8443/oauth/callback"],
    ["a different port", "https://client.example:9443/oauth/callback"],
    ["no port", "https://client.example/oauth/callback"],
    ["a trailing slash", "https://client.example:8443/oauth/callback/"],
    ["an added query", "https://client.example:8443/oauth/callback?next=/admin"],
    ["an empty query", "https://client.example:8443/oauth/callback?"],
    ["a fragment", "https://client.example:8443/oauth/callback#x"],
    ["http instead of https", "http://client.example:8443/oauth/callback"],
    ["a longer path", "https://client.example:8443/oauth/callback/evil"],
    ["a sub-domain", "https://evil.client.example:8443/oauth/callback"],
  ];
  for (const [what, uri] of variants) {
    it(`a redirect_uri with ${what} answers an HTML 400 page and never redirects`, async () => {
      const client = await createClient(t.ctx, [REGISTERED]);
      const res = await t.api.get(
        authorizePath(validParams(client, pkcePair().challenge, { redirect_uri: uri })),
      );
      expect(res.status).toBe(400);
      expect(res.headers.get("location")).toBeNull();
      expect(res.headers.get("content-type")).toMatch(/^text\/html/);
      expect(res.text).toContain("not registered");
    });
  }

  it("the registered URI itself, character for character, reaches the consent page", async () => {
    const client = await createClient(t.ctx, ["https://other.example/cb", REGISTERED]);
    const vendor = await createVendor(t.ctx);
    const browser = await signedInBrowser(t, vendor.email);
    const res = await browser.get(
      authorizePath(validParams(client, pkcePair().challenge, { redirect_uri: REGISTERED })),
    );
    expect(res.status).toBe(200);
    expect(res.text).toContain("Allow");
  });

  it("a missing redirect_uri answers the HTML 400 page, not a redirect to a registered URI", async () => {
    const client = await createClient(t.ctx, [REGISTERED]);
    const res = await t.api.get(
      authorizePath(validParams(client, pkcePair().challenge, { redirect_uri: undefined })),
    );
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
  });
});

describe("redirect URIs are validated at registration: https, or http on loopback only", () => {
  it.each([
    "https://client.example/cb",
    "https://client.example:8443/cb?tenant=1",
    "http://localhost:3000/cb",
    "http://127.0.0.1:8080/cb",
    "http://[::1]:8080/cb",
  ])("accepts %s", (uri) => {
    expect(redirectUriProblem(uri)).toBeUndefined();
  });

  it.each([
    ["http on a public host", "http://client.example/cb"],
    ["http on a private address", "http://192.168.1.10/cb"],
    ["a custom scheme", "javascript:alert(1)"],
    ["a relative URI", "/cb"],
    ["a fragment", "https://client.example/cb#frag"],
    ["credentials", "https://user:pw@client.example/cb"],
  ])("refuses %s", (_what, uri) => {
    expect(redirectUriProblem(uri)).toEqual(expect.any(String));
  });

  it("createApplication refuses an application whose redirect URI is not acceptable", async () => {
    await expect(
      createClient(t.ctx, ["https://ok.example/cb", "http://client.example/cb"]),
    ).rejects.toMatchObject({
      code: "validation_failed",
    });
  });
});
