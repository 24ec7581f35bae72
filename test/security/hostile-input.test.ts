// Input that once gave a 500 outside /api/vendor: non-Latin-1 characters in return_to,
// U+0000 and over-long values at the OAuth endpoints, the authorization page and sign-in. Each
// is refused (or re-serialised) before any query: a 4xx, never a 500.
import { describe, expect, it } from "vitest";
import { Browser } from "../helpers/browser.ts";
import { createVendor, TEST_PASSWORD } from "../helpers/factories.ts";
import { createClient } from "../helpers/oauth.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

const form = (values: Record<string, string>) => new URLSearchParams(values).toString();
const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`;

async function post(path: string, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(t.url + path, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body,
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

describe("return_to with characters above U+00FF", () => {
  it("signs the vendor in and sends them to the same path, percent-encoded, with the page headers", async () => {
    const vendor = await createVendor(t.ctx);
    const browser = new Browser(t.url);
    const page = await browser.get("/login?return_to=/dashboard/orders?q=%E4%B8%AD");
    expect(page.status).toBe(200);
    const res = await browser.submit(page, { email: vendor.email, password: TEST_PASSWORD });
    expect(res.status).toBe(303);
    expect(res.location).toBe("/dashboard/orders?q=%E4%B8%AD");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect((await browser.get(res.location ?? "")).status).toBe(200);
  });
});

describe("U+0000 and over-long values are refused before any query", () => {
  const nul = "app_x\u0000";
  const long = `app_${"x".repeat(10_000)}`;

  for (const path of ["/api/oauth/token", "/api/oauth/revoke"]) {
    it(`${path}: client_id with NUL or over-long in the body is invalid_request (400)`, async () => {
      for (const clientId of [nul, long]) {
        const res = await post(
          path,
          form({ grant_type: "authorization_code", token: "t", client_id: clientId, client_secret: "s" }),
        );
        expect(res.status).toBe(400);
        expect(JSON.parse(res.text).error).toBe("invalid_request");
      }
    });

    it(`${path}: client_id with NUL or over-long in HTTP Basic is 401 invalid_client`, async () => {
      for (const clientId of [nul, long]) {
        const res = await post(path, form({ grant_type: "authorization_code", token: "t" }), {
          authorization: basic(clientId, "s"),
        });
        expect(res.status).toBe(401);
        expect(JSON.parse(res.text).error).toBe("invalid_client");
      }
    });

    it(`${path}: NUL in any other parameter is invalid_request`, async () => {
      const client = await createClient(t.ctx);
      const res = await post(
        path,
        form({
          grant_type: "refresh_token",
          refresh_token: "vrt_\u0000",
          token: "vat_\u0000",
          state: "\u0000",
        }),
        { authorization: basic(client.clientId, client.clientSecret) },
      );
      expect(res.status).toBe(400);
      expect(JSON.parse(res.text).error).toBe("invalid_request");
    });
  }

  it("/api/oauth/authorize: client_id with NUL or over-long is the HTML 400 page, no redirect", async () => {
    for (const clientId of [nul, long]) {
      const res = await fetch(`${t.url}/api/oauth/authorize?${form({ client_id: clientId })}`, {
        redirect: "manual",
      });
      expect(res.status).toBe(400);
      expect(res.headers.get("location")).toBeNull();
      expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    }
  });

  it("/login: an e-mail with NUL or over-long is a wrong sign-in (401 page), not a 500", async () => {
    for (const email of ["a\u0000@example.com", `${"a".repeat(10_000)}@example.com`]) {
      const browser = new Browser(t.url);
      const page = await browser.get("/login");
      const res = await browser.submit(page, { email, password: "whatever" });
      expect(res.status).toBe(401);
      expect(res.text).toContain("not correct");
    }
  });
});
