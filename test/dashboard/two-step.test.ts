// Two-step sign-in: any member turns on a TOTP authenticator (the code generated
// here with otplib, as the phone would) and gets ten recovery codes shown once; sign-in then asks
// for a code after the password, and the password alone opens nothing; a code works once; an
// owner can require two-step sign-in of everyone, and a member without it sets it up at their
// next sign-in. The secret is stored sealed and never appears in a cookie, a URL or a later page.
import { eq } from "drizzle-orm";
import { generate } from "otplib";
import { describe, expect, it } from "vitest";
import { memberRecoveryCodes, members } from "../../src/db/schema/index.ts";
import { Browser, decodeEntities, type PageResponse } from "../helpers/browser.ts";
import { adjustableClock } from "../helpers/clock.ts";
import { flashOf, follow, postFrom, signedInVendor } from "../helpers/dashboard.ts";
import { createMember, TEST_PASSWORD } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const clock = adjustableClock();
const t = useTestApp({ now: clock.now, config: { signInRateLimitPerMinute: 1000 } });

/** The code the authenticator app shows now (the app's clock). */
const codeFor = (secret: string) => generate({ secret, epoch: Math.floor(clock.now().getTime() / 1000) });
/** The manual-entry key on a setup page. */
function keyOn(page: PageResponse): string {
  const key = /<code class="secret-key">([^<]+)<\/code>/.exec(page.text)?.[1];
  if (!key) throw new Error(`no key on page: ${page.text.slice(0, 300)}`);
  return decodeEntities(key).replace(/\s+/g, "");
}
/** Every cookie value and redirect this response carried. */
const carried = (res: PageResponse) => [...res.headers.getSetCookie(), res.location ?? ""].join("\n");

/** Signs in with the password only: the browser owes the second step. */
async function passwordOnly(email: string, returnTo?: string) {
  const browser = new Browser(t.url);
  const page = await browser.get(returnTo ? `/login?return_to=${encodeURIComponent(returnTo)}` : "/login");
  const res = await browser.submit(page, { email, password: TEST_PASSWORD });
  return { browser, res };
}

/** Turns two-step sign-in on from the account page; returns the secret and the recovery codes. */
async function turnOn(browser: Browser) {
  const setup = await browser.get("/dashboard/account/two-step");
  expect(setup.status).toBe(200);
  expect(setup.text).toContain("<svg");
  const secret = keyOn(setup);
  const res = await postFrom(browser, "/dashboard/account/two-step", "/dashboard/account/two-step", {
    code: await codeFor(secret),
  });
  expect(carried(res)).not.toContain(secret);
  const done = await follow(browser, res);
  const codes = flashOf(done)?.secret?.split(/\s+/) ?? [];
  return { secret, codes, done };
}

describe("turning two-step sign-in on", () => {
  it("needs a code from the authenticator; gives ten recovery codes once; keeps the secret sealed and never shows it again", async () => {
    const { vendor, browser } = await signedInVendor(t);
    const wrong = await follow(
      browser,
      await postFrom(browser, "/dashboard/account/two-step", "/dashboard/account/two-step", {
        code: "000000",
      }),
    );
    expect(flashOf(wrong)?.kind).toBe("error");
    const { secret, codes, done } = await turnOn(browser);
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    expect(flashOf(done)?.text).toContain("Two-step sign-in is on");
    // Shown once: the next page has neither the codes nor the secret.
    const again = await browser.get("/dashboard/account");
    expect(again.text).toContain("10 recovery codes left");
    for (const c of codes) expect(again.text).not.toContain(c);
    expect(again.text).not.toContain(secret);
    const setupAgain = await browser.get("/dashboard/account/two-step");
    expect(setupAgain.status).toBe(303);
    // Stored sealed: neither the secret nor a recovery code is in the database as such.
    const [row] = await t.ctx.db.select().from(members).where(eq(members.id, vendor.ownerId));
    expect(row?.totpSecret).toEqual(expect.any(String));
    expect(JSON.stringify(row)).not.toContain(secret);
    const stored = await t.ctx.db
      .select()
      .from(memberRecoveryCodes)
      .where(eq(memberRecoveryCodes.memberId, vendor.ownerId));
    expect(stored).toHaveLength(10);
    for (const c of codes) expect(JSON.stringify(stored)).not.toContain(c);
  });
});

describe("signing in with two-step sign-in on", () => {
  it("the password alone opens nothing; a wrong code is refused; the right one signs in and goes on", async () => {
    const { vendor, browser } = await signedInVendor(t);
    const { secret } = await turnOn(browser);
    clock.advance(31_000);
    try {
      const { browser: b, res } = await passwordOnly(vendor.email, "/dashboard/customers");
      expect(res.status).toBe(303);
      expect(res.location).toBe("/login/two-step?return_to=%2Fdashboard%2Fcustomers");
      // Half signed in: no dashboard page, no form.
      const orders = await b.get("/dashboard/orders");
      expect(orders.status).toBe(303);
      expect(orders.location).toMatch(/^\/login\?/);
      const step = await b.get(res.location as string);
      expect(step.status).toBe(200);
      expect((await b.submit(step, { code: "123456" })).status).toBe(401);
      const ok = await b.submit(step, { code: await codeFor(secret) });
      expect(ok.status).toBe(303);
      expect(ok.location).toBe("/dashboard/customers");
      expect((await b.get("/dashboard/orders")).status).toBe(200);
    } finally {
      clock.setOffset(0);
    }
  });

  it("a code works once, and so does each recovery code", async () => {
    const { vendor, browser } = await signedInVendor(t);
    const { secret, codes } = await turnOn(browser);
    clock.advance(31_000);
    try {
      const code = await codeFor(secret);
      const first = await passwordOnly(vendor.email);
      const firstStep = await first.browser.get("/login/two-step");
      expect((await first.browser.submit(firstStep, { code })).status).toBe(303);
      const second = await passwordOnly(vendor.email);
      const secondStep = await second.browser.get("/login/two-step");
      expect((await second.browser.submit(secondStep, { code })).status).toBe(401);
      // A recovery code instead of the phone, once.
      const recovery = codes[0] as string;
      expect((await second.browser.submit(secondStep, { code: recovery.toUpperCase() })).status).toBe(303);
      const third = await passwordOnly(vendor.email);
      const thirdStep = await third.browser.get("/login/two-step");
      expect((await third.browser.submit(thirdStep, { code: recovery })).status).toBe(401);
      expect((await third.browser.get("/dashboard/account")).status).toBe(303);
    } finally {
      clock.setOffset(0);
    }
  });

  it("wrong codes count against the account, and signing in again with the password clears none of them", async () => {
    const { vendor, browser } = await signedInVendor(t);
    const { secret } = await turnOn(browser);
    clock.advance(31_000);
    try {
      const first = await passwordOnly(vendor.email);
      const step = await first.browser.get("/login/two-step");
      // SIGN_IN_FAILURES_PER_ACCOUNT is 5: four wrong codes, the password again, one more.
      for (let i = 0; i < 4; i++)
        expect((await first.browser.submit(step, { code: "000000" })).status).toBe(401);
      const again = await passwordOnly(vendor.email);
      expect(again.res.location).toMatch(/^\/login\/two-step\?/);
      const step2 = await again.browser.get("/login/two-step");
      expect((await again.browser.submit(step2, { code: "000000" })).status).toBe(401);
      const locked = await again.browser.submit(step2, { code: await codeFor(secret) });
      expect(locked.status).toBe(429);
      expect((await again.browser.get("/dashboard/orders")).status).toBe(303);
    } finally {
      clock.setOffset(0);
    }
  });

  it("turning it off asks for the password; then the password alone signs in again", async () => {
    const { vendor, browser } = await signedInVendor(t);
    await turnOn(browser);
    const refused = await follow(
      browser,
      await postFrom(browser, "/dashboard/account", "/dashboard/account/two-step/off", {
        password: "wrong password",
      }),
    );
    expect(flashOf(refused)?.kind).toBe("error");
    const off = await follow(
      browser,
      await postFrom(browser, "/dashboard/account", "/dashboard/account/two-step/off", {
        password: TEST_PASSWORD,
      }),
    );
    expect(flashOf(off)?.text).toContain("Two-step sign-in is off");
    const { res } = await passwordOnly(vendor.email);
    expect(res.location).toBe("/dashboard");
  });
});

describe("an owner requires two-step sign-in", () => {
  it("a member without it sets it up at the next sign-in, sees the recovery codes once, and cannot turn it off", async () => {
    const { vendor, browser: owner } = await signedInVendor(t);
    const staff = await createMember(t.ctx, vendor.id);
    const saved = await follow(
      owner,
      await postFrom(owner, "/dashboard/settings/team", "/dashboard/settings/team/two-step", {
        required: "on",
      }),
    );
    expect(flashOf(saved)?.text).toContain("Two-step sign-in is required");

    const { browser, res } = await passwordOnly(staff.email);
    expect(res.location).toBe("/login/two-step/setup?return_to=%2Fdashboard");
    expect((await browser.get("/dashboard/orders")).status).toBe(303);
    const setup = await browser.get(res.location as string);
    expect(setup.status).toBe(200);
    const secret = keyOn(setup);
    const wrong = await browser.submit(setup, { code: "000000" });
    expect(wrong.status).toBe(400);
    expect(keyOn(wrong)).toBe(secret);
    const on = await browser.submit(setup, { code: await codeFor(secret) });
    expect(on.status).toBe(303);
    expect(carried(on)).not.toContain(secret);
    const account = await follow(browser, on);
    expect(flashOf(account)?.secret?.split(/\s+/)).toHaveLength(10);
    expect(account.text).toContain("Your shop requires it");
    expect((await browser.get("/dashboard/account")).text).not.toContain(flashOf(account)?.secret ?? "none");
    const off = await follow(
      browser,
      await postFrom(browser, "/dashboard/account", "/dashboard/account/two-step/off", {
        password: TEST_PASSWORD,
      }),
    );
    expect(flashOf(off)?.text).toContain("requires two-step sign-in");
    // The team page shows who has it.
    expect((await owner.get("/dashboard/settings/team")).text).toContain("Two-step on");
    // The owner, who has no authenticator yet, is asked to set one up at their next sign-in too.
    expect((await passwordOnly(vendor.email)).res.location).toMatch(/^\/login\/two-step\/setup\?/);
  });

  it("staff cannot change the requirement", async () => {
    const { vendor } = await signedInVendor(t);
    const staff = await createMember(t.ctx, vendor.id);
    const { browser } = await passwordOnly(staff.email);
    const page = await browser.get("/dashboard/orders");
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? "";
    const res = await browser.post("/dashboard/settings/team/two-step", {
      _csrf: decodeEntities(csrf),
      required: "on",
    });
    expect(res.status).toBe(403);
  });
});

describe("the sign-in's own forms", () => {
  it("the second step, its setup and the invitation refuse a missing or wrong CSRF token with 403", async () => {
    const { vendor, browser } = await signedInVendor(t);
    await turnOn(browser);
    const { browser: pending } = await passwordOnly(vendor.email);
    const step = await pending.get("/login/two-step");
    expect(step.status).toBe(200);
    for (const action of ["/login/two-step", "/login/two-step/setup", "/invitation"]) {
      expect((await pending.post(action, { code: "123456", token: "vin_x" })).status, action).toBe(403);
      expect((await pending.post(action, { _csrf: "forged", code: "123456" })).status, action).toBe(403);
    }
    // Still owing the second step: nothing was signed in by those posts.
    expect((await pending.get("/dashboard/orders")).status).toBe(303);
  });
});
