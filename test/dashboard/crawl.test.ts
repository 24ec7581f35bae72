// Properties of the whole dashboard, checked by crawling it as a signed-in vendor: whatever pages
// exist now or are added later, (1) no page of one vendor shows another vendor's data, (2) another
// vendor's id in any page URL is a 404, (3) every POST form refuses a missing or wrong CSRF token,
// (4) no page scrolls sideways on a 390px phone (in Chromium; with SCREENSHOTS=1, a screenshot of
// each), (5) every page reads in every language (the member's own, set on their Account page):
// no missing message (a missing key throws: a 500), no raw key shown, `<html lang>` right, and
// the service's internal name "vendor-api" nowhere (the product is PRODUCT_NAME), and (6) in the
// pseudo-locale en-XA (longer text) no page scrolls sideways at 390 px nor cuts text off.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { languages, pseudoLocale } from "../../src/i18n/languages.ts";
import { createApiKey } from "../../src/modules/api-keys/api-keys.service.ts";
import { inviteMember, listInvitations } from "../../src/modules/members/invitations.service.ts";
import { listTeam } from "../../src/modules/members/members.service.ts";
import { type Browser, decodeEntities, type PageResponse } from "../helpers/browser.ts";
import { expectNoSidewaysScroll, screenshot, useChromium } from "../helpers/chromium.ts";
import { createMember, createVendor, createVendorWithKey, TEST_PASSWORD } from "../helpers/factories.ts";
import { createClient, signedInBrowser } from "../helpers/oauth.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";

let t: TestApp;
const chromium = useChromium();
const MARK = `MARK${randomUUID().replaceAll("-", "")}`;
let idsOfA: string[] = [];
let emailA: string;
let emailB: string;
let keyA: string;
let vendorIdA: string;

/** What vendor A can see through the API: must not change when vendor B pokes at A's ids. */
async function snapshotOfA(): Promise<string> {
  const paths = [
    "/api/vendor/orders",
    "/api/vendor/customers",
    "/api/vendor/appointments",
    "/api/vendor/webhooks",
  ];
  const bodies = await Promise.all(paths.map((p) => t.api.get(p, { key: keyA })));
  // And A's team: its members with their roles, and its invitations.
  const team = await listTeam(t.ctx, vendorIdA);
  const invitations = await listInvitations(t.ctx, vendorIdA);
  return JSON.stringify([bodies.map((b) => b.body), team, invitations]);
}

beforeAll(async () => {
  t = await startTestApp();
  // Vendor A: one of everything, each carrying the marker.
  const a = await createVendorWithKey(t.ctx, `${MARK} Bridal`);
  emailA = a.vendor.email;
  vendorIdA = a.vendor.id;
  const key = a.key;
  keyA = key;
  const api = t.api;
  const order = await api.post(
    "/api/vendor/orders",
    {
      customerName: `${MARK} Customer`,
      customerEmail: `${MARK.toLowerCase()}@example.com`,
      type: "RENTAL",
      model: `${MARK} model`,
      description: `${MARK} description`,
    },
    { key },
  );
  await api.put(
    `/api/vendor/orders/${order.body.id}/status`,
    { status: "IN_PRODUCTION", message: `${MARK} msg` },
    { key },
  );
  const customer = await api.post(
    "/api/vendor/customers",
    { name: `${MARK} Other`, notes: `${MARK} notes` },
    { key },
  );
  const appointment = await api.post(
    "/api/vendor/appointments",
    { customerId: customer.body.id, type: "FITTING", date: "2099-05-01T10:00:00Z", notes: `${MARK} appt` },
    { key },
  );
  const inquiry = await api.post(`/api/public/vendors/${a.vendor.id}/inquiries`, {
    name: `${MARK} Lead`,
    email: "lead@example.com",
    message: `${MARK} question`,
  });
  const webhook = await api.post(
    "/api/vendor/webhooks",
    { url: `http://127.0.0.1:9/${MARK}`, events: ["order.created"] },
    { key },
  );
  const apiKey = await createApiKey(t.ctx, { vendorId: a.vendor.id, name: `${MARK} key` });
  // A's sandbox (CONTRACT 11), with test data carrying the marker too.
  const testKey = await createApiKey(t.ctx, { vendorId: a.vendor.id, name: `${MARK} test key`, test: true });
  const testOrder = await api.post(
    "/api/vendor/orders",
    { customerName: `${MARK} Sandbox`, customerEmail: "sandbox@example.com", type: "SUIT" },
    { key: testKey.key },
  );
  await api.post(
    "/api/vendor/webhooks",
    { url: `http://127.0.0.1:9/${MARK}-sandbox`, events: ["order.created"] },
    { key: testKey.key },
  );
  const client = await createClient(t.ctx);
  // A's team: a staff member and a pending invitation (Settings → Team).
  const staff = await createMember(t.ctx, a.vendor.id, { name: `${MARK} Staff` });
  const invitation = await inviteMember(
    t.ctx,
    a.vendor.id,
    { id: a.vendor.ownerId, name: `${MARK} Owner` },
    { email: `${MARK.toLowerCase()}-invited@example.com`, role: "staff" },
  );
  idsOfA = [
    staff.id,
    a.vendor.ownerId,
    invitation.id,
    order.body.id,
    order.body.customerId,
    customer.body.id,
    appointment.body.id,
    inquiry.body.id,
    webhook.body.id,
    apiKey.row.id,
    // One of the sandbox's: more would take the crawl past the dashboard's per-address budget.
    testOrder.body.id,
    ...Object.values(client).filter(
      (v): v is string => typeof v === "string" && /^(app_|[a-z0-9]{24,})/.test(v),
    ),
  ].filter((id): id is string => typeof id === "string");
  expect(idsOfA.length).toBeGreaterThanOrEqual(7);

  const b = await createVendor(t.ctx, "Other Vendor");
  emailB = b.email;
  // B has a sandbox too, so its sandbox pages list records (B's, never A's).
  const testKeyB = await createApiKey(t.ctx, { vendorId: b.id, name: "B test key", test: true });
  await api.post("/api/vendor/customers", { name: "B Sandbox" }, { key: testKeyB.key });
});
const ownApps: TestApp[] = [];
afterAll(async () => {
  for (const app of ownApps) await app.close();
  await t.close();
});

/**
 * An app of the test's own on the same database: the tests that try every id on every route
 * send hundreds of requests each, and with one app their per-address dashboard budgets
 * (DASHBOARD_REQUESTS_PER_MINUTE) would add up to a 429 as the dashboard grows.
 */
async function ownApp(env: Record<string, string> = {}): Promise<TestApp> {
  const app = await startTestApp({ env });
  ownApps.push(app);
  return app;
}

/** Every dashboard page reachable by links from /dashboard, as this browser sees them. */
async function crawl(browser: Browser): Promise<Map<string, PageResponse>> {
  const pages = new Map<string, PageResponse>();
  const queue = ["/dashboard"];
  while (queue.length > 0 && pages.size < 300) {
    const path = queue.shift() as string;
    if (pages.has(path)) continue;
    let res = await browser.get(path);
    for (let hops = 0; res.status === 303 || res.status === 302; hops++) {
      if (!res.location || hops > 3) break;
      const next = res.location;
      if (!next.startsWith("/")) break;
      res = await browser.get(next);
    }
    pages.set(path, res);
    for (const m of res.text.matchAll(/href="([^"]+)"/g)) {
      const href = decodeEntities(m[1] ?? "");
      if (!href.startsWith("/dashboard") && !href.startsWith("/track/")) continue;
      if (!pages.has(href) && !queue.includes(href)) queue.push(href);
    }
  }
  return pages;
}

interface Form {
  action: string;
  fields: Record<string, string>;
}

function postForms(page: string): Form[] {
  const forms: Form[] = [];
  for (const m of page.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)) {
    const attrs = m[1] ?? "";
    if (!/method="post"/i.test(attrs)) continue;
    const action = decodeEntities(/action="([^"]*)"/.exec(attrs)?.[1] ?? "");
    const fields: Record<string, string> = {};
    for (const input of (m[2] ?? "").matchAll(/<input\b([^>]*)>/g)) {
      const name = /name="([^"]*)"/.exec(input[1] ?? "")?.[1];
      if (!name) continue;
      fields[decodeEntities(name)] = decodeEntities(/value="([^"]*)"/.exec(input[1] ?? "")?.[1] ?? "x");
    }
    forms.push({ action, fields });
  }
  return forms;
}

// Every page of the dashboard, several times over: ~27 s for the phone walk here beside the other
// worker, close to the default 30 s.
describe("the dashboard, crawled", { timeout: 120_000 }, () => {
  it("no page of another vendor shows this vendor's data, and no page fails", async () => {
    const browser = await signedInBrowser(t, emailB);
    const pages = await crawl(browser);
    expect(pages.size, "every section of the dashboard").toBeGreaterThanOrEqual(9);
    for (const [path, res] of pages) {
      expect(res.status, path).toBeLessThan(500);
      expect(res.text.includes(MARK), `${path} shows another vendor's data`).toBe(false);
    }
  });

  it("another vendor's id in any dashboard URL answers 404", async () => {
    const browser = await signedInBrowser(await ownApp(), emailB);
    const patterns = t.app.routeCatalog.filter(
      (r) => r.method === "GET" && /^\/(dashboard|track)\/.*:/.test(r.url),
    );
    for (const route of patterns) {
      for (const id of idsOfA) {
        const path = route.url.replace(/:[A-Za-z]+/g, id);
        const res = await browser.get(path);
        expect(res.status, `${path}`).toBe(404);
        expect(res.text.includes(MARK), path).toBe(false);
      }
    }
  });

  it("another vendor's id in any dashboard form action changes nothing", async () => {
    const browser = await signedInBrowser(await ownApp(), emailB);
    const csrf =
      /name="_csrf" value="([^"]+)"/.exec((await browser.get("/dashboard/account")).text)?.[1] ?? "";
    const before = await snapshotOfA();
    const patterns = t.app.routeCatalog.filter((r) => r.method === "POST" && /^\/dashboard\/.*:/.test(r.url));
    for (const route of patterns) {
      for (const id of idsOfA) {
        const path = route.url.replace(/:[A-Za-z]+/g, id);
        // Plausible values for every form field the dashboard has, so a missing check on the
        // vendor would show as a change, not hide behind a validation error.
        const res = await browser.post(path, {
          _csrf: decodeEntities(csrf),
          status: "CANCELLED",
          message: "changed by another vendor",
          name: "Changed",
          email: "changed@example.com",
          url: "http://127.0.0.1:9/changed",
          events: "order.created",
          since: "2020-01-01T00:00",
          role: "owner",
          confirmed: "yes",
        });
        expect(res.status, `${path} answered ${res.status}`).toBeLessThan(500);
        expect(res.text.includes(MARK), path).toBe(false);
      }
    }
    expect(await snapshotOfA()).toBe(before);
  });

  it("every POST form refuses a missing or a wrong CSRF token with 403", async () => {
    const browser = await signedInBrowser(await ownApp(), emailA);
    const pages = await crawl(browser);
    const forms = new Map<string, Form>();
    for (const res of pages.values()) for (const form of postForms(res.text)) forms.set(form.action, form);
    expect(forms.size, "the forms of every section").toBeGreaterThanOrEqual(10);
    expect([...forms.keys()]).toContain("/dashboard/integrations/sandbox/reset");
    for (const form of forms.values()) {
      expect(form.fields._csrf, `${form.action} carries a CSRF token`).toEqual(expect.any(String));
      const { _csrf: _token, ...withoutToken } = form.fields;
      const missing = await browser.post(form.action, withoutToken);
      expect(missing.status, `${form.action} without a token`).toBe(403);
      const wrong = await browser.post(form.action, { ...withoutToken, _csrf: "forged-token" });
      expect(wrong.status, `${form.action} with a wrong token`).toBe(403);
    }
    // The session survived all of that: nothing was signed out by a forged form.
    expect((await browser.get("/dashboard")).status).not.toBe(401);
  });

  // A catalogue key as a page would show it if a message were looked up but not found.
  const rawKey = /\b(?:dashboard|account|errors|shopMail|common)\.[A-Za-z]+\.[A-Za-z.]+\b/;

  it("every page reads in every language: no missing or raw key, the right lang, no vendor-api", async () => {
    // Nine crawls of the whole dashboard from one address in a minute: far past a person's budget.
    const app = await ownApp({ DASHBOARD_REQUESTS_PER_MINUTE: "100000" });
    const browser = await signedInBrowser(app, emailA);
    const account = await browser.get("/dashboard/account");
    const csrf = decodeEntities(/name="_csrf" value="([^"]+)"/.exec(account.text)?.[1] ?? "");
    for (const language of [...languages, pseudoLocale]) {
      const saved = await browser.post("/dashboard/account/language", { _csrf: csrf, language });
      expect(saved.status, `${language} saved`).toBe(303);
      const pages = await crawl(browser);
      expect(pages.size, `every section of the dashboard in ${language}`).toBeGreaterThanOrEqual(9);
      for (const [path, res] of pages) {
        if (!res.headers.get("content-type")?.startsWith("text/html")) continue;
        expect(res.status, `${path} in ${language}`).toBeLessThan(500);
        if (path.startsWith("/dashboard"))
          expect(res.text, `${path} in ${language}`).toContain(`<html lang="${language}">`);
        expect(rawKey.exec(res.text)?.[0], `${path} in ${language} shows a raw key`).toBeUndefined();
        expect(res.text.includes("vendor-api"), `${path} in ${language} names vendor-api`).toBe(false);
      }
    }
    // Back to the shop's language (English) for the tests that follow.
    await browser.post("/dashboard/account/language", { _csrf: csrf, language: "" });
    expect((await browser.get("/dashboard/orders")).text).toContain('<html lang="en">');
  }, 600_000);

  it.skipIf(!chromium.available)(
    "in the pseudo-locale en-XA, no page scrolls sideways at 390 px nor cuts its text off",
    async () => {
      const app = await ownApp();
      const browser = await signedInBrowser(app, emailA);
      const account = await browser.get("/dashboard/account");
      const csrf = decodeEntities(/name="_csrf" value="([^"]+)"/.exec(account.text)?.[1] ?? "");
      expect(
        (await browser.post("/dashboard/account/language", { _csrf: csrf, language: pseudoLocale })).status,
      ).toBe(303);
      const pages = await crawl(browser);
      const paths = [...pages]
        .filter(
          ([path, res]) => res.headers.get("content-type")?.startsWith("text/html") && !path.endsWith(".csv"),
        )
        .map(([path]) => path)
        .filter((path) => path.startsWith("/dashboard"));
      const context = await chromium.browser.newContext({ viewport: { width: 390, height: 844 } });
      try {
        const page = await context.newPage();
        await page.goto(`${app.url}/login`);
        await page.getByLabel("Email").fill(emailA);
        await page.getByLabel("Password").fill(TEST_PASSWORD);
        await page.getByRole("button", { name: "Sign in" }).click();
        await page.waitForURL(/\/dashboard/);
        for (const path of paths) {
          await page.goto(`${app.url}${path}`);
          expect(await page.getAttribute("html", "lang"), path).toBe(pseudoLocale);
          await expectNoSidewaysScroll(page, `${path} in ${pseudoLocale} at 390px`);
          // Text cut off: an element whose own text overflows a box that hides the overflow.
          const cut = await page.evaluate(() =>
            [...document.querySelectorAll("body *")]
              .filter((element) => {
                const style = getComputedStyle(element);
                const hides = [style.overflowX, style.overflowY].some((o) => o === "hidden" || o === "clip");
                // Visually hidden on purpose (the off-screen implicit-submit button) is not text cut off.
                const box = element.getBoundingClientRect();
                const shown = box.right > 0 && box.width > 1 && box.height > 1;
                return (
                  hides &&
                  shown &&
                  (element.scrollWidth > element.clientWidth + 1 ||
                    element.scrollHeight > element.clientHeight + 1) &&
                  (element.textContent ?? "").trim() !== ""
                );
              })
              .slice(0, 5)
              .map((element) => `${element.tagName.toLowerCase()}.${element.className}`),
          );
          expect(cut, `${path} in ${pseudoLocale} cuts text off`).toEqual([]);
          await screenshot(page, `crawl-en-XA-${path.replace(/[^A-Za-z0-9]+/g, "-").slice(0, 80)}`);
        }
        expect(paths.length, "every section of the dashboard").toBeGreaterThanOrEqual(9);
      } finally {
        await context.close();
      }
      await browser.post("/dashboard/account/language", { _csrf: csrf, language: "" });
    },
    600_000,
  );

  it.skipIf(!chromium.available)(
    "no page scrolls sideways on a 390px phone",
    async () => {
      const pages = await crawl(await signedInBrowser(t, emailA));
      const paths = [...pages]
        .filter(
          ([path, res]) => res.headers.get("content-type")?.startsWith("text/html") && !path.endsWith(".csv"),
        )
        .map(([path]) => path);
      expect(paths.length, "every section of the dashboard").toBeGreaterThanOrEqual(9);
      const context = await chromium.browser.newContext({ viewport: { width: 390, height: 844 } });
      try {
        const page = await context.newPage();
        await page.goto(`${t.url}/login`);
        await page.getByLabel("Email").fill(emailA);
        await page.getByLabel("Password").fill(TEST_PASSWORD);
        await page.getByRole("button", { name: "Sign in" }).click();
        await page.waitForURL(/\/dashboard/);
        for (const path of paths) {
          await page.goto(`${t.url}${path}`);
          await expectNoSidewaysScroll(page, `${path} at 390px`);
          const name = path
            .replace(/^\//, "")
            .replace(/[^A-Za-z0-9]+/g, "-")
            .slice(0, 80);
          await screenshot(page, `crawl-phone-${name}`);
        }
      } finally {
        await context.close();
      }
    },
    240_000,
  );
});
