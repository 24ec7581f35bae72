import { describe, expect, it } from "vitest";
import { csrfOf, flashOf, follow, postFrom } from "../helpers/dashboard.ts";
import { TEST_PASSWORD } from "../helpers/factories.ts";
import { createClient, obtainTokens, signedInBrowser } from "../helpers/oauth.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

const ACCOUNT = "/dashboard/account";
const NEW_PASSWORD = "a brand new passphrase";

describe("dashboard: account page", () => {
  it("changing the password revokes grants and other sessions but keeps this one", async () => {
    const client = await createClient(t.ctx);
    const tokens = await obtainTokens(t, client);
    const here = await signedInBrowser(t, tokens.email);
    const elsewhere = await signedInBrowser(t, tokens.email);
    expect((await elsewhere.get(ACCOUNT)).status).toBe(200);

    const res = await postFrom(here, ACCOUNT, `${ACCOUNT}/password`, {
      currentPassword: TEST_PASSWORD,
      newPassword: NEW_PASSWORD,
      confirmPassword: NEW_PASSWORD,
    });
    const page = await follow(here, res);
    expect(page.status).toBe(200);
    expect(flashOf(page)).toMatchObject({ kind: "success" });
    expect(flashOf(page)?.text).toContain("Password changed");

    // This browser is still signed in; the other one is sent to sign in again.
    expect((await here.get("/dashboard/integrations/api-keys")).status).toBe(200);
    const other = await elsewhere.get(ACCOUNT);
    expect(other.status).toBe(303);
    expect(other.location).toMatch(/^\/login\?/);
    expect((await t.api.get("/api/vendor/orders", { token: tokens.access_token })).status).toBe(401);
    await expect(signedInBrowser(t, tokens.email, TEST_PASSWORD)).rejects.toThrow(/sign-in failed: 401/);
    await signedInBrowser(t, tokens.email, NEW_PASSWORD);
  });

  it("a wrong current password, a mismatched confirmation or a short new password change nothing", async () => {
    const client = await createClient(t.ctx);
    const tokens = await obtainTokens(t, client);
    const browser = await signedInBrowser(t, tokens.email);
    const cases: Array<[Record<string, string>, string]> = [
      [
        { currentPassword: "wrong password!", newPassword: NEW_PASSWORD, confirmPassword: NEW_PASSWORD },
        "This is not the current password.",
      ],
      [
        { currentPassword: TEST_PASSWORD, newPassword: NEW_PASSWORD, confirmPassword: "something else" },
        "The new password and its confirmation do not match.",
      ],
      [
        { currentPassword: TEST_PASSWORD, newPassword: "short", confirmPassword: "short" },
        "The new password must be 10-1024 characters long.",
      ],
    ];
    for (const [form, message] of cases) {
      const page = await follow(browser, await postFrom(browser, ACCOUNT, `${ACCOUNT}/password`, form));
      expect(flashOf(page)).toMatchObject({ kind: "error" });
      expect(flashOf(page)?.text).toContain(message);
    }
    expect((await t.api.get("/api/vendor/orders", { token: tokens.access_token })).status).toBe(200);
    await signedInBrowser(t, tokens.email, TEST_PASSWORD);
  });

  it("signs out through the header form: the session ends", async () => {
    const client = await createClient(t.ctx);
    const tokens = await obtainTokens(t, client);
    const browser = await signedInBrowser(t, tokens.email);
    const page = await browser.get(ACCOUNT);
    expect(page.text).toContain(`<form method="post" action="/logout">`);
    const out = await browser.post("/logout", { _csrf: csrfOf(page) });
    expect(out.status).toBe(303);
    expect(out.location).toBe("/login");
    expect((await browser.get(ACCOUNT)).status).toBe(303);
  });
});
