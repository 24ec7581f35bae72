// The forgotten password end to end in a real browser (Debian's Chromium): "Forgot password?" on
// the sign-in page, the mail read back from a real SMTP server, its link opened, a new password
// chosen, and a sign-in with it that reaches the dashboard.
import { beforeAll, expect, it } from "vitest";
import { useChromium } from "../helpers/chromium.ts";
import { createVendor } from "../helpers/factories.ts";
import { useMailSender } from "../helpers/smtp.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp({ ownDatabase: true });
const mail = useMailSender(() => t);
const chromium = useChromium();
beforeAll(async () => {});

it.skipIf(!chromium.available)("a shop owner resets a forgotten password from the sign-in page", async () => {
  const vendor = await createVendor(t.ctx, "Noiva Linda");
  const page = await chromium.browser.newPage();
  try {
    await page.goto(`${t.url}/login`);
    await page.getByRole("link", { name: "Forgot password?" }).click();
    await page.getByLabel("Email").fill(vendor.email);
    await page.getByRole("button", { name: "Mail me a link" }).click();
    await expect.poll(() => page.getByRole("heading").first().textContent()).toBe("Check your e-mail");

    const [received] = await mail.sink.waitFor(vendor.email);
    const href = /href="([^"]*\/reset-password\?token=[^"]+)"/.exec(received?.parsed.html || "")?.[1];
    expect(href).toBeDefined();
    await page.goto((href as string).replaceAll("&amp;", "&"));
    await page.getByLabel("New password").fill("a brand new passphrase");
    await page.getByRole("button", { name: "Set password" }).click();
    await expect.poll(() => page.getByRole("heading").first().textContent()).toBe("Password changed");

    await page.getByRole("link", { name: "Sign in" }).click();
    await page.getByLabel("Email").fill(vendor.email);
    await page.getByLabel("Password").fill("a brand new passphrase");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${t.url}/dashboard/today`);
  } finally {
    await page.close();
  }
});
