// Sign-up at /signup and password reset by a one-time link (CONTRACT 9), through real HTTP:
// CSRF on every form, 303 after every POST, the reset link single use, expiring, stored only as
// a hash, and a reset revoking every OAuth grant and dashboard session (CONTRACT 6).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createPasswordResetLink,
  RESET_LINK_TTL_MS,
} from "../../src/modules/members/password-reset.service.ts";
import { Browser } from "../helpers/browser.ts";
import { csrfOf, postFrom } from "../helpers/dashboard.ts";
import { createVendorWithKey, TEST_PASSWORD } from "../helpers/factories.ts";
import { createClient, obtainTokens, refresh, signedInBrowser } from "../helpers/oauth.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";

let t: TestApp;
let now = Date.now();
beforeAll(async () => {
  t = await startTestApp({ now: () => new Date(now), config: { signInRateLimitPerMinute: 1000 } });
});
afterAll(() => t.close());

const resetPath = (url: string) => url.slice(t.url.length);

describe("sign-up", () => {
  it("the form asks for the shop and an e-mail only, and answers 303 to a page saying to check the mail", async () => {
    const browser = new Browser(t.url);
    const page = await browser.get("/signup");
    expect(page.status).toBe(200);
    expect(page.text).toContain('<label for="email">Email</label>');
    expect(page.text).not.toContain('type="password"');
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    const res = await browser.submit(page, {
      name: "Maison Blanche",
      email: `signup-${Date.now()}@shop.example`,
    });
    expect(res.status).toBe(303);
    expect(res.location).toBe("/signup/sent");
    expect((await browser.get("/signup/sent")).text).toContain("Check your e-mail");
  });

  it("refuses a malformed e-mail or an empty name with the form again, and a POST without CSRF", async () => {
    const browser = new Browser(t.url);
    const page = await browser.get("/signup");
    const bad = await browser.submit(page, { name: "X", email: "not-an-address" });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain("Email must be a valid e-mail address.");
    const forged = await new Browser(t.url).post("/signup", { name: "X", email: "y@shop.example" });
    expect(forged.status).toBe(403);
  });

  it("SIGNUP_ENABLED=false turns the page off", async () => {
    const off = await startTestApp({ env: { SIGNUP_ENABLED: "false" } });
    try {
      expect((await new Browser(off.url).get("/signup")).status).toBe(404);
    } finally {
      await off.close();
    }
  });
});

describe("password reset by a one-time link", () => {
  it("sets the new password, revokes grants and sessions, and works once", async () => {
    const client = await createClient(t.ctx);
    const tokens = await obtainTokens(t, client);
    const session = await signedInBrowser(t, tokens.email);
    expect((await session.get("/dashboard/orders")).status).toBe(200);

    const link = await createPasswordResetLink(t.ctx, t.url, tokens.email);
    expect(link.url).toMatch(new RegExp(`^${t.url}/reset-password\\?token=vpr_`));
    const browser = new Browser(t.url);
    const page = await browser.get(resetPath(link.url));
    expect(page.status).toBe(200);
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    const done = await browser.submit(page, { password: "the new passphrase" });
    expect(done.status).toBe(303);
    expect(done.location).toBe("/reset-password/done");

    // Every grant and every session is gone (CONTRACT 6).
    expect((await t.api.get("/api/vendor/orders", { token: tokens.access_token })).status).toBe(401);
    expect((await refresh(t, client, tokens.refresh_token)).body.error).toBe("invalid_grant");
    expect((await session.get("/dashboard/orders")).status).toBe(303);
    await expect(signedInBrowser(t, tokens.email, TEST_PASSWORD)).rejects.toThrow(/401/);
    await signedInBrowser(t, tokens.email, "the new passphrase");

    // Single use: the same link now says so, and a replayed POST changes nothing.
    expect((await browser.get(resetPath(link.url))).status).toBe(400);
    const replay = await browser.submit(page, { password: "an attacker's password" });
    expect(replay.status).toBe(400);
    await signedInBrowser(t, tokens.email, "the new passphrase");
  });

  it("stores only the token's hash, expires after an hour, and a newer link voids the older", async () => {
    const { vendor } = await createVendorWithKey(t.ctx);
    const first = await createPasswordResetLink(t.ctx, t.url, vendor.id);
    const token = new URL(first.url).searchParams.get("token") as string;
    const rows = await t.database.db.query.passwordResets.findMany();
    expect(JSON.stringify(rows)).not.toContain(token);

    const second = await createPasswordResetLink(t.ctx, t.url, vendor.id);
    expect((await new Browser(t.url).get(resetPath(first.url))).status).toBe(400);
    expect((await new Browser(t.url).get(resetPath(second.url))).status).toBe(200);
    now += RESET_LINK_TTL_MS + 1000;
    try {
      expect((await new Browser(t.url).get(resetPath(second.url))).status).toBe(400);
    } finally {
      now = Date.now();
    }
  });

  it("a password change in the dashboard voids every outstanding reset link (issue 24)", async () => {
    const { vendor } = await createVendorWithKey(t.ctx);
    const link = await createPasswordResetLink(t.ctx, t.url, vendor.email);
    const session = await signedInBrowser(t, vendor.email, TEST_PASSWORD);
    const changed = await postFrom(session, "/dashboard/account", "/dashboard/account/password", {
      currentPassword: TEST_PASSWORD,
      newPassword: "a changed passphrase",
      confirmPassword: "a changed passphrase",
    });
    expect(changed.status).toBe(303);
    await signedInBrowser(t, vendor.email, "a changed passphrase");
    // The link mailed before the change cannot undo it.
    const browser = new Browser(t.url);
    expect((await browser.get(resetPath(link.url))).status).toBe(400);
    const page = await browser.get("/login");
    const token = new URL(link.url).searchParams.get("token") as string;
    const replay = await browser.post("/reset-password", {
      _csrf: csrfOf(page),
      token,
      password: "an attacker's password",
    });
    expect(replay.status).toBe(400);
    await signedInBrowser(t, vendor.email, "a changed passphrase");
  });

  it("a short new password shows the form again and keeps the link usable", async () => {
    const { vendor } = await createVendorWithKey(t.ctx);
    const link = await createPasswordResetLink(t.ctx, t.url, vendor.email);
    const browser = new Browser(t.url);
    const page = await browser.get(resetPath(link.url));
    const short = await browser.submit(page, { password: "short" });
    expect(short.status).toBe(400);
    expect(short.text).toContain("Password must be 10-1024 characters.");
    expect((await browser.submit(short, { password: "long enough now" })).status).toBe(303);
  });
});
