// Today on a phone (390 px) in Chromium: signing in lands there, and it lists the test shop's
// appointment, pickup, overdue rental, inquiry and at-risk order, each a tap from its page, with
// nothing scrolling sideways.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useChromium } from "../helpers/chromium.ts";
import { pathOf, shot, signedInPage } from "../helpers/chromium-dashboard.ts";
import { createKey, createVendor } from "../helpers/factories.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";
import { seedDay } from "./seed.ts";

let t: TestApp;
const chromium = useChromium();
beforeAll(async () => {
  if (!chromium.available) return;
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe.skipIf(!chromium.available)("Today in the browser", { timeout: 120_000 }, () => {
  it("at 390 px lists the appointment, pickup, overdue rental, inquiry and at-risk order, one tap each", async () => {
    const vendor = await createVendor(t.ctx, "Phone Bridal");
    const key = await createKey(t.ctx, vendor.id);
    const seeded = await seedDay(t, key, vendor.id);
    const { context, page, dialogs } = await signedInPage(chromium.browser, t.url, vendor.email, 390);
    try {
      expect(pathOf(page)).toBe("/dashboard/today");
      await shot(page, "today", 390);
      const section = (name: string) => page.locator(`section[data-section="${name}"]`);
      await expect(section("appointments").getByText("Clara Appointment").isVisible()).resolves.toBe(true);
      await expect(section("pickups").getByText("Paula Pickup").isVisible()).resolves.toBe(true);
      await expect(section("overdue").getByText("Olga Overdue").isVisible()).resolves.toBe(true);
      await expect(section("inquiries").getByText("Ines Inquiry").isVisible()).resolves.toBe(true);
      await expect(section("atRisk").getByText("Rita Risk").isVisible()).resolves.toBe(true);
      // Each line is a link of at least 44 px a thumb can hit, inside the 390 px viewport.
      for (const name of ["appointments", "pickups", "overdue", "inquiries", "atRisk"]) {
        const box = await section(name).locator("ul.today-lines a").first().boundingBox();
        expect(box?.height).toBeGreaterThanOrEqual(44);
        expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(390);
      }
      // One tap: the at-risk line opens its order, the overdue one its rental, the inquiry its page.
      await section("atRisk").getByText("Rita Risk").click();
      expect(pathOf(page)).toBe(`/dashboard/orders/${seeded.atRiskId}`);
      await page.goBack();
      await section("overdue").getByText("Olga Overdue").click();
      expect(pathOf(page)).toBe(`/dashboard/orders/${seeded.overdueId}`);
      await page.goBack();
      await section("inquiries").getByText("Ines Inquiry").click();
      expect(pathOf(page)).toBe(`/dashboard/inquiries/${seeded.inquiryId}`);
      await page.goBack();
      await section("appointments").getByText("Clara Appointment").click();
      expect(pathOf(page)).toBe(`/dashboard/appointments/${seeded.appointmentId}`);
      expect(dialogs).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
