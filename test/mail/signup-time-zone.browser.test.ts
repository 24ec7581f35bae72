// Sign-up's last step (CONTRACT 12, issue 44 item 7): the new shop's time zone is the browser's,
// shown and changeable on the page where the owner chooses a password; not UTC by default.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.ts";
import { expectNoSidewaysScroll, screenshot, useChromium } from "../helpers/chromium.ts";
import { useMailSender } from "../helpers/smtp.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();
const mail = useMailSender(() => t);
const chromium = useChromium();
beforeAll(async () => {});
afterAll(async () => {});

const zoneOf = async (email: string) =>
  (
    await queryRows<{ time_zone: string }>(
      t.database.db,
      sql`select time_zone from vendors where lower(email) = lower(${email})`,
    )
  )[0]?.time_zone;

it.skipIf(!chromium.available)(
  "a browser in Lisbon signs up a shop in Lisbon; another changes the zone it was offered",
  async () => {
    for (const [browserZone, chosen, expected] of [
      ["Europe/Lisbon", undefined, "Europe/Lisbon"],
      ["America/Sao_Paulo", "Europe/Madrid", "Europe/Madrid"],
    ] as const) {
      const context = await chromium.browser.newContext({
        timezoneId: browserZone,
        locale: "pt-PT",
        viewport: { width: 390, height: 844 },
      });
      try {
        const page = await context.newPage();
        const email = `zone-${browserZone.replace("/", "-").toLowerCase()}-${Date.now()}@example.test`;
        await page.goto(`${t.url}/signup`);
        await page.locator("#name").fill("Noivas do Chiado");
        await page.locator("#email").fill(email);
        await page.locator("form button[type=submit]").click();
        await page.waitForURL(`${t.url}/signup/sent`);
        const [received] = await mail.sink.waitFor(email);
        const link = /https?:\/\/\S+\/signup\/confirm\?token=\S+/.exec(received?.parsed.text ?? "")?.[0];
        expect(link).toBeDefined();
        await page.goto(link as string);
        // The select shows the browser's zone, in the page's language (Portuguese here).
        await expect.poll(() => page.locator("#timeZone").inputValue()).toBe(browserZone);
        expect(await page.locator("label[for=timeZone]").textContent()).toBe("Fuso horário da sua loja");
        await expectNoSidewaysScroll(page, `sign-up confirmation in ${browserZone}`);
        await screenshot(page, `signup-time-zone-${browserZone.replace("/", "-")}`);
        if (chosen) await page.locator("#timeZone").selectOption(chosen);
        await page.locator("#password").fill("a long secret");
        await page.locator("form button[type=submit]").click();
        await page.waitForURL(/\/dashboard/);
        expect(await zoneOf(email)).toBe(expected);
      } finally {
        await context.close();
      }
    }
  },
);
