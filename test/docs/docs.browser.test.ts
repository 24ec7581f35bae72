// The reference and every guide in Debian's Chromium, at desktop width and as a 390 px phone:
// every request the page makes goes to the service itself (no CDN, no fonts, no analytics), the
// page breaks no Content-Security-Policy rule, Redoc actually renders the document, and nothing
// scrolls sideways. With SCREENSHOTS=1, screenshots land in test-artifacts/screenshots/docs-*.png.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GUIDES } from "../../src/docs/page-frame.ts";
import { expectNoSidewaysScroll, screenshot, useChromium } from "../helpers/chromium.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";

let t: TestApp;
const chromium = useChromium();
beforeAll(async () => {
  if (!chromium.available) return;
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

const widths = [
  { label: "desktop", width: 1280, height: 800 },
  { label: "phone", width: 390, height: 844 },
];

/** Opens a page recording every request it makes and every CSP violation it reports. */
async function visit(width: number, height: number, path: string) {
  const context = await chromium.browser.newContext({ viewport: { width, height } });
  const page = await context.newPage();
  const requests: string[] = [];
  const violations: string[] = [];
  page.on("request", (request) => requests.push(request.url()));
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
  });
  await page.goto(`${t.url}${path}`, { waitUntil: "load" });
  return { context, page, requests, violations };
}

/** Every URL must be our origin, or a blob:/data: URL the page made itself. */
function foreign(requests: string[], origin: string): string[] {
  return requests.filter((url) => !url.startsWith(`${origin}/`) && !/^(blob|data):/.test(url));
}

describe.skipIf(!chromium.available).each(widths)(
  "docs in Chromium, $label ($width px)",
  ({ label, width, height }) => {
    it("the reference renders the document from our own origin, within its CSP and the screen", async () => {
      const { context, page, requests, violations } = await visit(width, height, "/docs");
      try {
        // Redoc has rendered the document: its title and an operation from the spec are on screen.
        await page.waitForSelector(".api-info h1", { timeout: 30_000 });
        expect(await page.textContent(".api-info h1")).toContain("vendor-api");
        await page.locator("h2", { hasText: "List orders" }).first().waitFor({ timeout: 30_000 });
        await page.waitForLoadState("networkidle");
        expect(requests).toContain(`${t.url}/openapi.json`);
        expect(foreign(requests, t.url)).toEqual([]);
        expect(violations).toEqual([]);
        expect(await page.title()).toBe("vendor-api reference");
        await expectNoSidewaysScroll(page, page.url());
        await screenshot(page, `docs-reference-${label}`);
      } finally {
        await context.close();
      }
    }, 90_000);

    // Each guide in a browser context of its own, several at once: a visit is mostly waiting
    // (for the network to be idle for 500 ms), and in turn the 16 visits took ~25 s.
    it.concurrent.each(GUIDES.map((g) => [g.name]))(
      "the %s guide loads nothing foreign and fits the screen",
      async (name) => {
        const { context, page, requests, violations } = await visit(width, height, `/docs/guides/${name}`);
        try {
          await page.waitForLoadState("networkidle");
          expect(await page.locator("main h1").count()).toBe(1);
          expect(foreign(requests, t.url)).toEqual([]);
          expect(violations).toEqual([]);
          await expectNoSidewaysScroll(page, page.url());
          await screenshot(page, `docs-guide-${name}-${label}`);
        } finally {
          await context.close();
        }
      },
    );

    it("the errors page (problem type links) fits the screen and lands on the code's entry", async () => {
      const { context, page, requests } = await visit(width, height, "/docs/errors#invalid_transition");
      try {
        expect(await page.locator("#invalid_transition").isVisible()).toBe(true);
        expect(await page.locator("#invalid_transition").textContent()).toContain("allowedStatuses");
        expect(foreign(requests, t.url)).toEqual([]);
        await expectNoSidewaysScroll(page, page.url());
        await screenshot(page, `docs-errors-${label}`);
      } finally {
        await context.close();
      }
    });
  },
);
