// Two-step sign-in in a real browser (Debian's Chromium), at desktop width and at 390px as a
// phone: a member sets up an authenticator from the account page (the code generated here with
// otplib from the key the page shows, as a phone app would), keeps the recovery codes, signs out,
// and signs in with the password and then the authenticator's code. With SCREENSHOTS=1, screenshots
// land in test-artifacts/screenshots; no page scrolls sideways.
import { generate } from "otplib";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { expectNoSidewaysScroll, screenshot, useChromium } from "../helpers/chromium.ts";
import { createVendor, TEST_PASSWORD } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const chromium = useChromium();

const t = useTestApp();
beforeAll(async () => {});

const viewports = [
  { name: "desktop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
] as const;

async function passwordStep(page: Page, email: string): Promise<void> {
  await page.goto(`${t.url}/login`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(TEST_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
}

describe.skipIf(!chromium.available)("two-step sign-in in the browser", () => {
  for (const viewport of viewports) {
    it(`set up from the account page, then sign in with a generated code (${viewport.name}, ${viewport.width}px)`, async () => {
      const vendor = await createVendor(t.ctx, `Two-step ${viewport.name}`);
      const context = await chromium.browser.newContext({
        viewport: { width: viewport.width, height: viewport.height },
      });
      try {
        const page = await context.newPage();
        await passwordStep(page, vendor.email);
        await page.waitForURL(`${t.url}/dashboard/today`);
        await page.getByRole("link", { name: "Account" }).click();
        await page.getByRole("link", { name: "Set up two-step sign-in" }).click();
        await page.waitForURL(`${t.url}/dashboard/account/two-step`);
        await expect.poll(() => page.locator("svg").count()).toBe(1);
        await expectNoSidewaysScroll(page, "the setup page");
        await screenshot(page, `two-step-${viewport.name}-setup`);
        const secret = ((await page.locator("code.secret-key").textContent()) ?? "").replace(/\s+/g, "");
        expect(secret.length).toBeGreaterThanOrEqual(16);
        await page.getByLabel("Code from your authenticator app").fill(await generate({ secret }));
        await page.getByRole("button", { name: "Turn on two-step sign-in" }).click();
        await page.waitForURL(`${t.url}/dashboard/account`);
        const codes = ((await page.locator("[data-secret]").textContent()) ?? "").trim().split(/\s+/);
        expect(codes).toHaveLength(10);
        await expectNoSidewaysScroll(page, "the recovery codes");
        await screenshot(page, `two-step-${viewport.name}-recovery-codes`);
        // Nothing on the page, in the address bar or in a cookie holds the secret now.
        expect(page.url()).not.toContain(secret);
        for (const cookie of await context.cookies()) expect(cookie.value).not.toContain(secret);

        await page.getByRole("button", { name: "Sign out" }).first().click();
        await page.waitForURL(`${t.url}/login`);
        await passwordStep(page, vendor.email);
        await page.waitForURL(/\/login\/two-step\?/);
        await expect.poll(() => page.getByRole("heading").first().textContent()).toBe("Two-step sign-in");
        await expectNoSidewaysScroll(page, "the code page");
        await screenshot(page, `two-step-${viewport.name}-code`);
        // The code of the next time step: the setup used this step's (a code works once).
        const next = Math.floor(Date.now() / 1000) + 30;
        await page
          .getByLabel("Code from your authenticator app")
          .fill(await generate({ secret, epoch: next }));
        await page.getByRole("button", { name: "Continue" }).click();
        await page.waitForURL(`${t.url}/dashboard/today`);
        await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Today");
      } finally {
        await context.close();
      }
    }, 120_000);
  }
});
