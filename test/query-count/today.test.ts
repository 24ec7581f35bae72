// Today answers in a fixed number of statements whatever the number of orders, appointments and
// inquiries: a shop's day with one of each thing and the same day with five of each send exactly
// as many (the page's own is ONE statement, src/modules/today/today.repository.ts).
import { describe, expect, it } from "vitest";
import { seedDay } from "../day/seed.ts";
import type { Browser } from "../helpers/browser.ts";
import { signedInBrowser } from "../helpers/dashboard.ts";
import { createKey, createVendor } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

/** Statements the page sends, and how many lines it shows. */
async function statementsFor(browser: Browser) {
  await browser.get("/dashboard/today"); // warm up: a first request may refresh the session
  const before = t.database.queryCount();
  const page = await browser.get("/dashboard/today");
  const count = t.database.queryCount() - before;
  expect(page.status).toBe(200);
  return { count, lines: [...page.text.matchAll(/<li[^>]*><a href=/g)].length };
}

describe("Today's statements", () => {
  it("are as many for a day of 6 lines as for a day of 30", async () => {
    const small = await createVendor(t.ctx, "Small");
    const smallKey = await createKey(t.ctx, small.id);
    await seedDay(t, smallKey, small.id);
    const big = await createVendor(t.ctx, "Big");
    const bigKey = await createKey(t.ctx, big.id);
    for (let i = 0; i < 5; i++) await seedDay(t, bigKey, big.id, ` ${i}`, i);
    const one = await statementsFor(await signedInBrowser(t, small.email));
    const six = await statementsFor(await signedInBrowser(t, big.email));
    expect(one.lines).toBe(6);
    expect(six.lines).toBe(30);
    expect(six.count).toBe(one.count);
    // The session, the shop's frame and the day itself: a handful, not one per line.
    expect(one.count).toBeLessThanOrEqual(5);
  });
});
