// The reference and every guide in Debian's Chromium, at desktop width and as a 390 px phone:
// every request the page makes goes to the service itself (no CDN, no fonts, no analytics), the
// page breaks no Content-Security-Policy rule, Redoc actually renders the document, and nothing
// scrolls sideways. With SCREENSHOTS=1, screenshots land in test-artifacts/screenshots/docs-*.png.
import type { Page } from "playwright-core";
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

/** What one visit of a page saw: every request it made and every CSP violation it reported. */
interface Visit {
  page: Page;
  requests: string[];
  violations: string[];
}

/** A page at `width` × `height` in a context of its own, recording what each visit sees. */
async function openPage(width: number, height: number) {
  const context = await chromium.browser.newContext({ viewport: { width, height } });
  const page = await context.newPage();
  let seen: Visit = { page, requests: [], violations: [] };
  page.on("request", (request) => seen.requests.push(request.url()));
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) seen.violations.push(message.text());
  });
  return {
    /** Goes to `path`; what the returned visit records starts with this navigation. */
    async visit(path: string): Promise<Visit> {
      seen = { page, requests: [], violations: [] };
      await page.goto(`${t.url}${path}`, { waitUntil: "load" });
      return seen;
    },
  };
}

/** Every URL must be our origin, or a blob:/data: URL the page made itself. */
function foreign(requests: string[], origin: string): string[] {
  return requests.filter((url) => !url.startsWith(`${origin}/`) && !/^(blob|data):/.test(url));
}

describe.skipIf(!chromium.available).each(widths)(
  "docs in Chromium, $label ($width px)",
  ({ label, width, height }) => {
    // Every page is visited in turn in one page: a navigation in an open page costs Chromium
    // ~0.25 s of CPU, a page in a new context ~1 s (a renderer process each). The browser's cache
    // may spare a later visit a stylesheet of our own origin; a foreign request shows in the first
    // visit that makes it.
    let shared: Awaited<ReturnType<typeof openPage>>;
    beforeAll(async () => {
      if (chromium.available) shared = await openPage(width, height);
    });

    it("the reference renders the document from our own origin, within its CSP and the screen", async () => {
      const { page, requests, violations } = await shared.visit("/docs");
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
    }, 90_000);

    it.each(GUIDES.map((g) => [g.name]))(
      "the %s guide loads nothing foreign and fits the screen",
      async (name) => {
        const { page, requests, violations } = await shared.visit(`/docs/guides/${name}`);
        await page.waitForLoadState("networkidle");
        expect(await page.locator("main h1").count()).toBe(1);
        expect(foreign(requests, t.url)).toEqual([]);
        expect(violations).toEqual([]);
        await expectNoSidewaysScroll(page, page.url());
        await screenshot(page, `docs-guide-${name}-${label}`);
      },
    );

    it("the errors page (problem type links) fits the screen and lands on the code's entry", async () => {
      const { page, requests } = await shared.visit("/docs/errors#invalid_transition");
      expect(await page.locator("#invalid_transition").isVisible()).toBe(true);
      expect(await page.locator("#invalid_transition").textContent()).toContain("allowedStatuses");
      expect(foreign(requests, t.url)).toEqual([]);
      await expectNoSidewaysScroll(page, page.url());
      await screenshot(page, `docs-errors-${label}`);
    });
  },
);
