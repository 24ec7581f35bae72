// Page-test helpers for the dashboard: a vendor signed in through the real /login page, and form
// posts carrying the CSRF token read from the page, as a browser submits them.
import { expect } from "vitest";
import { type Browser, decodeEntities, hiddenFields, type PageResponse } from "../helpers/browser.ts";
import { createVendor } from "../helpers/factories.ts";
import { signedInBrowser } from "../helpers/oauth.ts";
import type { TestApp } from "../helpers/test-app.ts";

export const XSS = `<script>alert(1)</script><img src=x onerror=alert(1)>`;
export const XSS_ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;";

export async function signedInVendor(t: TestApp, name?: string) {
  const vendor = await createVendor(t.ctx, name);
  const browser = await signedInBrowser(t, vendor.email);
  return { vendor, browser };
}

/** The page's CSRF token (every form on a page carries the same one). */
export function csrfOf(page: PageResponse): string {
  const token = hiddenFields(page.text)._csrf;
  if (!token) throw new Error(`no CSRF token on page: ${page.text.slice(0, 200)}`);
  return token;
}

/** Loads `from` (for its token) and posts the form to `action`, like clicking its button. */
export async function postFrom(
  browser: Browser,
  from: string,
  action: string,
  form: Record<string, string | string[]> = {},
): Promise<PageResponse> {
  const page = await browser.get(from);
  expect(page.status).toBe(200);
  return browser.post(action, { _csrf: csrfOf(page), ...form });
}

/** Follows a 303 and returns the page it leads to. */
export async function follow(browser: Browser, res: PageResponse): Promise<PageResponse> {
  expect(res.status).toBe(303);
  if (!res.location) throw new Error("no location");
  return browser.get(res.location);
}

/** Text of the flash message on a page, if any. */
export function flashOf(page: PageResponse): { kind: string; text: string; secret?: string } | undefined {
  const m = /<div class="flash (\w+)" role="status">([\s\S]*?)<\/div>/.exec(page.text);
  if (!m) return undefined;
  const secret = /<p class="secret" data-secret>([^<]*)<\/p>/.exec(m[2] ?? "")?.[1];
  return {
    kind: m[1] ?? "",
    text: decodeEntities((m[2] ?? "").replace(/<[^>]+>/g, " ")),
    ...(secret ? { secret: decodeEntities(secret) } : {}),
  };
}
