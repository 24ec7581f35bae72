// The hosted booking page (/book/<shop>) in Debian's Chromium at 390 px, as a bride on her phone
// in another time zone than the shop's: type, day, time, details, booked; the mails reach her (in
// her language) and the shop over real SMTP; a time taken meanwhile shows the day again.
import { afterAll, beforeAll, expect, it } from "vitest";
import { fromLocalInput } from "../../src/lib/time-zone.ts";
import { expectNoSidewaysScroll, screenshot, useChromium } from "../helpers/chromium.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useMailSender } from "../helpers/smtp.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp({ ownDatabase: true });
const mail = useMailSender(() => t);
const chromium = useChromium();
beforeAll(async () => {});
afterAll(async () => {});

/** A Tuesday to Saturday at least three days from now (the default hours and 24 h notice). */
function openDay(): string {
  for (let d = 3; d < 12; d++) {
    const day = new Date(Date.now() + d * 86_400_000);
    if (day.getUTCDay() >= 2 && day.getUTCDay() <= 6) return day.toISOString().slice(0, 10);
  }
  throw new Error("no open day");
}

it.skipIf(!chromium.available)(
  "a bride books a consultation through the hosted page on a phone",
  { timeout: 120_000 },
  async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx, "Brautmoden Anna");
    await t.api.put(
      "/api/vendor/booking/settings",
      { timeZone: "Europe/Berlin", address: "Hauptstraße 1\n10115 Berlin" },
      { key },
    );
    const day = openDay();
    const context = await chromium.browser.newContext({
      viewport: { width: 390, height: 844 },
      locale: "de-DE",
      timezoneId: "America/New_York",
    });
    const page = await context.newPage();
    try {
      // One type online: the page opens on its days, in the browser's language.
      await page.goto(`${t.url}/book/${vendor.id}`);
      await expect(page.locator("h1").textContent()).resolves.toBe("Termin bei Brautmoden Anna buchen");
      await expect(
        page.getByText("Uhrzeiten in der Zeitzone des Geschäfts (Europe/Berlin)").count(),
      ).resolves.toBe(1);
      const dayLink = page.locator(`a[href*="day=${day}"]`);
      await dayLink.click();
      const tenOClock = fromLocalInput(`${day}T10:00`, "Europe/Berlin")?.toISOString() as string;
      const time = page.locator(`a[data-at="${tenOClock}"]`);
      await expect(time.textContent()).resolves.toMatch(/^10:00/);
      // Her own zone (New York) is shown beside the shop's, by the page's small script.
      await expect(time.locator(".your-time").textContent()).resolves.toMatch(/bei Ihnen: .*(04|05):00/);
      await expectNoSidewaysScroll(page, "booking days");
      await screenshot(page, "booking-days-390");
      await time.click();
      await page.fill("#name", "Lena Schmidt");
      await page.fill("#email", `lena-${vendor.id}@example.test`);
      await page.fill("#phone", "030 1234567");
      await page.fill("#weddingDate", "2027-08-14");
      await page.fill("#notes", "Ich suche ein A-Linien-Kleid.");
      await expectNoSidewaysScroll(page, "booking form");
      await page.click("button[type=submit]");
      await expect(page.locator("[role=status]").textContent()).resolves.toContain(
        "Das Geschäft hat Ihre Anfrage",
      );
      await screenshot(page, "booking-done-390");

      const list = await t.api.get(`/api/vendor/appointments?from=${day}&to=${day}`, { key });
      expect(list.body.appointments).toMatchObject([
        {
          type: "CONSULTATION",
          status: "PROPOSED",
          date: tenOClock,
          duration: 90,
          notes: "Ich suche ein A-Linien-Kleid.",
        },
      ]);
      const [toBride] = await mail.sink.waitFor(`lena-${vendor.id}@example.test`, 1);
      expect(toBride?.parsed.subject).toBe("Ihre Terminanfrage bei Brautmoden Anna");
      expect(toBride?.parsed.text).toContain("10:00");
      expect(toBride?.parsed.text).toContain("Hauptstraße 1");
      const [toShop] = await mail.sink.waitFor(vendor.email, 1);
      expect(toShop?.parsed.subject).toContain("Lena Schmidt");

      // A second bride on the same form after the last place went: the day again, with a notice.
      await t.api.put("/api/vendor/booking/settings", { types: { CONSULTATION: { capacity: 1 } } }, { key });
      await page.goto(
        `${t.url}/book/${vendor.id}?lang=en&type=CONSULTATION&slot=${encodeURIComponent(tenOClock)}`,
      );
      await page.fill("#name", "Mia");
      await page.fill("#email", `mia-${vendor.id}@example.test`);
      await page.click("button[type=submit]");
      await expect(page.locator("[role=alert]").textContent()).resolves.toContain("this time was just taken");
      await expect(page.locator(`a[data-at="${tenOClock}"]`).count()).resolves.toBe(0);
    } finally {
      await context.close();
    }
  },
);

it("answers 404 for an unknown shop", async () => {
  const res = await fetch(`${t.url}/book/tz4a98xxat96iws9zmbrgj3a`);
  expect(res.status).toBe(404);
});
