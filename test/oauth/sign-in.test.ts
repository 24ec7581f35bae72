import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SESSION_COOKIE } from "../../src/web/session.ts";
import { Browser } from "../helpers/browser.ts";
import { createVendor, TEST_PASSWORD } from "../helpers/factories.ts";
import { authorizePath, createClient, pkcePair, validParams } from "../helpers/oauth.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";

let t: TestApp;
beforeAll(async () => {
  // A small per-address budget so the address limit is reachable; other tests use fresh e-mails
  // and mostly succeed, and only failures count.
  t = await startTestApp({ config: { signInFailuresPerAddress: 12, signInFailuresPerAccount: 3 } });
});
afterAll(() => t.close());

async function signInPage(browser: Browser, returnTo?: string) {
  return browser.get(returnTo === undefined ? "/login" : `/login?return_to=${encodeURIComponent(returnTo)}`);
}

describe("vendor sign-in at /login (CONTRACT 6 and 9)", () => {
  it("the page has labelled Email and Password fields and a Sign in button, and sets no session", async () => {
    const browser = new Browser(t.url);
    const page = await signInPage(browser);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.text).toMatch(/<label for="email">Email<\/label>\s*<input id="email" name="email"/);
    expect(page.text).toMatch(
      /<label for="password">Password<\/label>\s*<input id="password" name="password" type="password"/,
    );
    expect(page.text).toContain('<button type="submit">Sign in</button>');
    expect(browser.cookies.has(SESSION_COOKIE)).toBe(false);
  });

  it("a correct sign-in answers 303 and sets an HttpOnly, SameSite=Lax session cookie (not Secure outside production)", async () => {
    const vendor = await createVendor(t.ctx);
    const browser = new Browser(t.url);
    const page = await signInPage(browser);
    const res = await browser.submit(page, { email: vendor.email, password: TEST_PASSWORD });
    expect(res.status).toBe(303);
    expect(res.location).toBe("/dashboard");
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`)) ?? "";
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).not.toMatch(/Secure/i);
    expect(cookie).toMatch(/Path=\//);
  });

  it("the e-mail is matched without regard to case", async () => {
    const vendor = await createVendor(t.ctx);
    const browser = new Browser(t.url);
    const res = await browser.submit(await signInPage(browser), {
      email: vendor.email.toUpperCase(),
      password: TEST_PASSWORD,
    });
    expect(res.status).toBe(303);
  });

  it("a wrong password or an unknown e-mail shows the form again with one message and sets no session", async () => {
    const vendor = await createVendor(t.ctx);
    for (const [email, password] of [
      [vendor.email, "wrong password!"],
      [`nobody-${Date.now()}@example.test`, TEST_PASSWORD],
    ]) {
      const browser = new Browser(t.url);
      const res = await browser.submit(await signInPage(browser), {
        email: email ?? "",
        password: password ?? "",
      });
      expect(res.status).toBe(401);
      expect(res.text).toContain("The e-mail or password is not correct.");
      expect(browser.cookies.has(SESSION_COOKIE)).toBe(false);
    }
  });

  it("the sign-in POST without the CSRF token, or with another browser's, is refused with 403", async () => {
    const vendor = await createVendor(t.ctx);
    const browser = new Browser(t.url);
    await signInPage(browser);
    const missing = await browser.post("/login", { email: vendor.email, password: TEST_PASSWORD });
    expect(missing.status).toBe(403);
    const other = new Browser(t.url);
    const otherPage = await signInPage(other);
    const token = /name="_csrf" value="([^"]+)"/.exec(otherPage.text)?.[1] ?? "";
    const foreign = await browser.post("/login", {
      email: vendor.email,
      password: TEST_PASSWORD,
      _csrf: token,
    });
    expect(foreign.status).toBe(403);
    expect(browser.cookies.has(SESSION_COOKIE)).toBe(false);
  });

  it("the session is rotated at sign-in: a new id is issued and the previous one stops working", async () => {
    const vendor = await createVendor(t.ctx);
    const first = new Browser(t.url);
    await first.submit(await signInPage(first), { email: vendor.email, password: TEST_PASSWORD });
    const before = first.cookies.get(SESSION_COOKIE);
    expect(before).toBeTruthy();
    await first.submit(await signInPage(first), { email: vendor.email, password: TEST_PASSWORD });
    const after = first.cookies.get(SESSION_COOKIE);
    expect(after).toBeTruthy();
    expect(after).not.toBe(before);
    // The old id no longer signs anyone in.
    const stale = new Browser(t.url);
    stale.cookies.set(SESSION_COOKIE, before ?? "");
    const client = await createClient(t.ctx);
    const res = await stale.get(authorizePath(validParams(client, pkcePair().challenge)));
    expect(res.status).toBe(302);
    expect(res.location).toMatch(/^\/login/);
  });

  it("the CSRF secret is renewed at sign-in: a token from before sign-in no longer passes", async () => {
    const vendor = await createVendor(t.ctx);
    const browser = new Browser(t.url);
    const page = await signInPage(browser);
    const before = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? "";
    const signedIn = await browser.submit(page, { email: vendor.email, password: TEST_PASSWORD });
    expect(signedIn.status).toBe(303);
    const stale = await browser.post("/logout", { _csrf: before });
    expect(stale.status).toBe(403);
    expect(browser.cookies.has(SESSION_COOKIE)).toBe(true);
  });

  it("sign-out deletes the session: the cookie is cleared and the old id stops working", async () => {
    const vendor = await createVendor(t.ctx);
    const browser = new Browser(t.url);
    await browser.submit(await signInPage(browser), { email: vendor.email, password: TEST_PASSWORD });
    const id = browser.cookies.get(SESSION_COOKIE) ?? "";
    const csrf = /name="_csrf" value="([^"]+)"/.exec((await signInPage(browser)).text)?.[1] ?? "";
    const out = await browser.post("/logout", { _csrf: csrf });
    expect(out.status).toBe(303);
    expect(browser.cookies.has(SESSION_COOKIE)).toBe(false);
    const replay = new Browser(t.url);
    replay.cookies.set(SESSION_COOKIE, id);
    const client = await createClient(t.ctx);
    const res = await replay.get(authorizePath(validParams(client, pkcePair().challenge)));
    expect(res.status).toBe(302);
    expect(res.location).toMatch(/^\/login/);
  });

  it.each([
    ["//evil.example/x", "/dashboard"],
    ["/\\evil.example", "/dashboard"],
    ["https://evil.example/", "/dashboard"],
    ["javascript:alert(1)", "/dashboard"],
    // Dot segments the URL parser removes would leave a protocol-relative "//host".
    ["/.//evil.example", "/dashboard"],
    ["/%2e//evil.example/x", "/dashboard"],
    ["/a/..//evil.example", "/dashboard"],
    ["/api/oauth/authorize?client_id=app_x&scope=a%20b", "/api/oauth/authorize?client_id=app_x&scope=a%20b"],
  ])("no open redirect: return_to=%s sends the vendor to %s after sign-in", async (returnTo, expected) => {
    const vendor = await createVendor(t.ctx);
    const browser = new Browser(t.url);
    const res = await browser.submit(await signInPage(browser, returnTo), {
      email: vendor.email,
      password: TEST_PASSWORD,
    });
    expect(res.status).toBe(303);
    expect(res.location).toBe(expected);
  });

  it.each(["/.//evil.example", "/%2e//evil.example/x", "/a/..//evil.example", "//evil.example"])(
    "no open redirect: return_to=%s posted with the form sends the vendor to /dashboard",
    async (returnTo) => {
      const vendor = await createVendor(t.ctx);
      const browser = new Browser(t.url);
      const res = await browser.submit(await signInPage(browser), {
        email: vendor.email,
        password: TEST_PASSWORD,
        return_to: returnTo,
      });
      expect(res.status).toBe(303);
      expect(res.location).toBe("/dashboard");
    },
  );

  it("failures are throttled per account and address: past the limit even the right password from that address is refused with 429 and Retry-After", async () => {
    const vendor = await createVendor(t.ctx);
    const browser = new Browser(t.url);
    for (let i = 0; i < 3; i++) {
      const res = await browser.submit(await signInPage(browser), {
        email: vendor.email,
        password: `wrong ${i} password`,
      });
      expect(res.status).toBe(401);
    }
    const blocked = await browser.submit(await signInPage(browser), {
      email: vendor.email,
      password: TEST_PASSWORD,
    });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(browser.cookies.has(SESSION_COOKIE)).toBe(false);
    // Another account from the same address is not locked by it.
    const other = await createVendor(t.ctx);
    const ok = await browser.submit(await signInPage(browser), {
      email: other.email,
      password: TEST_PASSWORD,
    });
    expect(ok.status).toBe(303);
  });
});

describe("sign-in in production mode", () => {
  let prod: TestApp;
  beforeAll(async () => {
    prod = await startTestApp({
      env: { NODE_ENV: "production", SESSION_SECRET: "s".repeat(40) },
      config: { logLevel: "silent", signInFailuresPerAddress: 4, signInFailuresPerAccount: 100 },
    });
  });
  afterAll(() => prod.close());

  it("the session and CSRF cookies are Secure in production", async () => {
    const vendor = await createVendor(prod.ctx);
    const browser = new Browser(prod.url);
    const page = await browser.get("/login");
    expect(page.headers.getSetCookie().find((c) => c.startsWith("__Host-vendor_csrf="))).toMatch(/; Secure/i);
    const res = await browser.submit(page, { email: vendor.email, password: TEST_PASSWORD });
    expect(res.status).toBe(303);
    // __Host- names: browsers refuse them without Secure and Path=/, or with a Domain.
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith(`__Host-${SESSION_COOKIE}=`)) ?? "";
    expect(cookie).toMatch(/; Secure/i);
    expect(cookie).toMatch(/; Path=\//i);
    expect(cookie).not.toMatch(/Domain=/i);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
  });

  it("failures are throttled per client address: many accounts guessed from one address end in 429", async () => {
    const browser = new Browser(prod.url);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const page = await browser.get("/login");
      const res = await browser.submit(page, {
        email: `guess-${i}@example.test`,
        password: "guess guess guess",
      });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 429, 429]);
    const vendor = await createVendor(prod.ctx);
    const blocked = await browser.submit(await browser.get("/login"), {
      email: vendor.email,
      password: TEST_PASSWORD,
    });
    expect(blocked.status).toBe(429);
  });
});
