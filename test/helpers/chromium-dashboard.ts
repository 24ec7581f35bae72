// Dashboard pages in Chromium at a given width: a signed-in page (JavaScript off, as the pages must
// work without it), and a screenshot that also checks nothing scrolls sideways.
import type { Browser, Page } from "playwright-core";
import { expectNoSidewaysScroll, screenshot } from "./chromium.ts";
import { TEST_PASSWORD } from "./factories.ts";

/** The widths every page is checked at: a desktop and a phone. */
export const WIDTHS = [1280, 390] as const;

/** A new context at `width` (JavaScript off) signed in as `email` through /login; `dialogs` records any dialog. */
export async function signedInPage(chromium: Browser, baseUrl: string, email: string, width: number) {
  const context = await chromium.newContext({
    viewport: { width, height: 900 },
    javaScriptEnabled: false,
  });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  // No page may ask through a browser dialog (confirm() is no confirmation step): the test checks it.
  const dialogs: string[] = [];
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await page.goto(`${baseUrl}/login`);
  await page.fill("#email", email);
  await page.fill("#password", TEST_PASSWORD);
  await page.click("button[type=submit]");
  await page.waitForURL((url) => url.pathname.startsWith("/dashboard"));
  return { context, page, dialogs };
}

/**
 * The page no wider than the viewport; with SCREENSHOTS=1, also a full-page screenshot named for
 * the width.
 */
export async function shot(page: Page, name: string, width: number): Promise<void> {
  await expectNoSidewaysScroll(page, `${name} at ${width}px`);
  await screenshot(page, `${name}-${width}`);
}

/** The page's path (the URL without origin and query). */
export function pathOf(page: Page): string {
  return new URL(page.url()).pathname;
}
