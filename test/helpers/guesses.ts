// Guessing a member's secrets as an attacker would: many wrong answers at once, from one address
// or from many (X-Forwarded-For, for an app started with trustProxy), so that a throttle is
// judged by how many guesses were checked, not by how it counts.
import { generate } from "otplib";
import { expect } from "vitest";
import { Browser, decodeEntities, hiddenFields, type PageResponse } from "./browser.ts";
import { csrfOf, flashOf, follow, postFrom } from "./dashboard.ts";
import { createVendor, TEST_PASSWORD } from "./factories.ts";
import { signedInBrowser } from "./oauth.ts";
import type { TestApp } from "./test-app.ts";

export const WRONG_PASSWORD_TEXT = "The e-mail or password is not correct.";
export const WRONG_CODE_TEXT = "That code is not right";

/** Posts a form with the browser's cookies, as seen from `address` (when the app trusts the proxy). */
export async function postAs(
  browser: Browser,
  path: string,
  form: Record<string, string>,
  address?: string,
): Promise<PageResponse> {
  const res = await fetch(browser.baseUrl + path, {
    method: "POST",
    redirect: "manual",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      cookie: [...browser.cookies].map(([k, v]) => `${k}=${v}`).join("; "),
      ...(address ? { "x-forwarded-for": address } : {}),
    },
    body: new URLSearchParams(form).toString(),
  });
  return {
    status: res.status,
    headers: res.headers,
    text: await res.text(),
    location: res.headers.get("location"),
  };
}

/** `n` wrong passwords for `email` posted at once from one browser (one address). */
export async function parallelWrongPasswords(t: TestApp, email: string, n: number): Promise<PageResponse[]> {
  const browser = new Browser(t.url);
  const page = await browser.get("/login");
  const fields = hiddenFields(page.text);
  return Promise.all(
    Array.from({ length: n }, (_, i) =>
      postAs(browser, "/login", { ...fields, email, password: `wrong password ${i}` }),
    ),
  );
}

/** How many answers say the secret was checked and wrong (`text`), and how many are each status. */
export function tally(answers: PageResponse[], text: string) {
  const statuses: Record<number, number> = {};
  for (const a of answers) statuses[a.status] = (statuses[a.status] ?? 0) + 1;
  return { checked: answers.filter((a) => decodeEntities(a.text).includes(text)).length, statuses };
}

/** The code the authenticator shows now. */
export const codeNow = (secret: string) => generate({ secret });
/**
 * The code it shows next (accepted: a phone's clock may be a step ahead), for a sign-in right
 * after the setup used the current one (each step's code works once).
 */
export const codeNext = (secret: string) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 });

/** A vendor whose owner turned two-step sign-in on: the secret, the ten recovery codes, and the owner's signed-in browser. */
export async function vendorWithTwoStep(t: TestApp) {
  const vendor = await createVendor(t.ctx);
  const browser = await signedInBrowser(t, vendor.email);
  const setup = await browser.get("/dashboard/account/two-step");
  const key = /<code class="secret-key">([^<]+)<\/code>/.exec(setup.text)?.[1];
  if (!key) throw new Error(`no key on page: ${setup.text.slice(0, 300)}`);
  const secret = decodeEntities(key).replace(/\s+/g, "");
  const done = await follow(
    browser,
    await postFrom(browser, "/dashboard/account/two-step", "/dashboard/account/two-step", {
      code: await codeNow(secret),
    }),
  );
  const codes = flashOf(done)?.secret?.split(/\s+/) ?? [];
  expect(codes).toHaveLength(10);
  return { vendor, secret, codes, browser };
}

/** A browser whose password was right, owing the second step (signed in from `address`). */
export async function pendingSecondStep(t: TestApp, email: string, address?: string) {
  const browser = new Browser(t.url);
  const page = await browser.get("/login");
  const res = await postAs(
    browser,
    "/login",
    { ...hiddenFields(page.text), email, password: TEST_PASSWORD },
    address,
  );
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(";");
    const eq = pair?.indexOf("=") ?? -1;
    if (pair && eq > 0) browser.cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
  }
  expect(res.status, res.text.slice(0, 300)).toBe(303);
  expect(res.location).toMatch(/^\/login\/two-step\?/);
  const codePage = await browser.get("/login/two-step");
  expect(codePage.status).toBe(200);
  return { browser, csrf: csrfOf(codePage) };
}

/** Posts each of `codes` at once to the second step of `pending`, the i-th from `addresses[i % n]`. */
export function parallelCodes(
  pending: { browser: Browser; csrf: string },
  codes: string[],
  addresses: string[],
): Promise<PageResponse[]> {
  return Promise.all(
    codes.map((code, i) =>
      postAs(
        pending.browser,
        "/login/two-step",
        { _csrf: pending.csrf, return_to: "/dashboard", code },
        addresses[i % addresses.length],
      ),
    ),
  );
}

/** `n` addresses of one documentation range (RFC 5737), as many clients. */
export const addresses = (n: number, prefix = "203.0.113") =>
  Array.from({ length: n }, (_, i) => `${prefix}.${i + 1}`);
