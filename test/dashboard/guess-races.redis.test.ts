// Throttles that cannot be raced, with the counters in Redis (a private redis-server this file
// starts). Parallel wrong passwords are checked at most up to the account's budget; and a Redis
// that does not answer (stopped with SIGSTOP, then let go) loses no count: an attempt it does not
// count in time is refused unchecked (503 with Retry-After), never checked and counted in memory.
// Before: 40 of 40 parallel wrong passwords were checked, and 46 of 47 counts were lost to a slow
// Redis.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rateLimitStoreReady } from "../../src/http/rate-limit.ts";
import { DEFAULT_SHARED_WAIT_MS as SHARED_WAIT_MS } from "../../src/http/rate-limit-store.ts";
import { Browser } from "../helpers/browser.ts";
import { csrfOf, signedInVendor } from "../helpers/dashboard.ts";
import { createVendor, TEST_PASSWORD } from "../helpers/factories.ts";
import {
  addresses,
  parallelCodes,
  parallelWrongPasswords,
  pendingSecondStep,
  postAs,
  tally,
  vendorWithTwoStep,
  WRONG_CODE_TEXT,
  WRONG_PASSWORD_TEXT,
} from "../helpers/guesses.ts";
import {
  hasRedisServer,
  type PrivateRedis,
  redisServerMissing,
  startPrivateRedis,
} from "../helpers/private-redis.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";
import { eventually } from "../helpers/webhook-receiver.ts";

const PER_ACCOUNT = 5; // the default SIGN_IN_FAILURES_PER_ACCOUNT
let redis: PrivateRedis;
let t: TestApp;

beforeAll(async () => {
  if (!hasRedisServer) return;
  redis = await startPrivateRedis("guess-races-redis");
  t = await startTestApp({
    env: { REDIS_URL: redis.url },
    config: {
      signInRateLimitPerMinute: 100_000,
      signInFailuresPerAddress: 1_000,
      trustProxy: true, // X-Forwarded-For names the client, as behind a reverse proxy
      logLevel: "silent",
    },
  });
  await rateLimitStoreReady(t.app.rateLimitStore);
});
afterAll(async () => {
  // Redis first: a service closing against a frozen Redis would wait for it.
  await redis?.destroy();
  await t?.close();
});

const ready = async () => (await (await fetch(`${t.url}/ready`)).json()).status === "ok";

if (!hasRedisServer) console.warn(redisServerMissing);

describe.skipIf(!hasRedisServer)("sign-in with the counters in Redis", { timeout: 60_000 }, () => {
  it("40 parallel wrong passwords: at most 5 are checked, the others are refused unchecked (429)", async () => {
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
  });

  it("one pending sign-in takes at most 5 wrong codes, even from 12 addresses at once", async () => {
    const { vendor } = await vendorWithTwoStep(t);
    const pending = await pendingSecondStep(t, vendor.email, "198.51.100.1");
    const wrong = Array.from({ length: 60 }, (_, i) => String(100_000 + i));
    const { checked, statuses } = tally(await parallelCodes(pending, wrong, addresses(12)), WRONG_CODE_TEXT);
    expect(checked, JSON.stringify(statuses)).toBeLessThanOrEqual(PER_ACCOUNT);
  });

  it("a Redis that does not answer loses no count: attempts it does not count are refused unchecked with 503 and Retry-After; once it answers, the budget holds", async () => {
    await eventually(ready);
    const vendor = await createVendor(t.ctx);
    redis.freeze();
    let frozen: Awaited<ReturnType<typeof parallelWrongPasswords>>;
    const started = performance.now();
    try {
      frozen = await parallelWrongPasswords(t, vendor.email, 10);
    } finally {
      redis.thaw();
    }
    // A bounded wait (CONTRACT 10): the page's own request count waits SHARED_WAIT_MS, the
    // reservation 10 x SHARED_WAIT_MS; the margin is the sign-in pages' own time on a loaded
    // machine (the freeze would hold them as long as it lasts).
    expect(performance.now() - started).toBeLessThan(11 * SHARED_WAIT_MS + 3_000);
    const during = tally(frozen, WRONG_PASSWORD_TEXT);
    expect(during.checked, JSON.stringify(during.statuses)).toBe(0);
    for (const a of frozen) {
      expect([503, 429]).toContain(a.status);
      expect(Number(a.headers.get("retry-after"))).toBeGreaterThan(0);
    }
    await eventually(ready);
    const after = await parallelWrongPasswords(t, vendor.email, 40);
    const total = during.checked + tally(after, WRONG_PASSWORD_TEXT).checked;
    expect(total).toBeLessThanOrEqual(PER_ACCOUNT);
    // Redis answers again: another account signs in.
    const other = await createVendor(t.ctx);
    const browser = new Browser(t.url);
    const res = await browser.submit(await browser.get("/login"), {
      email: other.email,
      password: TEST_PASSWORD,
    });
    expect(res.status).toBe(303);
  });

  it("a Redis that does not answer: the change-password form refuses with 503 and Retry-After, the current password unchecked", async () => {
    await eventually(ready);
    const { browser } = await signedInVendor(t);
    const csrf = csrfOf(await browser.get("/dashboard/account"));
    const form = (current: string) => ({
      _csrf: csrf,
      currentPassword: current,
      newPassword: "a brand new password",
      confirmPassword: "a brand new password",
    });
    redis.freeze();
    let answers: Awaited<ReturnType<typeof postAs>>[];
    try {
      answers = await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          postAs(browser, "/dashboard/account/password", form(`wrong ${i}`)),
        ),
      );
    } finally {
      redis.thaw();
    }
    for (const a of answers) {
      expect(a.status, a.text.slice(0, 200)).toBe(503);
      expect(Number(a.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(decodeURIComponent(a.headers.getSetCookie().join("\n"))).not.toContain(
        "not the current password",
      );
    }
    await eventually(ready);
  });
});
