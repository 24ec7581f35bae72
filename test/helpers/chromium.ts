// Debian's Chromium driven by playwright-core (never a downloaded browser). `.ci/run` installs it
// with apt; the flags keep it off this machine's closed network.
import fs from "node:fs";
import path from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, expect } from "vitest";
import { repoRoot } from "./processes.ts";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const SCREENSHOT_DIR = path.join(repoRoot, "test-artifacts", "screenshots");

export function chromiumAvailable(): boolean {
  return fs.existsSync(CHROMIUM_PATH);
}

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** Chromium for the tests of one file (or one describe block): `browser` once its tests run. */
export interface FileChromium {
  /** False without Debian's Chromium: the tests `skipIf(!chromium.available)`. */
  readonly available: boolean;
  readonly browser: Browser;
}

/**
 * One Chromium per vitest worker, launched by the first file that asks and lent to every later
 * one (isolate: false keeps this module, and so the browser, from one file to the next): a
 * launch costs ~1.3 s of CPU, and ~20 browser files each paid it. What a file sees of the browser
 * is its own contexts (cookies, storage, pages), which it opens and closes itself; a context it
 * leaves open is closed after its tests, so none outlives its file. Playwright ends the browser
 * when the worker exits.
 */
let shared: Promise<Browser> | undefined;

async function workerChromium(): Promise<Browser> {
  const browser = shared ? await shared.catch(() => undefined) : undefined;
  if (browser?.isConnected()) return browser;
  shared = launchChromium();
  return shared;
}

/**
 * Lends the worker's Chromium to the tests of the file (or describe block) that calls it, and
 * closes the contexts they left open after them. Without Chromium nothing is launched; npm test's
 * last line names the skipped group.
 */
export function useChromium(): FileChromium {
  const available = chromiumAvailable();
  let lent: Browser | undefined;
  beforeAll(async () => {
    if (available) lent = await workerChromium();
  });
  afterAll(async () => {
    await Promise.all(lent?.contexts().map((context) => context.close()) ?? []);
    lent = undefined;
  });
  return {
    available,
    get browser(): Browser {
      if (!lent) throw new Error("no Chromium: read chromium.browser in a test that skips unless available");
      return lent;
    },
  };
}

/**
 * Longest screenshot kept, in CSS pixels. A page longer than this is cut there: the API reference
 * runs to ~63,000 px on a desktop and ~116,000 px on a phone, and encoding that whole page as PNG
 * cost ~10 s of CPU per screenshot for an image nobody scrolls. Every page of the dashboard and
 * every guide is shorter and kept whole.
 */
export const SCREENSHOT_MAX_HEIGHT = 10_000;

/**
 * Whether `screenshot` saves anything: only when the run asks, with SCREENSHOTS=1 (docs/dashboard.md:
 * Dashboard). A full-page screenshot re-lays the page out at its whole height and encodes it:
 * measured here, the 219 the browser tests take cost ~76 s of the suite's CPU (the 11 browser
 * files took 198 s with them and 160 s without, two workers), for images a passing run's reader
 * never opens. What the tests check (nothing scrolls sideways, what the page says) never depends
 * on them.
 */
export const SCREENSHOTS = process.env.SCREENSHOTS === "1";

/**
 * With SCREENSHOTS=1, saves a full-page screenshot (up to SCREENSHOT_MAX_HEIGHT) under
 * test-artifacts/screenshots/<name>.png and returns its path; otherwise does nothing.
 */
export async function screenshot(page: Page, name: string): Promise<string | undefined> {
  if (!SCREENSHOTS) return undefined;
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  const { width, height } = await page.evaluate(() => ({
    width: document.documentElement.scrollWidth,
    height: document.documentElement.scrollHeight,
  }));
  if (height <= SCREENSHOT_MAX_HEIGHT) await page.screenshot({ path: file, fullPage: true });
  else
    await page.screenshot({
      path: file,
      fullPage: true,
      clip: { x: 0, y: 0, width, height: SCREENSHOT_MAX_HEIGHT },
    });
  return file;
}

/**
 * Fails unless the page fits its viewport's width (a phone never scrolls sideways), naming the
 * elements that stick out. Measured once the document has loaded: an action that navigates
 * returns as soon as the new document commits, before its stylesheet applies, and the unstyled
 * page is wider (a CI run measured the webhooks list 435 px too wide on a phone that way).
 */
export async function expectNoSidewaysScroll(page: Page, what: string): Promise<void> {
  await page.waitForLoadState("load");
  const { overflow, wide } = await page.evaluate(() => {
    const root = document.documentElement;
    const width = root.clientWidth;
    return {
      overflow: root.scrollWidth - width,
      wide: [...document.querySelectorAll("body *")]
        .filter((element) => element.getBoundingClientRect().right > width)
        .slice(0, 5)
        .map(
          (element) => `${element.tagName.toLowerCase()}${element.className ? `.${element.className}` : ""}`,
        ),
    };
  });
  expect(overflow, `${what} scrolls sideways (${wide.join(", ")})`).toBeLessThanOrEqual(0);
}
