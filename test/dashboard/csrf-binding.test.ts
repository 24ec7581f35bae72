// CSRF tokens are bound to the session: a CSRF secret cookie minted anonymously
// (GET /login) and planted in a victim's browser forges nothing; a token-bearing POST from
// another origin or site is refused as a second line.
import { describe, expect, it } from "vitest";
import { listApiKeysOfVendor } from "../../src/modules/api-keys/api-keys.service.ts";
import { Browser, hiddenFields } from "../helpers/browser.ts";
import { csrfOf, signedInVendor } from "../helpers/dashboard.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

const KEYS = "/dashboard/integrations/api-keys";

async function rawPost(path: string, form: Record<string, string>, headers: Record<string, string>) {
  return fetch(t.url + path, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(form).toString(),
  });
}

describe("CSRF tokens bound to the session", () => {
  it("a planted CSRF cookie with its anonymously minted token does not create an API key", async () => {
    const { vendor, browser } = await signedInVendor(t);
    // The attacker mints a secret cookie and a token for it without signing in.
    const attacker = new Browser(t.url);
    const login = await attacker.get("/login");
    const token = hiddenFields(login.text)._csrf ?? "";
    const plantedCsrf = [...attacker.cookies].find(([name]) => name.includes("csrf"));
    if (!plantedCsrf) throw new Error("no csrf cookie");
    // The victim's browser carries its session and the planted CSRF cookie.
    const session = [...browser.cookies].find(([name]) => name.includes("session"));
    const cookie = `${session?.[0]}=${session?.[1]}; ${plantedCsrf[0]}=${plantedCsrf[1]}`;
    const res = await rawPost(KEYS, { _csrf: token, name: "forged" }, { cookie });
    expect(res.status).toBe(403);
    expect(await listApiKeysOfVendor(t.ctx, vendor.id)).toHaveLength(0);
  });

  it("a token from one session does not pass in another session of the same browser cookie jar", async () => {
    const first = await signedInVendor(t);
    const page = await first.browser.get(KEYS);
    const token = csrfOf(page);
    const second = await signedInVendor(t);
    for (const [name, value] of first.browser.cookies)
      if (name.includes("csrf")) second.browser.cookies.set(name, value);
    const res = await second.browser.post(KEYS, { _csrf: token, name: "forged" });
    expect(res.status).toBe(403);
    expect(await listApiKeysOfVendor(t.ctx, second.vendor.id)).toHaveLength(0);
  });

  it("the vendor's own form still works", async () => {
    const { vendor, browser } = await signedInVendor(t);
    const page = await browser.get(KEYS);
    const res = await browser.post(KEYS, { _csrf: csrfOf(page), name: "mine" });
    expect(res.status).toBe(303);
    expect(await listApiKeysOfVendor(t.ctx, vendor.id)).toHaveLength(1);
  });
});

describe("Origin and Sec-Fetch-Site as a second line", () => {
  for (const [what, headers] of [
    ["Origin: https://evil.example", { origin: "https://evil.example" }],
    ["Sec-Fetch-Site: cross-site", { "sec-fetch-site": "cross-site" }],
    ["Sec-Fetch-Site: same-site", { "sec-fetch-site": "same-site" }],
  ] as const) {
    it(`a POST with a valid token but ${what} is refused (403) and changes nothing`, async () => {
      const { vendor, browser } = await signedInVendor(t);
      const page = await browser.get(KEYS);
      const cookie = [...browser.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
      const res = await rawPost(KEYS, { _csrf: csrfOf(page), name: "forged" }, { cookie, ...headers });
      expect(res.status).toBe(403);
      expect(await listApiKeysOfVendor(t.ctx, vendor.id)).toHaveLength(0);
    });
  }

  it("a POST from our own origin (Origin and Sec-Fetch-Site: same-origin) is accepted", async () => {
    const { vendor, browser } = await signedInVendor(t);
    const page = await browser.get(KEYS);
    const cookie = [...browser.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    const res = await rawPost(
      KEYS,
      { _csrf: csrfOf(page), name: "mine" },
      { cookie, origin: t.url, "sec-fetch-site": "same-origin" },
    );
    expect(res.status).toBe(303);
    expect(await listApiKeysOfVendor(t.ctx, vendor.id)).toHaveLength(1);
  });

  it("the sign-in form from another origin is refused too (login CSRF)", async () => {
    const attacker = new Browser(t.url);
    const login = await attacker.get("/login");
    const cookie = [...attacker.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    const res = await rawPost(
      "/login",
      { ...hiddenFields(login.text), email: "a@example.com", password: "x" },
      { cookie, origin: "https://evil.example" },
    );
    expect(res.status).toBe(403);
  });
});
