// Dashboard page tests: sign a vendor in, find a particular form on a page (the first form of
// every dashboard page is the header's sign-out form) and submit it as a browser would.
import { expect } from "vitest";
import { type Browser, decodeEntities, type PageResponse } from "./browser.ts";
import { signedInBrowser } from "./oauth.ts";
import type { TestApp } from "./test-app.ts";

export const XSS = "<script>alert(1)</script><img src=x onerror=alert(1)>";

export { signedInBrowser };

/** The hidden fields of the form posting to `action` (entities decoded). */
export function formFields(page: PageResponse, action: string): Record<string, string> {
  const forms = page.text.split(/<form /).slice(1);
  const form = forms.find((f) => f.startsWith(`method="post" action="${action}"`));
  if (!form) throw new Error(`no form posting to ${action} on page: ${page.text.slice(0, 500)}`);
  const body = form.slice(0, form.indexOf("</form>"));
  const out: Record<string, string> = {};
  for (const m of body.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
    out[decodeEntities(m[1] ?? "")] = decodeEntities(m[2] ?? "");
  }
  return out;
}

/** Submits the form posting to `action` with its hidden fields plus `extra`. */
export function submitForm(
  browser: Browser,
  page: PageResponse,
  action: string,
  extra: Record<string, string>,
): Promise<PageResponse> {
  return browser.post(action, { ...formFields(page, action), ...extra });
}

/** Follows a 303 and returns the page it leads to. */
export async function follow(browser: Browser, res: PageResponse): Promise<PageResponse> {
  expect(res.status, res.text.slice(0, 300)).toBe(303);
  if (!res.location) throw new Error("303 without a location");
  return browser.get(res.location);
}

/** The flash message of a page: its kind and text, or undefined. */
export function flashOf(page: PageResponse): { kind: string; text: string } | undefined {
  const m = /<div class="flash (success|error)" role="status">([\s\S]*?)<\/div>/.exec(page.text);
  return m ? { kind: m[1] ?? "", text: decodeEntities((m[2] ?? "").replace(/<[^>]+>/g, "")) } : undefined;
}

/** The payload appears only escaped: never as markup. */
export function expectEscaped(page: PageResponse): void {
  expect(page.status, page.text.slice(0, 300)).toBe(200);
  expect(page.text).not.toContain("<script>alert(1)");
  expect(page.text).not.toContain("<img src=x");
  expect(page.text).toContain("&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;");
}

/** A signed-in browser for a fresh vendor with an API key. */
export async function vendorSession(t: TestApp, vendor: { email: string }): Promise<Browser> {
  return signedInBrowser(t, vendor.email);
}
