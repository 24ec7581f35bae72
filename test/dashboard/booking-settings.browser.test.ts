// Online booking on a phone (390 px) in Chromium, JavaScript off: an owner goes from Settings to
// Online booking, gives Saturday a lunch break and fittings a third room, saves, reads the flash
// and finds both kept (and the API answering them); nothing scrolls sideways, before or after.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useChromium } from "../helpers/chromium.ts";
import { pathOf, shot, signedInPage } from "../helpers/chromium-dashboard.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";

const chromium = useChromium();

let t: TestApp;
beforeAll(async () => {
  if (!chromium.available) return;
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe.skipIf(!chromium.available)("Online booking in the browser", { timeout: 120_000 }, () => {
  it("at 390 px an owner changes Saturday's hours and a type's capacity, saves and sees the flash", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx, "Phone Bridal");
    const { context, page, dialogs } = await signedInPage(chromium.browser, t.url, vendor.email, 390);
    try {
      await page.goto(`${t.url}/dashboard/settings`);
      await page.click('a[href="/dashboard/settings/booking"]');
      expect(pathOf(page)).toBe("/dashboard/settings/booking");
      await shot(page, "booking-settings", 390);

      const saturday = page.locator('fieldset[data-day="sat"]');
      await saturday.getByLabel("Closes (1)").fill("13:00");
      await saturday.getByLabel("Opens (2)").fill("14:00");
      await saturday.getByLabel("Closes (2)").fill("17:30");
      const fitting = page.locator('fieldset[data-type="FITTING"]');
      await fitting.getByLabel("At the same time (fitting rooms or stylists)").fill("3");
      // The fields a thumb types into stay inside the viewport.
      for (const control of [saturday.getByLabel("Closes (2)"), fitting.getByLabel("Duration (minutes)")]) {
        const box = await control.boundingBox();
        expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(390);
      }
      await page.getByRole("button", { name: "Save online booking" }).click();
      await page.waitForURL((url) => url.pathname === "/dashboard/settings/booking");

      await expect(page.locator(".flash.success").textContent()).resolves.toContain("Online booking saved.");
      await expect(saturday.getByLabel("Closes (1)").inputValue()).resolves.toBe("13:00");
      await expect(saturday.getByLabel("Closes (2)").inputValue()).resolves.toBe("17:30");
      await expect(
        fitting.getByLabel("At the same time (fitting rooms or stylists)").inputValue(),
      ).resolves.toBe("3");
      await shot(page, "booking-settings-saved", 390);

      const api = await t.api.get("/api/vendor/booking/settings", { key });
      expect(api.body.openingHours.sat).toEqual([
        { from: "10:00", to: "13:00" },
        { from: "14:00", to: "17:30" },
      ]);
      expect(api.body.types.FITTING.capacity).toBe(3);
      expect(api.body.types.CONSULTATION.capacity).toBe(2);
      expect(dialogs).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
