import { describe, expect, it } from "vitest";
import { allScopes } from "../../src/auth/scopes.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

describe("GET /.well-known/oauth-authorization-server (RFC 8414)", () => {
  it("describes the issuer, the endpoints, the grants, client authentication, PKCE S256 and iss", async () => {
    const res = await t.api.get("/.well-known/oauth-authorization-server");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      issuer: t.url,
      authorization_endpoint: `${t.url}/api/oauth/authorize`,
      token_endpoint: `${t.url}/api/oauth/token`,
      revocation_endpoint: `${t.url}/api/oauth/revoke`,
      scopes_supported: allScopes,
      response_types_supported: ["code"],
      response_modes_supported: ["query"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
      revocation_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
      code_challenge_methods_supported: ["S256"],
      authorization_response_iss_parameter_supported: true,
      service_documentation: `${t.url}/docs`,
    });
  });

  it("the issuer has no trailing slash, so the iss on redirects compares equal to it (RFC 9207 2.4)", async () => {
    const res = await t.api.get("/.well-known/oauth-authorization-server");
    expect(res.body.issuer.endsWith("/")).toBe(false);
  });
});
