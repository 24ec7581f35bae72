// The New order page's customer picker in a real browser at a phone's width (390 px): typing a
// number fills the select with the customer found, without a page load; the order made is hers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectNoSidewaysScroll, screenshot, useChromium } from "../helpers/chromium.ts";
import { createVendorWithKey, TEST_PASSWORD } from "../helpers/factories.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";
import { eventually } from "../helpers/webhook-receiver.ts";

const chromium = useChromium();

let t: TestApp;
beforeAll(async () => {
  if (!chromium.available) return;
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe.skipIf(!chromium.available)("the customer picker in the browser", { timeout: 120_000 }, () => {
  it("search as you type, phone first, at 390 px; the order is the found customer's", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx, "Picker Browser");
    const clara = await t.api.post(
      "/api/vendor/customers",
      { name: "Clara Weiß", phone: "+49 170 1234567" },
      { key },
    );
    await t.api.post("/api/vendor/customers", { name: "Other", phone: "+49 30 555" }, { key });
    const context = await chromium.browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`${t.url}/dashboard/orders/new`);
    await page.getByLabel("Email").fill(vendor.email);
    await page.getByLabel("Password").fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/dashboard\/orders\/new$/);
    const url = page.url();
    await page
      .getByLabel("Find a customer (phone, name or e-mail)")
      .pressSequentially("170 1234", { delay: 20 });
    const offered = () => page.locator("#customerId option").allTextContents();
    await eventually(async () => (await offered()).length === 2);
    expect(await offered()).toEqual(["New customer (fill in below)", "+49 170 1234567 · Clara Weiß"]);
    // The one customer found is chosen; no page load happened.
    expect(await page.locator("#customerId").inputValue()).toBe(clara.body.id);
    expect(page.url()).toBe(url);
    await expectNoSidewaysScroll(page, "New order at 390 px");
    await screenshot(page, "new-order-picker-390");
    await page.getByLabel("Type").selectOption("SUIT");
    await page.getByRole("button", { name: "Create order" }).click();
    await page.waitForURL(/\/dashboard\/orders\/[a-z0-9]{20,}$/);
    expect(await page.locator("h1").textContent()).toContain("Order #1001");
    const orders = (await t.api.get("/api/vendor/orders", { key })).body.orders;
    expect(orders.map((o: { customerId: string }) => o.customerId)).toEqual([clara.body.id]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
