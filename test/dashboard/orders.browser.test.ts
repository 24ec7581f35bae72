// The orders flow in a real browser (Debian's Chromium through playwright-core): sign in, move an
// order through two statuses with the form, watch the customer's tracking page follow, sign out.
// With SCREENSHOTS=1, screenshots of each main page (desktop and 390px phone width) land in
// test-artifacts/screenshots.
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectNoSidewaysScroll, screenshot, useChromium } from "../helpers/chromium.ts";
import { createVendorWithKey, TEST_PASSWORD } from "../helpers/factories.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";

const chromium = useChromium();

let t: TestApp;
// Progress photos come from a local server the test starts (never the outside network).
let photos: http.Server;
let photoBase: string;
const photo = (color: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="160"><rect width="320" height="160" fill="${color}"/></svg>`;
beforeAll(async () => {
  if (!chromium.available) return;
  t = await startTestApp();
  photos = http.createServer((req, res) => {
    res.writeHead(200, { "content-type": "image/svg+xml" });
    res.end(photo(req.url?.includes("fit") ? "#c9a0dc" : "#f3d9b1"));
  });
  await new Promise<void>((resolve) => photos.listen(0, "127.0.0.1", resolve));
  photoBase = `http://127.0.0.1:${(photos.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => photos?.close(resolve));
});

/** Any dialog (alert, confirm…) means script ran where none should: fail the test. */
function failOnDialog(page: Page, dialogs: string[]): void {
  page.on("dialog", async (dialog) => {
    dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    await dialog.dismiss();
  });
}

// One test walks the whole flow on two pages and two widths (~14 s here, more beside the other
// worker's Chromium).
describe.skipIf(!chromium.available)("orders in the browser", { timeout: 120_000 }, () => {
  it("signs in, moves an order through two statuses with the form, the tracking page follows, signs out", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx, "Browser Bridal");
    const created = await t.api.post(
      "/api/vendor/orders",
      {
        customerName: "Dora Bride",
        customerEmail: "dora@example.test",
        type: "BRIDAL_DRESS",
        model: "Seraphine",
        description: "Ivory silk, long train",
      },
      { key },
    );
    expect(created.status).toBe(201);
    const orderId = created.body.id as string;
    await t.api.post(
      "/api/vendor/appointments",
      {
        customerId: created.body.customerId,
        type: "FITTING",
        date: "2030-03-01T10:00:00Z",
        notes: "First fitting",
      },
      { key },
    );
    await t.api.post(`/api/public/vendors/${vendor.id}/inquiries`, {
      name: "Eve",
      email: "eve@example.test",
      message: "Do you rent suits?",
    });

    const dialogs: string[] = [];
    const context: BrowserContext = await chromium.browser.newContext({
      viewport: { width: 1280, height: 800 },
    });
    const page = await context.newPage();
    failOnDialog(page, dialogs);

    await page.goto(`${t.url}/dashboard/orders`);
    expect(new URL(page.url()).pathname).toBe("/login");
    await page.getByLabel("Email").fill(vendor.email);
    await page.getByLabel("Password").fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${t.url}/dashboard/orders`);
    expect(await page.getByRole("link", { name: "Seraphine" }).count()).toBe(1);
    await screenshot(page, "orders-list");

    await page.getByRole("link", { name: "Seraphine" }).click();
    await page.waitForURL(`${t.url}/dashboard/orders/${orderId}`);
    const trackingUrl = await page.getByLabel("Tracking link").inputValue();
    expect(trackingUrl).toMatch(/\/track\/[A-Za-z0-9_-]{43}$/);
    await screenshot(page, "order-detail");

    // The customer's view, in a separate context: no session cookie.
    const publicContext = await chromium.browser.newContext({ viewport: { width: 390, height: 844 } });
    const tracking = await publicContext.newPage();
    failOnDialog(tracking, dialogs);
    await tracking.goto(trackingUrl);
    expect(await tracking.locator("p.current .badge").textContent()).toBe("Ordered");
    await screenshot(tracking, "tracking-phone-ordered");

    const moves = [
      {
        status: "IN_PRODUCTION",
        label: "In production",
        // The bride's page words a status for her; the dashboard keeps the trade's short name.
        brideLabel: "In production",
        message: "Cutting the silk",
        image: `${photoBase}/cut.svg`,
      },
      {
        status: "FITTING_READY",
        label: "Fitting ready",
        brideLabel: "Ready for fitting",
        message: "Ready for your first fitting",
        image: `${photoBase}/fit.svg`,
      },
    ];
    for (const move of moves) {
      await page.getByLabel("New status").selectOption(move.status);
      await page.getByLabel("Message to the customer").fill(move.message);
      await page.getByLabel("Image URL (progress photo)").fill(move.image);
      await page.getByRole("button", { name: "Update status" }).click();
      await page.waitForLoadState("load");
      expect(await page.locator(".flash.success").textContent()).toContain(`Status set to ${move.label}.`);
      expect(await page.locator(`ol.timeline li[data-status="${move.status}"] .message`).textContent()).toBe(
        move.message,
      );

      await tracking.reload();
      expect(await tracking.locator("p.current .badge").textContent()).toBe(move.brideLabel);
      expect(await tracking.locator("ol.timeline li").first().locator(".message").textContent()).toBe(
        move.message,
      );
      const img = tracking.locator(`ol.timeline img[src="${move.image}"]`);
      await img.scrollIntoViewIfNeeded();
      await expect.poll(() => img.evaluate((el) => (el as HTMLImageElement).naturalWidth)).toBe(320);
    }
    await screenshot(page, "order-detail-after-moves");
    await screenshot(tracking, "tracking-phone-fitting-ready");
    const desktopTracking = await publicContext.newPage();
    await desktopTracking.setViewportSize({ width: 1280, height: 800 });
    await desktopTracking.goto(trackingUrl);
    await screenshot(desktopTracking, "tracking-desktop");
    expect(await tracking.locator("ol.timeline li").count()).toBe(3);

    for (const [path, name] of [
      ["/dashboard/customers", "customers-list"],
      [`/dashboard/customers/${created.body.customerId}`, "customer-detail"],
      [`/dashboard/customers/${created.body.customerId}/edit`, "customer-edit"],
      ["/dashboard/appointments", "appointments-list"],
      ["/dashboard/inquiries", "inquiries-list"],
    ] as const) {
      await page.goto(`${t.url}${path}`);
      await screenshot(page, name);
    }
    // The same pages at phone width.
    await page.setViewportSize({ width: 390, height: 844 });
    for (const [path, name] of [
      ["/dashboard/orders", "orders-list-phone"],
      [`/dashboard/orders/${orderId}`, "order-detail-phone"],
      ["/dashboard/appointments", "appointments-list-phone"],
    ] as const) {
      await page.goto(`${t.url}${path}`);
      await screenshot(page, name);
      await expectNoSidewaysScroll(page, path);
    }

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(`${t.url}/login`);
    await page.goto(`${t.url}/dashboard/orders/${orderId}`);
    expect(new URL(page.url()).pathname).toBe("/login");

    expect(dialogs).toEqual([]);
    await publicContext.close();
    await context.close();
  });
});
