// Throttles that cannot be raced (CONTRACT 8: guesses at a member's secrets are bounded whatever
// their concurrency). Each attempt is counted before its secret is checked: parallel wrong
// answers are checked at most up to the budget (the account's 5 from one address), the rest
// refused unchecked. A pending sign-in takes at most 5 codes from whatever addresses, then the
// password is asked again. A right answer gives its attempt back.
// Before: 40 of 40 parallel wrong passwords were checked, 60 codes at one pending sign-in from 12
// addresses, 30 of 30 wrong current passwords behind a session.
import { describe, expect, it } from "vitest";
import { Browser, hiddenFields } from "../helpers/browser.ts";
import { csrfOf, signedInVendor } from "../helpers/dashboard.ts";
import { createVendor, TEST_PASSWORD } from "../helpers/factories.ts";
import {
  addresses,
  codeNext,
  parallelCodes,
  parallelWrongPasswords,
  pendingSecondStep,
  postAs,
  tally,
  vendorWithTwoStep,
  WRONG_CODE_TEXT,
  WRONG_PASSWORD_TEXT,
} from "../helpers/guesses.ts";
import { useTestApp } from "../helpers/test-app.ts";

const PER_ACCOUNT = 5; // the default SIGN_IN_FAILURES_PER_ACCOUNT, and the guesses of a pending sign-in
const t = useTestApp({
  // The request budget of the sign-in pages is not what is tested; X-Forwarded-For names the
  // client, as behind a reverse proxy.
  config: { signInRateLimitPerMinute: 100_000, signInFailuresPerAddress: 1_000, trustProxy: true },
});

describe("sign-in", () => {
  it("40 parallel wrong passwords: at most 5 are checked, the others are refused unchecked (429); then even the right one is refused", async () => {
    const vendor = await createVendor(t.ctx);
    const answers = await parallelWrongPasswords(t, vendor.email, 40);
    const { checked, statuses } = tally(answers, WRONG_PASSWORD_TEXT);
    expect(checked, JSON.stringify(statuses)).toBeLessThanOrEqual(PER_ACCOUNT);
    // The others were refused unchecked: past the budget (429), or, on a loaded machine, with
    // Redis slower than its bound (503); both say when to try again.
    const refused = answers.filter((a) => !a.text.includes(WRONG_PASSWORD_TEXT));
    expect(refused.length).toBeGreaterThanOrEqual(40 - PER_ACCOUNT);
    for (const a of refused) {
      expect([429, 503]).toContain(a.status);
      expect(Number(a.headers.get("retry-after"))).toBeGreaterThan(0);
    }
    const browser = new Browser(t.url);
    const right = await browser.submit(await browser.get("/login"), {
      email: vendor.email,
      password: TEST_PASSWORD,
    });
    expect(right.status).toBe(429);
  });

  it("a right password gives its attempt back: signing in over and over is never throttled, and clears earlier failures", async () => {
    const vendor = await createVendor(t.ctx);
    // One after another: a reservation is a failure until the password proves right, so many
    // right passwords in flight at once could be refused for a moment (a guesser's race is what
    // the reservation stops).
    const rights = async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 3 * PER_ACCOUNT; i++) {
        const browser = new Browser(t.url);
        const page = await browser.get("/login");
        statuses.push((await browser.submit(page, { email: vendor.email, password: TEST_PASSWORD })).status);
      }
      return statuses;
    };
    expect(new Set(await rights())).toEqual(new Set([303]));
    const wrong = await parallelWrongPasswords(t, vendor.email, PER_ACCOUNT - 1);
    expect(tally(wrong, WRONG_PASSWORD_TEXT).checked).toBe(PER_ACCOUNT - 1);
    expect(new Set(await rights())).toEqual(new Set([303]));
    // The failures were forgotten: a full budget of wrong passwords is checked again.
    const again = await parallelWrongPasswords(t, vendor.email, PER_ACCOUNT);
    expect(tally(again, WRONG_PASSWORD_TEXT).checked).toBe(PER_ACCOUNT);
  });
});

describe("two-step sign-in", () => {
  it("one pending sign-in takes at most 5 wrong codes, even from 12 addresses at once; then it is void and the password is asked again", async () => {
    const { vendor, secret } = await vendorWithTwoStep(t);
    const { browser, csrf } = await pendingSecondStep(t, vendor.email, "198.51.100.1");
    const wrong = Array.from({ length: 60 }, (_, i) => String(100_000 + i));
    const answers = await parallelCodes({ browser, csrf }, wrong, addresses(12));
    const { checked, statuses } = tally(answers, WRONG_CODE_TEXT);
    expect(checked, JSON.stringify(statuses)).toBeLessThanOrEqual(PER_ACCOUNT);
    // The others were asked for the password again (or sent to sign in, the sign-in gone).
    for (const a of answers.filter((a) => !a.text.includes(WRONG_CODE_TEXT))) {
      expect([401, 303]).toContain(a.status);
      if (a.status === 303) expect(a.location).toBe("/login");
      else expect(a.text).toContain("sign in with your password again");
    }
    // The pending sign-in is void: even the right code does not sign in with it.
    const right = await postAs(
      browser,
      "/login/two-step",
      { _csrf: csrf, return_to: "/dashboard", code: await codeNext(secret) },
      "198.51.100.1",
    );
    expect(right.status).toBe(303);
    expect(right.location).toBe("/login");
    expect((await browser.get("/dashboard")).status).toBe(303);
    // The password again opens a new second step, where the right code works.
    const fresh = await pendingSecondStep(t, vendor.email, "198.51.100.2");
    const signedIn = await postAs(
      fresh.browser,
      "/login/two-step",
      { _csrf: fresh.csrf, return_to: "/dashboard", code: await codeNext(secret) },
      "198.51.100.2",
    );
    expect(signedIn.status).toBe(303);
    expect(signedIn.location).toBe("/dashboard");
  });

  it("36 parallel wrong recovery codes from 6 addresses: at most 5 are checked", async () => {
    const { vendor, codes } = await vendorWithTwoStep(t);
    const { browser, csrf } = await pendingSecondStep(t, vendor.email, "198.51.100.3");
    const unused = (codes[0] ?? "").replace(/[0-9a-f]/g, (c) =>
      ((Number.parseInt(c, 16) + 1) % 16).toString(16),
    );
    const wrong = Array.from({ length: 36 }, (_, i) => `${unused.slice(0, -2)}${(i + 16).toString(16)}`);
    const answers = await parallelCodes({ browser, csrf }, wrong, addresses(6, "192.0.2"));
    const { checked, statuses } = tally(answers, WRONG_CODE_TEXT);
    expect(checked, JSON.stringify(statuses)).toBeLessThanOrEqual(PER_ACCOUNT);
    // A recovery code still works, in a new sign-in.
    const fresh = await pendingSecondStep(t, vendor.email, "198.51.100.4");
    const res = await postAs(
      fresh.browser,
      "/login/two-step",
      { _csrf: fresh.csrf, return_to: "/dashboard", code: codes[1] ?? "" },
      "198.51.100.4",
    );
    expect(res.status).toBe(303);
    expect(res.location).toBe("/dashboard");
  });
});

describe("forms behind a session that check the password", () => {
  /** The flash message an answer set (the signed cookie's JSON, read as the next page would). */
  const flashSet = (res: { headers: Headers }) =>
    decodeURIComponent(res.headers.getSetCookie().find((c) => c.startsWith("vendor_flash=")) ?? "");

  it("30 parallel wrong current passwords on the change-password form: at most 5 are checked; the right one then waits too", async () => {
    const { vendor, browser } = await signedInVendor(t);
    const csrf = csrfOf(await browser.get("/dashboard/account"));
    const form = (current: string) => ({
      _csrf: csrf,
      currentPassword: current,
      newPassword: "a brand new password",
      confirmPassword: "a brand new password",
    });
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        postAs(browser, "/dashboard/account/password", form(`wrong ${i}`)),
      ),
    );
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set([303]));
    const checked = answers.filter((a) => flashSet(a).includes("is not the current password")).length;
    const throttled = answers.filter((a) => flashSet(a).includes("Too many wrong passwords")).length;
    expect(checked).toBeLessThanOrEqual(PER_ACCOUNT);
    expect(checked + throttled).toBe(30);
    const right = await postAs(browser, "/dashboard/account/password", form(TEST_PASSWORD));
    expect(flashSet(right)).toContain("Too many wrong passwords");
    // Not changed: the old password is still the one (from another address, with its own budget).
    const other = new Browser(t.url);
    const page = await other.get("/login");
    const signIn = await postAs(
      other,
      "/login",
      { ...hiddenFields(page.text), email: vendor.email, password: TEST_PASSWORD },
      "198.51.100.9",
    );
    expect(signIn.status).toBe(303);
  });

  it("30 parallel wrong passwords on the turn-off-two-step form: at most 5 are checked", async () => {
    const { browser } = await vendorWithTwoStep(t);
    const csrf = csrfOf(await browser.get("/dashboard/account"));
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        postAs(browser, "/dashboard/account/two-step/off", { _csrf: csrf, password: `wrong ${i}` }),
      ),
    );
    const checked = answers.filter((a) => flashSet(a).includes("is not your password")).length;
    const throttled = answers.filter((a) => flashSet(a).includes("Too many wrong passwords")).length;
    expect(checked).toBeLessThanOrEqual(PER_ACCOUNT);
    expect(checked + throttled).toBe(30);
    expect((await browser.get("/dashboard/account")).text).toContain("Two-step sign-in is on:");
  });

  it("a right current password gives its attempt back: the password changes after a few wrong ones", async () => {
    const { browser } = await signedInVendor(t);
    const csrf = csrfOf(await browser.get("/dashboard/account"));
    const form = (current: string, next: string) => ({
      _csrf: csrf,
      currentPassword: current,
      newPassword: next,
      confirmPassword: next,
    });
    for (let i = 0; i < PER_ACCOUNT - 1; i++) {
      const res = await postAs(
        browser,
        "/dashboard/account/password",
        form(`wrong ${i}`, "a brand new password"),
      );
      expect(flashSet(res)).toContain("is not the current password");
    }
    let current = TEST_PASSWORD;
    for (let i = 0; i < PER_ACCOUNT + 1; i++) {
      const next = `new password number ${i}`;
      const res = await postAs(browser, "/dashboard/account/password", form(current, next));
      expect(flashSet(res)).toContain("Password changed");
      current = next;
    }
  });
});
