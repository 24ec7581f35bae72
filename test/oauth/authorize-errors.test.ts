import { describe, expect, it } from "vitest";
import { createVendor } from "../helpers/factories.ts";
import {
  authorizePath,
  createClient,
  pkcePair,
  REDIRECT_URI,
  redirectParams,
  signedInBrowser,
  validParams,
} from "../helpers/oauth.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

async function authorizeAs(query: string) {
  const vendor = await createVendor(t.ctx);
  const browser = await signedInBrowser(t, vendor.email);
  return browser.get(`/api/oauth/authorize?${query}`);
}

function query(params: Record<string, string | undefined>): string {
  return authorizePath(params).split("?")[1] ?? "";
}

describe("authorization errors that must not redirect (RFC 6749 4.1.2.1)", () => {
  it("an unknown client_id answers an HTML 400 page and never redirects", async () => {
    const client = await createClient(t.ctx);
    const res = await authorizeAs(
      query(validParams(client, pkcePair().challenge, { client_id: "app_unknown" })),
    );
    expect(res.status).toBe(400);
    expect(res.location).toBeNull();
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
  });

  it("a missing client_id answers an HTML 400 page", async () => {
    const client = await createClient(t.ctx);
    const res = await authorizeAs(query(validParams(client, pkcePair().challenge, { client_id: undefined })));
    expect(res.status).toBe(400);
    expect(res.location).toBeNull();
  });

  it("a client_id given twice answers an HTML 400 page (which client would it be?)", async () => {
    const client = await createClient(t.ctx);
    const res = await authorizeAs(
      `${query(validParams(client, pkcePair().challenge))}&client_id=${client.clientId}`,
    );
    expect(res.status).toBe(400);
    expect(res.location).toBeNull();
  });

  it("a redirect_uri given twice answers an HTML 400 page", async () => {
    const client = await createClient(t.ctx);
    const res = await authorizeAs(
      `${query(validParams(client, pkcePair().challenge))}&redirect_uri=${encodeURIComponent(REDIRECT_URI)}`,
    );
    expect(res.status).toBe(400);
    expect(res.location).toBeNull();
  });

  it("the error page escapes nothing it was given: no request value is echoed into the HTML", async () => {
    const client = await createClient(t.ctx);
    const res = await authorizeAs(
      query(
        validParams(client, pkcePair().challenge, {
          redirect_uri: "https://x.example/<script>alert(1)</script>",
        }),
      ),
    );
    expect(res.status).toBe(400);
    expect(res.text).not.toContain("<script>");
  });
});

describe("authorization errors redirect to the client with error, error_description, state and iss", () => {
  const cases: Array<[string, Record<string, string | undefined>, string]> = [
    ["a missing response_type is invalid_request", { response_type: undefined }, "invalid_request"],
    [
      "response_type=token is unsupported_response_type",
      { response_type: "token" },
      "unsupported_response_type",
    ],
    [
      "response_type=code token is unsupported_response_type",
      { response_type: "code token" },
      "unsupported_response_type",
    ],
    ["a missing scope is invalid_scope", { scope: undefined }, "invalid_scope"],
    ["an unknown scope is invalid_scope", { scope: "orders:read admin" }, "invalid_scope"],
    [
      "a missing code_challenge is invalid_request (PKCE required)",
      { code_challenge: undefined },
      "invalid_request",
    ],
    ["code_challenge_method=plain is invalid_request", { code_challenge_method: "plain" }, "invalid_request"],
    [
      "a missing code_challenge_method is invalid_request",
      { code_challenge_method: undefined },
      "invalid_request",
    ],
  ];
  for (const [rule, overrides, error] of cases) {
    it(rule, async () => {
      const client = await createClient(t.ctx);
      const res = await authorizeAs(query(validParams(client, pkcePair().challenge, overrides)));
      expect(res.status).toBe(302);
      const params = redirectParams(res);
      expect(params.get("error")).toBe(error);
      expect(params.get("error_description")).toEqual(expect.any(String));
      expect(params.get("state")).toBe("xyz-state");
      expect(params.get("iss")).toBe(t.url);
      expect(params.has("code")).toBe(false);
    });
  }

  it.each(["scope", "state", "response_type", "code_challenge", "code_challenge_method"])(
    "a parameter given twice (%s) is invalid_request",
    async (name) => {
      const client = await createClient(t.ctx);
      const params = validParams(client, pkcePair().challenge);
      const res = await authorizeAs(
        `${query(params)}&${name}=${encodeURIComponent((params as Record<string, string>)[name] ?? "")}`,
      );
      expect(res.status).toBe(302);
      const back = redirectParams(res);
      expect(back.get("error")).toBe("invalid_request");
      expect(back.get("iss")).toBe(t.url);
    },
  );

  it("errors are redirected before sign-in too: a vendor not signed in is not asked to sign in for a bad request", async () => {
    const client = await createClient(t.ctx);
    const res = await t.api.get(
      authorizePath(validParams(client, pkcePair().challenge, { response_type: "token" })),
    );
    expect(res.status).toBe(302);
    expect(new URL(res.headers.get("location") ?? "").searchParams.get("error")).toBe(
      "unsupported_response_type",
    );
  });

  it("a tampered consent form is validated again: an unknown scope smuggled into the POST is invalid_scope", async () => {
    const client = await createClient(t.ctx);
    const vendor = await createVendor(t.ctx);
    const browser = await signedInBrowser(t, vendor.email);
    const consent = await browser.get(authorizePath(validParams(client, pkcePair().challenge)));
    const res = await browser.submit(consent, { decision: "allow", scope: "orders:read root" });
    expect(res.status).toBe(303);
    expect(redirectParams(res).get("error")).toBe("invalid_scope");
  });
});

describe("the authorize, sign-in and consent pages resist framing and leak no referrer (CONTRACT 6)", () => {
  function expectPageHeaders(headers: Headers) {
    expect(headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(headers.get("x-frame-options")).toBe("DENY");
    expect(headers.get("referrer-policy")).toBe("no-referrer");
  }

  it("the consent page, the authorize redirect, the authorize error page and the sign-in page send the headers", async () => {
    const client = await createClient(t.ctx);
    const vendor = await createVendor(t.ctx);
    const browser = await signedInBrowser(t, vendor.email);
    const consent = await browser.get(authorizePath(validParams(client, pkcePair().challenge)));
    expect(consent.status).toBe(200);
    expectPageHeaders(consent.headers);
    expect(consent.text).not.toMatch(/<script|https?:\/\/(?!client\.example)/);

    const allowed = await browser.submit(consent, { decision: "allow" });
    expect(allowed.status).toBe(303);
    expectPageHeaders(allowed.headers);

    const bad = await t.api.get(
      authorizePath(validParams(client, pkcePair().challenge, { client_id: "app_nope" })),
    );
    expectPageHeaders(bad.headers);

    const login = await t.api.get("/login");
    expectPageHeaders(login.headers);
    expect(login.text).not.toMatch(/<script|<link|src=/);
  });
});
