// Dashboard page tests: a vendor signed in through the real /login page, and forms submitted as
// a browser submits them, with the CSRF token read from the page. The first form of every
// dashboard page is the header's sign-out form: name the form by its action.
import { expect } from "vitest";
import { type Browser, decodeEntities, hiddenFields, type PageResponse } from "./browser.ts";
import { createVendor } from "./factories.ts";
import { signedInBrowser } from "./oauth.ts";
import type { TestApp } from "./test-app.ts";

export const XSS = "<script>alert(1)</script><img src=x onerror=alert(1)>";
export const XSS_ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;";

export { signedInBrowser };

/** A new vendor and a browser signed in as them. */
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

/** Loads `from` (for its token) and posts `form` to `action`, like clicking its button. */
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
  extra: Record<string, string | string[]>,
): Promise<PageResponse> {
  return browser.post(action, { ...formFields(page, action), ...extra });
}

/**
 * What a browser submits for the form posting to `action` when its main button is pressed and
 * nothing was typed: every named input's value (repeated names in order), textarea and selected
 * option; submit buttons are left out (add one's name and value to press it).
 */
export function filledForm(page: PageResponse, action: string): Record<string, string[]> {
  const forms = page.text.split(/<form /).slice(1);
  const form = forms.find((f) => f.startsWith(`method="post" action="${action}"`));
  if (!form) throw new Error(`no form posting to ${action} on page: ${page.text.slice(0, 500)}`);
  const body = form.slice(0, form.indexOf("</form>"));
  const out: Record<string, string[]> = {};
  const add = (name: string, value: string) => {
    const key = decodeEntities(name);
    out[key] = [...(out[key] ?? []), decodeEntities(value)];
  };
  const controls =
    /<input ([^>]*)>|<textarea [^>]*name="([^"]*)"[^>]*>([\s\S]*?)<\/textarea>|<select [^>]*name="([^"]*)"[^>]*>([\s\S]*?)<\/select>/g;
  for (const m of body.matchAll(controls)) {
    if (m[1] !== undefined) {
      const attrs = m[1];
      const name = /name="([^"]*)"/.exec(attrs)?.[1];
      const type = /type="([^"]*)"/.exec(attrs)?.[1] ?? "text";
      if (
        !name ||
        type === "submit" ||
        ((type === "checkbox" || type === "radio") && !/ checked/.test(attrs))
      )
        continue;
      add(name, /value="([^"]*)"/.exec(attrs)?.[1] ?? (type === "checkbox" ? "on" : ""));
    } else if (m[2] !== undefined) {
      add(m[2], m[3] ?? "");
    } else if (m[4] !== undefined) {
      const selected =
        /<option value="([^"]*)" selected>/.exec(m[5] ?? "") ?? /<option value="([^"]*)"/.exec(m[5] ?? "");
      add(m[4], selected?.[1] ?? "");
    }
  }
  return out;
}

/** Follows a 303 and returns the page it leads to. */
export async function follow(browser: Browser, res: PageResponse): Promise<PageResponse> {
  expect(res.status, res.text.slice(0, 300)).toBe(303);
  if (!res.location) throw new Error("303 without a location");
  return browser.get(res.location);
}

/** The flash message of a page: its kind, its text and the secret it shows once, or undefined. */
export function flashOf(page: PageResponse): { kind: string; text: string; secret?: string } | undefined {
  const m = /<div class="flash (\w+)" role="status">([\s\S]*?)<\/div>/.exec(page.text);
  if (!m) return undefined;
  const secret = /<p class="secret" data-secret>([^<]*)<\/p>/.exec(m[2] ?? "")?.[1];
  return {
    kind: m[1] ?? "",
    text: decodeEntities((m[2] ?? "").replace(/<[^>]+>/g, "")),
    ...(secret ? { secret: decodeEntities(secret) } : {}),
  };
}

/** The payload appears only escaped: never as markup. */
export function expectEscaped(page: PageResponse): void {
  expect(page.status, page.text.slice(0, 300)).toBe(200);
  expect(page.text).not.toContain("<script>alert(1)");
  expect(page.text).not.toContain("<img src=x");
  expect(page.text).toContain(XSS_ESCAPED);
}

/** A signed-in browser for a fresh vendor with an API key. */
export async function vendorSession(t: TestApp, vendor: { email: string }): Promise<Browser> {
  return signedInBrowser(t, vendor.email);
}

/**
 * An irreversible action through its confirmation step, as a person does it: the confirmation
 * page at `action` (a GET: it must change nothing), then its form, which posts `confirmed=yes`.
 */
export async function confirmThrough(browser: Browser, action: string): Promise<PageResponse> {
  const page = await browser.get(action);
  expect(page.status, page.text.slice(0, 300)).toBe(200);
  const fields = formFields(page, action);
  expect(fields.confirmed).toBe("yes");
  return browser.post(action, fields);
}
