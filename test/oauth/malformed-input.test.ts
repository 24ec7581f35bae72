// No input may produce a 500 (CONTRACT 2): malformed bodies, encodings and headers at the OAuth
// endpoints and pages answer 4xx in the endpoint's own error format.
import { describe, expect, it } from "vitest";
import { createClient } from "../helpers/oauth.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

async function raw(method: string, path: string, body?: string, headers: Record<string, string> = {}) {
  const res = await fetch(t.url + path, { method, body, headers, redirect: "manual" });
  return { status: res.status, type: res.headers.get("content-type") ?? "", text: await res.text() };
}

const FORM = { "content-type": "application/x-www-form-urlencoded" };

describe("malformed input never produces a 500", () => {
  it("the token and revocation endpoints answer RFC 6749 errors for broken bodies and headers", async () => {
    const client = await createClient(t.ctx);
    const creds = `client_id=${client.clientId}&client_secret=${client.clientSecret}`;
    const cases: Array<[string, string | undefined, Record<string, string>]> = [
      ["bad percent-encoding", `${creds}&grant_type=authorization_code&code=%E0%A4%A`, FORM],
      [
        "a huge code",
        `${creds}&grant_type=authorization_code&code=${"a".repeat(100_000)}&redirect_uri=x&code_verifier=${"a".repeat(43)}`,
        FORM,
      ],
      ["no body", undefined, {}],
      ["an empty form", "", FORM],
      ["text/plain", "grant_type=refresh_token", { "content-type": "text/plain" }],
      ["garbage Basic", "grant_type=refresh_token&refresh_token=x", { ...FORM, authorization: "Basic !!!" }],
      [
        "Basic without a colon",
        "grant_type=refresh_token",
        { ...FORM, authorization: `Basic ${Buffer.from("nocolon").toString("base64")}` },
      ],
      [
        "Basic with bad percent-encoding",
        "grant_type=refresh_token",
        { ...FORM, authorization: `Basic ${Buffer.from("%E0%A4%A:x").toString("base64")}` },
      ],
      ["a Bearer header", "grant_type=refresh_token", { ...FORM, authorization: "Bearer vat_x" }],
      [
        "__proto__ fields",
        `${creds}&__proto__=x&constructor=y&grant_type=refresh_token&refresh_token=vrt_x`,
        FORM,
      ],
    ];
    for (const path of ["/api/oauth/token", "/api/oauth/revoke"]) {
      for (const [what, body, headers] of cases) {
        const res = await raw("POST", path, body, headers);
        expect(res.status, `${path} ${what}`).toBeGreaterThanOrEqual(200);
        expect(res.status, `${path} ${what}`).toBeLessThan(500);
        if (res.status >= 400) {
          expect(JSON.parse(res.text), `${path} ${what}`).toEqual({
            error: expect.any(String),
            error_description: expect.any(String),
          });
        }
      }
    }
  });

  it("the pages answer HTML 4xx for broken requests", async () => {
    const cases: Array<[string, string, string | undefined, Record<string, string>]> = [
      ["POST", "/login", '{"email":"a"}', { "content-type": "application/json" }],
      ["POST", "/login", "email=%E0%A4%A", FORM],
      ["POST", "/login", "email=a&email=b&password=x", FORM],
      ["POST", "/api/oauth/authorize", "client_id=x", FORM],
      ["GET", "/api/oauth/authorize?client_id=%E0%A4%A", undefined, {}],
      ["GET", "/api/oauth/authorize?client_id=app_x&client_id=app_y", undefined, {}],
      ["GET", `/api/oauth/authorize?client_id=${"a".repeat(5000)}`, undefined, {}],
      ["GET", "/login?return_to=%00%0d%0a", undefined, {}],
    ];
    for (const [method, path, body, headers] of cases) {
      const res = await raw(method, path, body, headers);
      expect(res.status, `${method} ${path}`).toBeLessThan(500);
      expect(res.type, `${method} ${path}`).toMatch(/^text\/html/);
    }
  });

  it("a session cookie that is garbage is treated as no session", async () => {
    const client = await createClient(t.ctx);
    const res = await raw(
      "GET",
      `/api/oauth/authorize?response_type=code&client_id=${client.clientId}&redirect_uri=${encodeURIComponent("https://client.example/callback")}&scope=orders:read&code_challenge=${"a".repeat(43)}&code_challenge_method=S256`,
      undefined,
      { cookie: `vendor_session=${"%".repeat(300)}; vendor_csrf=%%%` },
    );
    expect(res.status).toBe(302);
  });
});
