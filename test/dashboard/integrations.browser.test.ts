// The integrations pages in a real browser (Debian's Chromium via playwright-core): sign in, create
// an API key and use it, register an application and complete an OAuth authorization with PKCE
// against a local callback, register a webhook and see a test delivery in its log, sign out.
// Every stored text is an XSS payload; any dialog fails the test. With SCREENSHOTS=1, screenshots
// go to test-artifacts/screenshots (desktop, and 390px wide as a phone).
import { createHash, randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Dispatcher, startDispatcher } from "../../src/webhook-delivery/dispatcher.ts";
import { expectNoSidewaysScroll, screenshot, useChromium } from "../helpers/chromium.ts";
import { XSS } from "../helpers/dashboard.ts";
import { createVendor, TEST_PASSWORD } from "../helpers/factories.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";
import { eventually, type Receiver, startReceiver } from "../helpers/webhook-receiver.ts";

const chromium = useChromium();

/** A stand-in OAuth client's redirect URI: records the query of each GET /callback. */
async function startCallback() {
  const hits: URLSearchParams[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname === "/callback") hits.push(url.searchParams);
    res
      .writeHead(200, { "content-type": "text/html" })
      .end("<!doctype html><title>Client</title><p>Connected.</p>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const uri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return { uri, hits, close };
}

describe.skipIf(!chromium.available)("dashboard integrations in Chromium", () => {
  let t: TestApp;
  let dispatcher: Dispatcher;
  let receiver: Receiver;
  let callback: Awaited<ReturnType<typeof startCallback>>;

  beforeAll(async () => {
    t = await startTestApp({ ownDatabase: true });
    dispatcher = await startDispatcher({ config: t.config, database: t.database });
    receiver = await startReceiver(() => ({ status: 200, body: XSS }));
    callback = await startCallback();
  }, 60_000);
  afterAll(async () => {
    await callback?.close();
    await receiver?.close();
    await dispatcher?.stop(1_000);
    await t?.close();
  });

  async function shots(page: Page, name: string) {
    await screenshot(page, `${name}-desktop`);
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, `${name}-phone`);
    await expectNoSidewaysScroll(page, `${name} on a 390px phone`);
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  it("API key, OAuth application, webhook and sign-out work through the pages", async () => {
    const vendor = await createVendor(t.ctx, "Atelier Browser");
    const context = await chromium.browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: t.url });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    const dialogs: string[] = [];
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });

    // Sign in through /login, sent there from a dashboard page.
    await page.goto(`${t.url}/dashboard/integrations/api-keys`);
    expect(new URL(page.url()).pathname).toBe("/login");
    await page.fill("#email", vendor.email);
    await page.fill("#password", TEST_PASSWORD);
    await page.click("button[type=submit]");
    await page.waitForURL(`${t.url}/dashboard/integrations/api-keys`);
    await shots(page, "api-keys-empty");

    // An API key, shown once, used against the API.
    await page.fill("#key-name", XSS);
    await page.check('input[name="scopes"][value="orders:read"]');
    await page.click('button:has-text("Create key")');
    const key = (await page.textContent("[data-secret]"))?.trim() ?? "";
    expect(key).toMatch(/^vk_/);
    // The copy button (progressive enhancement) puts the key on the clipboard.
    await page.click("button[data-copy]");
    await page.waitForSelector('button[data-copy]:has-text("Copied")');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    await shots(page, "api-keys");
    const orders = await fetch(`${t.url}/api/vendor/orders`, { headers: { "x-api-key": key } });
    expect(orders.status).toBe(200);

    // An application, then an OAuth authorization with PKCE in the browser.
    await page.click("nav >> text=Applications");
    await page.fill("#app-name", XSS);
    await page.fill("#app-uris", callback.uri);
    await page.click('button:has-text("Register")');
    const clientSecret = (await page.textContent("[data-secret]"))?.trim() ?? "";
    const clientId = (await page.textContent("section.card dd code"))?.trim() ?? "";
    expect(clientSecret).toMatch(/^vcs_/);
    expect(clientId).toMatch(/^app_/);
    await shots(page, "applications");

    const verifier = randomBytes(32).toString("base64url");
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    const authorize = new URLSearchParams({
      response_type: "code",
      client_id: clientId,
      redirect_uri: callback.uri,
      scope: "orders:read profile:read",
      state: "browser-state",
      code_challenge: challenge,
      code_challenge_method: "S256",
    });
    await page.goto(`${t.url}/api/oauth/authorize?${authorize}`);
    await screenshot(page, "consent");
    await page.click('button[value="allow"]');
    await page.waitForURL((url) => url.href.startsWith(callback.uri));
    const returned = new URL(page.url()).searchParams;
    expect(returned.get("state")).toBe("browser-state");
    const token = await fetch(`${t.url}/api/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code: returned.get("code") ?? "",
        redirect_uri: callback.uri,
        code_verifier: verifier,
        client_id: clientId,
        client_secret: clientSecret,
      }),
    });
    expect(token.status).toBe(200);
    const { access_token } = (await token.json()) as { access_token: string };
    const profile = await fetch(`${t.url}/api/vendor/orders`, {
      headers: { authorization: `Bearer ${access_token}` },
    });
    expect(profile.status).toBe(200);
    await page.goto(`${t.url}/dashboard/integrations/connected-apps`);
    expect(await page.textContent("main table")).toContain(XSS);
    await shots(page, "connected-apps");

    // A webhook to a local receiver; a test event from the page shows up in its delivery log.
    await page.click("nav >> text=Webhooks");
    await page.fill("#hook-url", `${receiver.url}?q=${encodeURIComponent(XSS)}`);
    await page.check('input[name="events"][value="order.created"]');
    await page.click('button:has-text("Register webhook")');
    expect(await page.textContent("[data-secret]")).toBeTruthy();
    await page.click('button:has-text("Send test event")');
    await receiver.waitFor(1);
    // The log shows the delivery SUCCEEDED once the dispatcher has recorded the receiver's answer.
    await eventually(async () => {
      await page.reload();
      return page.locator('section.delivery[data-status="SUCCEEDED"]').isVisible();
    });
    expect(await page.textContent("section.delivery pre")).toBe(XSS);
    await shots(page, "webhook-log");
    await page.click("text=← All webhooks");
    await shots(page, "webhooks");
    await page.click("nav >> text=Account");
    await shots(page, "account");

    // Sign out from the header: back at /login, and the dashboard asks to sign in again.
    await page.click("header >> text=Sign out");
    await page.waitForURL(`${t.url}/login`);
    await page.goto(`${t.url}/dashboard/integrations/api-keys`);
    expect(new URL(page.url()).pathname).toBe("/login");

    expect(dialogs).toEqual([]);
    await context.close();
  }, 120_000);
});
