// Nothing irreversible in one click, in Chromium at 1280 and 390 px with
// JavaScript off: each irreversible button opens a confirmation page (never a browser dialog);
// "Keep it, go back" changes nothing; the confirming button does it. Cancel an appointment,
// rotate and delete a webhook's secret and the webhook, revoke an API key, rotate an
// application's client secret and delete it, erase a customer, remove a member of the team.
import { sql } from "drizzle-orm";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.ts";
import { createApiKey } from "../../src/modules/api-keys/api-keys.service.ts";
import { createApplication, listApplications } from "../../src/modules/applications/applications.service.ts";
import { useChromium } from "../helpers/chromium.ts";
import { pathOf, shot, signedInPage, WIDTHS } from "../helpers/chromium-dashboard.ts";
import { createMember, createVendorWithKey } from "../helpers/factories.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";

const chromium = useChromium();

interface Step {
  name: string;
  /** The page with the irreversible button. */
  from: string;
  /** The button (a link to the confirmation page), found within `scope` when given. */
  link: string;
  scope?: string;
  /** The confirmation page's path. */
  confirmPath: string;
  /** Holds before the confirmation and after "Keep it, go back"; false once confirmed. */
  untouched: () => Promise<boolean>;
  /** What the page says once done. */
  flash: RegExp;
}

// Each width walks ~50 page loads in one test: ~16 s here on a quiet host, twice that beside the
// other worker's Chromium; 30 s (the default) was not enough once.
describe.skipIf(!chromium.available)("confirmation steps in Chromium", { timeout: 120_000 }, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  /** The shop's records for the steps, made through the API and the services. */
  async function shop() {
    const { vendor, key } = await createVendorWithKey(t.ctx, "Atelier Confirm");
    const customer = await t.api.post(
      "/api/vendor/customers",
      { name: "Clara Confirm", email: "clara@example.test" },
      { key },
    );
    const appointment = await t.api.post(
      "/api/vendor/appointments",
      { customerId: customer.body.id, type: "FITTING", date: "2099-03-01T10:00:00Z" },
      { key },
    );
    const webhook = await t.api.post(
      "/api/vendor/webhooks",
      { url: "https://receiver.example/hook", events: ["order.created"] },
      { key },
    );
    const till = await createApiKey(t.ctx, { vendorId: vendor.id, name: "Till to revoke" });
    const { application, clientSecret } = await createApplication(t.ctx, vendor.id, {
      name: "Fitting Room App",
      redirectUris: ["https://app.example/callback"],
    });
    const member = await createMember(t.ctx, vendor.id, { name: "Sam Seamstress" });
    expect([customer.status, appointment.status, webhook.status]).toEqual([201, 201, 201]);
    return {
      memberId: member.id,
      vendor,
      key,
      customerId: customer.body.id as string,
      appointmentId: appointment.body.id as string,
      webhookId: webhook.body.id as string,
      webhookSecret: webhook.body.secret as string,
      tillKey: till.key,
      tillId: till.row.id,
      application,
      clientSecret,
    };
  }

  async function clickLink(page: Page, step: Step) {
    const scope = step.scope ? page.locator(step.scope) : page.locator("main");
    await scope.getByRole("link", { name: step.link, exact: true }).click();
    await page.waitForURL((url) => url.pathname === step.confirmPath);
  }

  describe.each(WIDTHS)("at %i px", (width) => {
    it("each irreversible action asks on a page of its own, going back changes nothing, confirming does it", async () => {
      const s = await shop();
      const api = (path: string, key = s.key) => t.api.get(path, { key });
      const webhookSecretOf = async () =>
        (
          await queryRows<{ secret: string }>(
            t.ctx.db,
            sql`select secret from webhooks where id = ${s.webhookId}`,
          )
        )[0]?.secret;
      const steps: Step[] = [
        {
          name: "cancel-appointment",
          from: `/dashboard/appointments/${s.appointmentId}`,
          link: "Cancel…",
          confirmPath: `/dashboard/appointments/${s.appointmentId}/cancel`,
          untouched: async () =>
            (await api(`/api/vendor/appointments/${s.appointmentId}`)).body.status === "PROPOSED",
          flash: /Appointment cancelled/,
        },
        {
          name: "rotate-webhook-secret",
          from: `/dashboard/integrations/webhooks/${s.webhookId}`,
          link: "Rotate secret…",
          confirmPath: `/dashboard/integrations/webhooks/${s.webhookId}/rotate-secret`,
          untouched: async () => (await webhookSecretOf()) === s.webhookSecret,
          flash: /secret/i,
        },
        {
          name: "delete-webhook",
          from: `/dashboard/integrations/webhooks/${s.webhookId}`,
          link: "Delete…",
          confirmPath: `/dashboard/integrations/webhooks/${s.webhookId}/delete`,
          untouched: async () => (await api(`/api/vendor/webhooks/${s.webhookId}`)).status === 200,
          flash: /deleted/i,
        },
        {
          name: "revoke-key",
          from: "/dashboard/integrations/api-keys",
          scope: `tr:has-text("Till to revoke")`,
          link: "Revoke…",
          confirmPath: `/dashboard/integrations/api-keys/${s.tillId}/revoke`,
          untouched: async () => (await api("/api/vendor/orders", s.tillKey)).status === 200,
          flash: /revoked/i,
        },
        {
          name: "rotate-client-secret",
          from: "/dashboard/integrations/applications",
          scope: `section[data-application-id="${s.application.id}"]`,
          link: "Rotate client secret…",
          confirmPath: `/dashboard/integrations/applications/${s.application.id}/rotate-secret`,
          untouched: async () =>
            (await listApplications(t.ctx, s.vendor.id)).find((a) => a.id === s.application.id)
              ?.clientSecretHash === s.application.clientSecretHash,
          flash: /New client secret/,
        },
        {
          name: "delete-application",
          from: "/dashboard/integrations/applications",
          scope: `section[data-application-id="${s.application.id}"]`,
          link: "Delete…",
          confirmPath: `/dashboard/integrations/applications/${s.application.id}/delete`,
          untouched: async () =>
            (await listApplications(t.ctx, s.vendor.id)).some((a) => a.id === s.application.id),
          flash: /deleted/i,
        },
        {
          name: "erase-customer",
          from: `/dashboard/customers/${s.customerId}`,
          link: "Erase customer…",
          confirmPath: `/dashboard/customers/${s.customerId}/erase`,
          untouched: async () => (await api(`/api/vendor/customers/${s.customerId}`)).status === 200,
          flash: /Customer erased/,
        },
        {
          name: "remove-member",
          from: "/dashboard/settings/team",
          scope: `tr[data-member-id="${s.memberId}"]`,
          link: "Remove…",
          confirmPath: `/dashboard/settings/team/${s.memberId}/remove`,
          untouched: async () =>
            (
              await queryRows<{ n: number }>(
                t.ctx.db,
                sql`select count(*)::int as n from members where id = ${s.memberId}`,
              )
            )[0]?.n === 1,
          flash: /removed and signed out/,
        },
      ];
      const { context, page, dialogs } = await signedInPage(chromium.browser, t.url, s.vendor.email, width);
      for (const step of steps) {
        await page.goto(`${t.url}${step.from}`);
        expect(await step.untouched(), `${step.name} before`).toBe(true);
        // The button is a link to a page that asks; opening it changes nothing.
        await clickLink(page, step);
        expect(await page.locator("h1").innerText(), step.name).toMatch(/\?$/);
        expect(await page.locator("main").innerText()).toContain("This cannot be undone.");
        await shot(page, `confirm-${step.name}`, width);
        expect(await step.untouched(), `${step.name} on its confirmation page`).toBe(true);
        // "Keep it, go back" returns and changes nothing.
        await page.getByRole("link", { name: "Keep it, go back" }).click();
        await page.waitForURL((url) => url.pathname !== step.confirmPath);
        expect(await step.untouched(), `${step.name} after going back`).toBe(true);
        // Asked again and confirmed: done, and the page says so.
        if (pathOf(page) !== step.from) await page.goto(`${t.url}${step.from}`);
        await clickLink(page, step);
        await page.locator("main form button.danger").click();
        await page.waitForURL((url) => url.pathname !== step.confirmPath);
        expect(await page.locator(".flash").innerText(), step.name).toMatch(step.flash);
        expect(await step.untouched(), `${step.name} once confirmed`).toBe(false);
      }
      expect(dialogs).toEqual([]);
      await context.close();
    });
  });
});
