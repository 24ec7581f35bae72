// Appointments, Activity, Settings' notifications and recent mail, the confirmation step and the
// public confirm-address page read in German for a member whose language is German (CONTRACT 12):
// the pages reachable only by an id, a POST or a mailed link included.
import { describe, expect, it } from "vitest";
import { decodeEntities, type PageResponse } from "../helpers/browser.ts";
import { confirmThrough, csrfOf, flashOf, follow, postFrom } from "../helpers/dashboard.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { signedInBrowser } from "../helpers/oauth.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

async function germanShop() {
  const { vendor, key } = await createVendorWithKey(t.ctx, "Brautmoden Anna");
  const customer = await t.api.post("/api/vendor/customers", { name: "Clara Braut" }, { key });
  expect(customer.status).toBe(201);
  const browser = await signedInBrowser(t, vendor.email);
  const account = await browser.get("/dashboard/account");
  const saved = await browser.post("/dashboard/account/language", { _csrf: csrfOf(account), language: "de" });
  expect(saved.status).toBe(303);
  return { browser, customerId: customer.body.id as string };
}

function expectGerman(page: PageResponse): void {
  expect(page.status, page.text.slice(0, 300)).toBe(200);
  expect(page.text).toContain('<html lang="de">');
}

describe("the appointment pages in German", () => {
  it("books, shows and cancels an appointment in German, and the activity log says so in German", async () => {
    const { browser, customerId } = await germanShop();

    const form = await browser.get("/dashboard/appointments/new");
    expectGerman(form);
    expect(form.text).toContain("<h1>Termin vereinbaren</h1>");
    expect(form.text).toContain("Dauer (Minuten, 15–480)");

    const refused = await postFrom(browser, "/dashboard/appointments/new", "/dashboard/appointments", {
      customerId,
      type: "FITTING",
      date: "kein Datum",
      duration: "60",
      notes: "",
    });
    expect(refused.status).toBe(400);
    expect(flashOf(refused)?.text).toBe(
      "Der Termin wurde nicht vereinbart: Bitte korrigieren Sie die unten markierten Felder.",
    );

    const booked = await postFrom(browser, "/dashboard/appointments/new", "/dashboard/appointments", {
      customerId,
      type: "FITTING",
      date: "2031-05-01T09:30",
      duration: "60",
      notes: "",
    });
    const page = await follow(browser, booked);
    expectGerman(page);
    expect(flashOf(page)?.text).toBe("Termin vereinbart.");
    expect(page.text).toContain("<h1>Termin: Anprobe</h1>");
    expect(page.text).toContain("Verschieben oder bearbeiten");
    expect(page.text).toContain("60 Min.");
    const id = /\/dashboard\/appointments\/([^/"]+)\/cancel/.exec(page.text)?.[1] ?? "";
    expect(id).not.toBe("");

    const list = await browser.get("/dashboard/appointments");
    expectGerman(list);
    expect(list.text).toContain("<h1>Anstehende Termine</h1>");
    expect(list.text).toContain(">Anprobe<");

    const question = await browser.get(`/dashboard/appointments/${id}/cancel`);
    expectGerman(question);
    expect(decodeEntities(question.text)).toContain("<h1>Die Anprobe von Clara Braut absagen?</h1>");
    expect(question.text).toContain("Das lässt sich nicht rückgängig machen.");
    expect(question.text).toContain("Behalten, zurück");
    const cancelled = await follow(
      browser,
      await confirmThrough(browser, `/dashboard/appointments/${id}/cancel`),
    );
    expect(flashOf(cancelled)?.text).toContain("Termin abgesagt.");
    expect(cancelled.text).toContain('data-status="CANCELLED">Abgesagt<');

    const activity = await browser.get("/dashboard/activity");
    expectGerman(activity);
    expect(activity.text).toContain("<h1>Aktivität</h1>");
    expect(activity.text).toMatch(
      new RegExp(`hat den Termin <a href="/dashboard/appointments/${id}">[^<]+</a> angelegt`),
    );
    expect(activity.text).toContain('<option value="">Alle</option>');
  });
});

describe("Settings' notifications and mail in German", () => {
  it("words the notification address, its change and the recent mail in German", async () => {
    const { browser } = await germanShop();
    const settings = await browser.get("/dashboard/settings");
    expectGerman(settings);
    expect(settings.text).toContain('<h2 id="notifications">Benachrichtigungen</h2>');
    expect(settings.text).toContain("<h2>Letzte E-Mails</h2>");
    expect(settings.text).toContain("Neue Anfragen werden an <strong data-notification-email>");

    const next = `inbox-${Date.now()}@example.test`;
    const asked = await follow(
      browser,
      await postFrom(browser, "/dashboard/settings", "/dashboard/settings/notification-email", {
        notificationEmail: next,
      }),
    );
    expect(flashOf(asked)?.text).toContain(`Ein Bestätigungslink wurde an ${next} gesendet.`);
    expect(asked.text).toContain(`Wartet auf Bestätigung: <strong>${next}</strong>`);
  });

  it("shows the public confirm-address page in the visitor's language", async () => {
    const res = await fetch(`${t.url}/notification-email/confirm?token=abgelaufen`, {
      headers: { "accept-language": "de-DE,de;q=0.9" },
    });
    const text = await res.text();
    expect(res.status).toBe(400);
    expect(text).toContain('<html lang="de">');
    expect(text).toContain("<h1>Link nicht mehr gültig</h1>");
  });
});
