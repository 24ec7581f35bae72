// The bride's own link (CONTRACT 12) in a real browser (Debian's Chromium) at a phone's width,
// script off: from the link in her confirmation mail she moves the appointment to another free
// start and then cancels it. Each change is hers in the activity log, emits its event, mails the
// shop and mails her; the cancelled appointment's link then leads nowhere (404), and a link that
// was never issued is the same 404.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.ts";
import { updateShopSettings } from "../../src/modules/vendors/shop-settings.ts";
import { useChromium } from "../helpers/chromium.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useMailSender } from "../helpers/smtp.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp({ ownDatabase: true });
const mail = useMailSender(() => t);
const chromium = useChromium();
beforeAll(async () => {});
afterAll(async () => {});

it.skipIf(!chromium.available)(
  "moves and cancels through the link in her mail, at 390 px without script",
  async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx, "Sposa Bella");
    await updateShopSettings(t.ctx, vendor.id, {
      name: "Sposa Bella",
      contactEmail: null,
      timeZone: "Europe/Berlin",
      customerMail: true,
    });
    await t.api.put(
      "/api/vendor/booking/settings",
      { address: "Via Roma 1\nMilano", reminderMinutesBefore: 0 },
      { key },
    );
    const email = `sposa-${Date.now()}@example.test`;
    const customer = await t.api.post("/api/vendor/customers", { name: "Giulia", email }, { key });
    const start = new Date(Date.now() + 4 * 86_400_000);
    start.setUTCMinutes(0, 0, 0);
    const created = await t.api.post(
      "/api/vendor/appointments",
      { customerId: customer.body.id, type: "FITTING", date: start.toISOString(), duration: 60 },
      { key },
    );
    const id = created.body.id as string;
    await t.api.patch(`/api/vendor/appointments/${id}`, { status: "CONFIRMED" }, { key });
    const [confirmation] = await mail.sink.waitFor(email, 1);
    const link = new RegExp(`${t.url}/my/appointments/va_[A-Za-z0-9_-]+`).exec(
      confirmation?.parsed.text ?? "",
    )?.[0];
    expect(link).toBeTruthy();

    const context = await chromium.browser.newContext({
      viewport: { width: 390, height: 844 },
      javaScriptEnabled: false,
    });
    const page = await context.newPage();
    try {
      const opened = await page.goto(link as string);
      expect(opened?.status()).toBe(200);
      expect(await page.locator("#status").getAttribute("data-status")).toBe("CONFIRMED");
      expect(await page.textContent("body")).toContain("Via Roma 1");
      // Phone-first: nothing wider than the screen.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      const choice = page.locator('input[name="start"]').first();
      const chosen = (await choice.getAttribute("value")) as string;
      expect(new Date(chosen).getTime()).not.toBe(start.getTime());
      await choice.check();
      await page.click("#move button[type=submit]");
      expect(await page.textContent("#notice")).toContain("Your appointment is moved to");
      const afterMove = await t.api.get(`/api/vendor/appointments/${id}`, { key });
      expect(afterMove.body.date).toBe(new Date(chosen).toISOString());
      expect(afterMove.body.status).toBe("CONFIRMED");

      await page.click("#cancel button[type=submit]");
      expect(await page.textContent("#cancelled")).toContain("Your appointment is cancelled.");
      expect((await t.api.get(`/api/vendor/appointments/${id}`, { key })).body.status).toBe("CANCELLED");
      // The link died with the appointment.
      const gone = await page.goto(link as string);
      expect(gone?.status()).toBe(404);
      expect(await page.textContent("#gone")).toContain("no longer leads to an appointment");
      expect((await page.goto(`${t.url}/my/appointments/va_${"x".repeat(43)}`))?.status()).toBe(404);
    } finally {
      await context.close();
    }

    // Hers in the activity log, the usual events, the shop told, and she told.
    const activity = await queryRows<{ actor_kind: string; actor_id: string; detail: { fields: string[] } }>(
      t.database.db,
      sql`select actor_kind, actor_id, detail from activity
        where vendor_id = ${vendor.id} and subject_id = ${id} and actor_kind = 'customer' order by at`,
    );
    expect(activity.map((a) => [a.actor_id, a.detail.fields])).toEqual([
      [customer.body.id, ["date"]],
      [customer.body.id, []],
    ]);
    const events = await queryRows<{ type: string }>(
      t.database.db,
      sql`select type from events where vendor_id = ${vendor.id} order by created_at`,
    );
    expect(events.map((e) => e.type)).toEqual(
      expect.arrayContaining(["appointment.updated", "appointment.cancelled"]),
    );
    const toShop = await mail.sink.waitFor(vendor.email, 2);
    expect(toShop.map((m) => m.parsed.subject).sort()).toEqual([
      expect.stringMatching(/^Giulia cancelled their Fitting on /),
      expect.stringMatching(/^Giulia moved their Fitting to /),
    ]);
    const hers = await mail.sink.waitFor(email, 3);
    expect(hers.map((m) => m.parsed.subject?.split(":")[0]).sort()).toEqual([
      "Fitting cancelled",
      "Fitting confirmed",
      expect.stringMatching(/^Fitting moved to /),
    ]);
  },
  120_000,
);
