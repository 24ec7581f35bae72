// Issue 28.5 in the dashboard: a test key made on the API keys page (the "Test key" choice), the
// sandbox's records under Integrations → Sandbox (read-only, under a "Test data" banner, never
// live data), and "Reset sandbox data" behind a confirmation step. Other shops, CSRF and phone
// widths: test/dashboard/crawl.test.ts, which crawls these pages too.
import { describe, expect, it } from "vitest";
import { createApiKey } from "../../src/modules/api-keys/api-keys.service.ts";
import { Browser } from "../helpers/browser.ts";
import {
  confirmThrough,
  flashOf,
  follow,
  postFrom,
  signedInVendor,
  XSS,
  XSS_ESCAPED,
} from "../helpers/dashboard.ts";
import { createKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

const KEYS = "/dashboard/integrations/api-keys";
const PAGE = "/dashboard/integrations/sandbox";

async function shopWithBothWorlds() {
  const { vendor, browser } = await signedInVendor(t);
  const liveKey = await createKey(t.ctx, vendor.id);
  const { key: testKey } = await createApiKey(t.ctx, { vendorId: vendor.id, name: "POS tests", test: true });
  const live = await t.api.post(
    "/api/vendor/orders",
    { customerName: "Live Lucia", type: "SUIT" },
    { key: liveKey },
  );
  const sandbox = await t.api.post(
    "/api/vendor/orders",
    { customerName: "Test Tania", type: "SUIT" },
    { key: testKey },
  );
  expect([live.status, sandbox.status]).toEqual([201, 201]);
  return {
    vendor,
    browser,
    liveKey,
    testKey,
    liveOrderId: live.body.id as string,
    testOrderId: sandbox.body.id as string,
  };
}

describe("dashboard: test keys", () => {
  it("the API keys page makes a vk_test_ key with the Test key choice, lists it marked Test, and the key acts for the sandbox", async () => {
    const { browser } = await signedInVendor(t);
    const created = await postFrom(browser, KEYS, KEYS, { name: "POS tests", test: "on" });
    const page = await follow(browser, created);
    const flash = flashOf(page);
    expect(flash?.kind).toBe("success");
    expect(flash?.text).toContain("sandbox");
    const key = flash?.secret ?? "";
    expect(key).toMatch(/^vk_test_/);
    expect(page.text).toContain(`<code class="nowrap">${key.slice(0, 15)}…</code>`);
    expect(page.text).toMatch(
      /POS tests <a class="badge test" href="\/dashboard\/integrations\/sandbox">Test<\/a>/,
    );
    const profile = await t.api.get("/api/vendor/profile", { key });
    expect(profile.body.livemode).toBe(false);
    // Without the choice, a live key, unmarked.
    const live = flashOf(await follow(browser, await postFrom(browser, KEYS, KEYS, { name: "Back office" })));
    expect(live?.secret).toMatch(/^vk_(?!test_)/);
    expect((await t.api.get("/api/vendor/profile", { key: live?.secret ?? "" })).body.livemode).toBe(true);
  });

  it("a test key is revoked from the API keys page like any other", async () => {
    const { vendor, browser } = await signedInVendor(t);
    const { row, key } = await createApiKey(t.ctx, { vendorId: vendor.id, name: "POS tests", test: true });
    await follow(browser, await confirmThrough(browser, `${KEYS}/${row.id}/revoke`));
    expect((await t.api.get("/api/vendor/profile", { key })).status).toBe(401);
  });
});

describe("dashboard: the sandbox page", () => {
  it("is behind sign-in", async () => {
    const res = await new Browser(t.url).get(PAGE);
    expect(res.status).toBe(303);
    expect(res.location).toBe(`/login?return_to=${encodeURIComponent(PAGE)}`);
  });

  it("before the first test key, says how to make one", async () => {
    const { browser } = await signedInVendor(t);
    const page = await browser.get(PAGE);
    expect(page.status).toBe(200);
    expect(page.text).toContain("No sandbox yet");
    expect(page.text).toContain(`href="${KEYS}"`);
    expect(page.text).not.toContain("Reset sandbox data");
  });

  it("shows the sandbox's records of each kind under the Test data banner, and never live ones", async () => {
    const { browser, testKey, testOrderId, liveOrderId } = await shopWithBothWorlds();
    const customer = await t.api.post(
      "/api/vendor/customers",
      { name: XSS, email: "c@example.com" },
      { key: testKey },
    );
    await t.api.post(
      "/api/vendor/appointments",
      { customerId: customer.body.id, type: "FITTING", date: "2099-05-01T10:00:00Z" },
      { key: testKey },
    );
    const profile = await t.api.get("/api/vendor/profile", { key: testKey });
    await t.api.post(`/api/public/vendors/${profile.body.id}/inquiries`, {
      name: "Test Lead",
      email: "lead@example.com",
      message: "Sandbox question",
    });
    await t.api.post(
      "/api/vendor/webhooks",
      { url: "https://receiver.example/sandbox-hook", events: ["order.created"] },
      { key: testKey },
    );
    const orders = await browser.get(PAGE);
    expect(orders.status).toBe(200);
    expect(orders.text).toContain("Test data.");
    expect(orders.text).toContain("Test Tania");
    expect(orders.text).toContain(testOrderId);
    expect(orders.text).not.toContain("Live Lucia");
    expect(orders.text).not.toContain(liveOrderId);
    expect(orders.text).toContain("Orders (1)");
    const expected: Record<string, string> = {
      customers: XSS_ESCAPED,
      appointments: "Fitting",
      inquiries: "Sandbox question",
      webhooks: "https://receiver.example/sandbox-hook",
    };
    for (const [view, text] of Object.entries(expected)) {
      const res = await browser.get(`${PAGE}?view=${view}`);
      expect(res.status, view).toBe(200);
      expect(res.text, view).toContain("Test data.");
      expect(res.text, view).toContain(text);
      expect(res.text, view).not.toContain("Live Lucia");
    }
    expect((await browser.get(`${PAGE}?view=customers`)).text).not.toContain(XSS);
  });

  it("the shop's own pages never show sandbox records", async () => {
    const { browser, testKey, testOrderId } = await shopWithBothWorlds();
    await t.api.post("/api/vendor/customers", { name: "Test Tobias" }, { key: testKey });
    const profile = await t.api.get("/api/vendor/profile", { key: testKey });
    await t.api.post(`/api/public/vendors/${profile.body.id}/inquiries`, {
      name: "Test Tilda",
      email: "lead@example.com",
      message: "Sandbox question",
    });
    await t.api.post(
      "/api/vendor/webhooks",
      { url: "https://receiver.example/test-only-hook", events: ["order.created"] },
      { key: testKey },
    );
    const orders = await browser.get("/dashboard/orders");
    expect(orders.text).toContain("Live Lucia");
    for (const path of [
      "/dashboard/orders",
      "/dashboard/customers",
      "/dashboard/appointments",
      "/dashboard/inquiries",
      "/dashboard/integrations",
      "/dashboard/integrations/webhooks",
      "/dashboard/activity",
    ]) {
      const res = await browser.get(path);
      expect(res.status, path).toBe(200);
      for (const sandboxText of ["Test Tania", "Test Tobias", "Test Tilda", "test-only-hook", testOrderId]) {
        expect(res.text.includes(sandboxText), `${path} shows ${sandboxText}`).toBe(false);
      }
    }
    expect((await browser.get(`/dashboard/orders/${testOrderId}`)).status).toBe(404);
  });
});

describe("dashboard: reset sandbox data", () => {
  it("asks first, then deletes the sandbox's data only: live data, test keys and sandbox webhooks stay", async () => {
    const { browser, liveKey, testKey, testOrderId, liveOrderId } = await shopWithBothWorlds();
    await t.api.post(
      "/api/vendor/webhooks",
      { url: "https://receiver.example/sandbox-hook", events: ["order.created"] },
      { key: testKey },
    );
    const page = await browser.get(PAGE);
    expect(page.text).toContain(`href="${PAGE}/reset"`);
    const confirmation = await browser.get(`${PAGE}/reset`);
    expect(confirmation.status).toBe(200);
    expect(confirmation.text).toContain("Reset the sandbox");
    // Counts in words that agree with them: "1 order", "1 webhook endpoint".
    expect(confirmation.text).toMatch(/: 1 order, 1 customer, 0 appointments, 0 inquiries and \d+ events?,/);
    expect(confirmation.text).toContain("the sandbox&#39;s 1 webhook endpoint stay");
    // A post without the confirmation is sent back to the question and deletes nothing.
    const unconfirmed = await postFrom(browser, `${PAGE}/reset`, `${PAGE}/reset`, { confirmed: "no" });
    expect(unconfirmed.status).toBe(303);
    expect(unconfirmed.location).toBe(`${PAGE}/reset`);
    expect((await t.api.get(`/api/vendor/orders/${testOrderId}`, { key: testKey })).status).toBe(200);

    const done = await follow(browser, await confirmThrough(browser, `${PAGE}/reset`));
    expect(flashOf(done)?.kind).toBe("success");
    expect(done.text).toContain("Orders (0)");
    expect((await t.api.get(`/api/vendor/orders/${testOrderId}`, { key: testKey })).status).toBe(404);
    expect((await t.api.get("/api/vendor/orders", { key: testKey })).body.orders).toEqual([]);
    expect((await t.api.get("/api/vendor/webhooks", { key: testKey })).body.webhooks).toHaveLength(1);
    expect((await t.api.get(`/api/vendor/orders/${liveOrderId}`, { key: liveKey })).status).toBe(200);
    // The shop's activity log tells who reset it.
    const activity = await browser.get("/dashboard/activity?kind=sandbox");
    expect(activity.status).toBe(200);
    expect(activity.text).toContain("reset the test data of the sandbox");
  });

  it("of a shop without a sandbox is a 404", async () => {
    const { browser } = await signedInVendor(t);
    expect((await browser.get(`${PAGE}/reset`)).status).toBe(404);
  });

  it("one shop's reset leaves another shop's sandbox alone", async () => {
    const a = await shopWithBothWorlds();
    const b = await shopWithBothWorlds();
    await follow(b.browser, await confirmThrough(b.browser, `${PAGE}/reset`));
    expect((await t.api.get(`/api/vendor/orders/${a.testOrderId}`, { key: a.testKey })).status).toBe(200);
    expect((await t.api.get(`/api/vendor/orders/${b.testOrderId}`, { key: b.testKey })).status).toBe(404);
  });
});
