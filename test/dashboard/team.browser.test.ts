// A shop's team in a real browser (Debian's Chromium), at desktop width and at 390px as a phone:
// the owner invites someone from Settings → Team, the invitation is read from a real SMTP server,
// the invitee joins through its link, signs out and signs in again as staff, and finds every
// owner-only page refused, and every owner-only form POST too (403). With SCREENSHOTS=1,
// screenshots land in test-artifacts/screenshots; no page scrolls sideways.
import { randomUUID } from "node:crypto";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "../../src/modules/api-keys/api-keys.service.ts";
import { decodeEntities } from "../helpers/browser.ts";
import { expectNoSidewaysScroll, screenshot, useChromium } from "../helpers/chromium.ts";
import { createVendor, TEST_PASSWORD } from "../helpers/factories.ts";
import { useMailSender } from "../helpers/smtp.ts";
import { useTestApp } from "../helpers/test-app.ts";

const chromium = useChromium();

const t = useTestApp({ ownDatabase: true });
const mail = useMailSender(() => t);
beforeAll(async () => {});

const viewports = [
  { name: "desktop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
] as const;

async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto(`${t.url}/login`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${t.url}/dashboard/today`);
}

describe.skipIf(!chromium.available)("a shop's team in the browser", () => {
  for (const viewport of viewports) {
    it(`invitation, staff sign-in, and what staff cannot do (${viewport.name}, ${viewport.width}px)`, async () => {
      const vendor = await createVendor(t.ctx, `Atelier ${viewport.name}`);
      const { row: key } = await createApiKey(t.ctx, { vendorId: vendor.id, name: "Shop POS" });
      const invitee = `rosa-${viewport.name}-${randomUUID()}@example.test`;
      const viewportSize = { width: viewport.width, height: viewport.height };
      const ownerContext = await chromium.browser.newContext({ viewport: viewportSize });
      const staffContext = await chromium.browser.newContext({ viewport: viewportSize });
      try {
        // The owner invites from Settings → Team.
        const owner = await ownerContext.newPage();
        await signIn(owner, vendor.email, TEST_PASSWORD);
        await owner.getByRole("link", { name: "Settings" }).click();
        await owner.getByRole("link", { name: "Team", exact: true }).click();
        await owner.waitForURL(`${t.url}/dashboard/settings/team`);
        await owner.getByLabel("E-mail").fill(invitee);
        await owner.getByLabel("Role", { exact: true }).selectOption("staff");
        await owner.getByRole("button", { name: "Send invitation" }).click();
        await expect
          .poll(() => owner.getByRole("status").textContent())
          .toContain(`Invitation sent to ${invitee}`);
        await expectNoSidewaysScroll(owner, "the team page");
        await screenshot(owner, `team-${viewport.name}-invited`);

        // The invitee reads the mail and joins.
        const [received] = await mail.sink.waitFor(invitee);
        expect(received?.parsed.subject).toContain(`invited you to Atelier ${viewport.name}`);
        const href = /href="([^"]*\/invitation\?token=[^"]+)"/.exec(received?.parsed.html || "")?.[1];
        expect(href).toBeDefined();
        const staff = await staffContext.newPage();
        await staff.goto((href as string).replaceAll("&amp;", "&"));
        await expect
          .poll(() => staff.getByRole("heading").first().textContent())
          .toBe(`Join Atelier ${viewport.name}`);
        await expectNoSidewaysScroll(staff, "the invitation page");
        await screenshot(staff, `team-${viewport.name}-invitation`);
        await staff.getByLabel("Your name").fill("Rosa Counter");
        await staff.getByLabel("Password").fill("rosa's own passphrase");
        await staff.getByRole("button", { name: "Join the shop" }).click();
        await staff.waitForURL(`${t.url}/dashboard/today`);

        // Signs out, and signs in again as staff: the menu has no Integrations or Settings.
        await staff.getByRole("button", { name: "Sign out" }).click();
        await staff.waitForURL(`${t.url}/login`);
        await signIn(staff, invitee, "rosa's own passphrase");
        const menu = staff.getByRole("navigation", { name: "Dashboard" });
        await expect
          .poll(() => menu.getByRole("link").allTextContents())
          .toEqual(["Today", "Orders", "Customers", "Appointments", "Inquiries"]);
        await expectNoSidewaysScroll(staff, "the staff member's orders page");
        await screenshot(staff, `team-${viewport.name}-staff-orders`);

        // Every owner-only page refuses them…
        const ownerPages = [
          "/dashboard/integrations",
          "/dashboard/integrations/api-keys",
          "/dashboard/integrations/webhooks",
          "/dashboard/integrations/applications",
          "/dashboard/integrations/connected-apps",
          "/dashboard/settings",
          "/dashboard/settings/team",
          `/dashboard/integrations/api-keys/${key.id}/revoke`,
          `/dashboard/settings/team/${vendor.ownerId}/remove`,
        ];
        for (const path of ownerPages) {
          const res = await staff.goto(`${t.url}${path}`);
          expect(res?.status(), path).toBe(403);
          await expect.poll(() => staff.getByRole("heading", { level: 1 }).textContent()).toBe("Owners only");
          await expectNoSidewaysScroll(staff, path);
        }
        await screenshot(staff, `team-${viewport.name}-staff-refused`);
        for (const path of ["/dashboard/orders/export.csv", "/dashboard/customers/export.csv"]) {
          expect((await staff.request.get(`${t.url}${path}`)).status(), path).toBe(403);
        }

        // …and so does every owner-only form, posted with the staff member's own valid token.
        await staff.goto(`${t.url}/dashboard/orders`);
        const csrf = await staff.locator('input[name="_csrf"]').first().inputValue();
        const posts: Array<[string, Record<string, string>]> = [
          ["/dashboard/integrations/api-keys", { name: "staff key" }],
          [`/dashboard/integrations/api-keys/${key.id}/revoke`, { confirmed: "yes" }],
          [
            "/dashboard/integrations/webhooks",
            { url: "https://hooks.example.com/x", events: "order.created" },
          ],
          ["/dashboard/settings", { name: "Renamed", timeZone: "UTC" }],
          [
            "/dashboard/settings/team/invitations",
            { email: `x-${randomUUID()}@example.test`, role: "owner" },
          ],
          [`/dashboard/settings/team/${vendor.ownerId}/role`, { role: "staff" }],
          [`/dashboard/settings/team/${vendor.ownerId}/remove`, { confirmed: "yes" }],
        ];
        for (const [path, form] of posts) {
          const res = await staff.request.post(`${t.url}${path}`, {
            form: { _csrf: csrf, ...form },
            maxRedirects: 0,
          });
          expect(res.status(), path).toBe(403);
          expect(decodeEntities(await res.text()), path).toContain("Only the shop's owners can do this");
        }

        // The owner sees the new member by name, the key alive and the shop's name unchanged.
        await owner.goto(`${t.url}/dashboard/settings/team`);
        await expect.poll(() => owner.getByRole("main").textContent()).toContain("Rosa Counter");
        await owner.goto(`${t.url}/dashboard/integrations/api-keys`);
        await expect.poll(() => owner.getByRole("main").textContent()).toContain("Shop POS");
        expect(await owner.getByRole("main").textContent()).not.toContain("Revoked");
        expect(await owner.locator(".brand").textContent()).toBe(`Atelier ${viewport.name}`);
      } finally {
        await ownerContext.close();
        await staffContext.close();
      }
    }, 120_000);
  }
});
