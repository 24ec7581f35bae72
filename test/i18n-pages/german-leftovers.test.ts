// The last English a German shop's people met in the dashboard: times printed as numbers in UTC,
// refusals (the service's, the form reader's, the account page's) and helpers' default labels.
// Each test fails with the English text it replaced.
import { describe, expect, it } from "vitest";
import { updateShopSettings } from "../../src/modules/vendors/shop-settings.ts";
import type { Browser } from "../helpers/browser.ts";
import { decodeEntities } from "../helpers/browser.ts";
import { filledForm, flashOf, follow, postFrom, signedInBrowser } from "../helpers/dashboard.ts";
import { createVendorWithKey, TEST_PASSWORD } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

/** A shop owner signed in, reading the dashboard in German (set on her Account page). */
async function germanOwner(timeZone = "Europe/Berlin") {
  const { vendor, key } = await createVendorWithKey(t.ctx, "Atelier Lumière");
  await updateShopSettings(t.ctx, vendor.id, { name: "Atelier Lumière", contactEmail: null, timeZone });
  const browser = await signedInBrowser(t, vendor.email);
  const account = await browser.get("/dashboard/account");
  const csrf = decodeEntities(/name="_csrf" value="([^"]+)"/.exec(account.text)?.[1] ?? "");
  const saved = await browser.post("/dashboard/account/language", { _csrf: csrf, language: "de" });
  expect(saved.status).toBe(303);
  return { vendor, key, browser };
}

async function page(browser: Browser, path: string) {
  const res = await browser.get(path);
  expect(res.status, `${path}: ${res.text.slice(0, 300)}`).toBe(200);
  expect(res.text, path).toContain('<html lang="de">');
  return decodeEntities(res.text);
}

describe("a German shop's dashboard, the last English gone", () => {
  it("appointment and customer pages and the cancel question write times in German, in the shop's zone", async () => {
    const { key, browser } = await germanOwner();
    const clara = await t.api.post("/api/vendor/customers", { name: "Clara Weiß" }, { key });
    const appt = await t.api.post(
      "/api/vendor/appointments",
      { customerId: clara.body.id, type: "FITTING", date: "2030-01-02T10:00:00Z" },
      { key },
    );
    // 10:00 UTC is 11:00 in Berlin in winter (MEZ), written as a German reader writes it.
    const shown = '<time datetime="2030-01-02T10:00:00.000Z">2. Jan. 2030, 11:00 MEZ</time>';
    const list = await page(browser, "/dashboard/appointments");
    expect(list).toContain(shown);
    expect(list).not.toContain("2030-01-02 ");
    const one = await page(browser, `/dashboard/appointments/${appt.body.id}`);
    expect(one).toContain(shown);
    const customer = await page(browser, `/dashboard/customers/${clara.body.id}`);
    expect(customer).toContain(shown);
    expect(customer).not.toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d/);
    const cancel = await page(browser, `/dashboard/appointments/${appt.body.id}/cancel`);
    expect(cancel).toContain("Der Termin am 2. Jan. 2030, 11:00 MEZ wird endgültig abgesagt");
  });

  it("saving an order's dates says so in German, the whole section in the member's language", async () => {
    // The shop's language stays English: the section followed it, not the member's language.
    const { key, browser } = await germanOwner();
    const order = await t.api.post(
      "/api/vendor/orders",
      { customerName: "Clara Weiß", type: "BRIDAL_DRESS", model: "Aurora" },
      { key },
    );
    const path = `/dashboard/orders/${order.body.id}`;
    const saved = await postFrom(browser, path, `${path}/dates`, { dueDate: "2031-06-01" });
    const shown = await follow(browser, saved);
    // Before: the flash was the button's text ("Termine speichern", or "Save dates").
    expect(flashOf(shown)).toEqual({ kind: "success", text: "Termine gespeichert." });
    const section = decodeEntities(
      /<section class="order-dates"[\s\S]*?<\/section>/.exec(shown.text)?.[0] ?? "",
    );
    expect(section).toContain("<dt>Fällig am</dt>");
    expect(section).not.toContain("Due date");
  });

  it("the account page refuses a password change or a rename in German", async () => {
    const { browser } = await germanOwner();
    const cases: Array<[string, Record<string, string>, string]> = [
      [
        "password",
        {
          currentPassword: "wrong password!",
          newPassword: "ein neues Passwort",
          confirmPassword: "ein neues Passwort",
        },
        // Before: "currentPassword is not the current password".
        "Das ist nicht Ihr aktuelles Passwort.",
      ],
      [
        "password",
        {
          currentPassword: TEST_PASSWORD,
          newPassword: "ein neues Passwort",
          confirmPassword: "etwas anderes",
        },
        "Das neue Passwort und die Bestätigung stimmen nicht überein.",
      ],
      [
        "password",
        { currentPassword: TEST_PASSWORD, newPassword: "kurz", confirmPassword: "kurz" },
        "Das neue Passwort muss 10 bis 1024 Zeichen lang sein.",
      ],
      ["name", { name: "   " }, "Der Name muss 1 bis 100 Zeichen lang sein."],
      ["name", { name: "Zeile\nzwei" }, "Der Name darf nicht leer sein und keine Zeilenumbrüche enthalten."],
    ];
    for (const [action, form, german] of cases) {
      const res = await postFrom(browser, "/dashboard/account", `/dashboard/account/${action}`, form);
      expect(flashOf(await follow(browser, res))).toEqual({ kind: "error", text: german });
    }
  });

  it("a service's refusal and a form the schema refuses are flashed in German, never in English", async () => {
    const { key, browser } = await germanOwner();
    const clara = await t.api.post("/api/vendor/customers", { name: "Clara Weiß" }, { key });
    const appt = await t.api.post(
      "/api/vendor/appointments",
      { customerId: clara.body.id, type: "FITTING", date: "2030-01-02T10:00:00Z" },
      { key },
    );
    const path = `/dashboard/appointments/${appt.body.id}`;
    // The schema refuses a duration of 0: before, "duration must be >= 5" (src/web/form.ts).
    const short = await postFrom(browser, path, `${path}/edit`, { date: "2030-01-02T11:00", duration: "0" });
    const shortFlash = flashOf(await follow(browser, short));
    expect(shortFlash?.kind).toBe("error");
    expect(shortFlash?.text).toMatch(/^Dauer/);
    expect(shortFlash?.text).not.toMatch(/must|duration/);
    // A NUL in a field: refused by the form reader, said in German.
    const nul = await postFrom(browser, path, `${path}/edit`, {
      date: "2030-01-02T11:00",
      duration: "60",
      notes: "a\u0000b",
    });
    expect(flashOf(await follow(browser, nul))).toEqual({
      kind: "error",
      text: "Das hat nicht geklappt: Eine Angabe ist ungültig. Bitte prüfen Sie Ihre Eingaben und versuchen Sie es erneut.",
    });
    // The settings service refuses a contact e-mail in English ("contactEmail must be an e-mail address").
    const settings = await postFrom(browser, "/dashboard/settings", "/dashboard/settings", {
      name: "Atelier Lumière",
      contactEmail: "kein-at-zeichen",
      timeZone: "Europe/Berlin",
    });
    const refused = flashOf(await follow(browser, settings));
    expect(refused?.kind).toBe("error");
    expect(refused?.text).not.toMatch(/contactEmail|must be/);
  });

  it("a refused order status names the type and statuses in German, not as codes", async () => {
    const { key, browser } = await germanOwner();
    const order = await t.api.post(
      "/api/vendor/orders",
      { customerName: "Clara Weiß", type: "BRIDAL_DRESS", model: "Aurora" },
      { key },
    );
    const path = `/dashboard/orders/${order.body.id}`;
    const refused = await postFrom(browser, path, `${path}/status`, { status: "COMPLETED" });
    const flash = flashOf(await follow(browser, refused));
    // Before: "Ein Auftrag der Art BRIDAL_DRESS kann nicht von ORDERED zu COMPLETED wechseln; …".
    expect(flash?.kind).toBe("error");
    expect(flash?.text).toMatch(
      /^Ein Auftrag der Art Brautkleid kann nicht von Bestellt zu Abgeschlossen wechseln; möglich: .*In Produktion.* oder .*Storniert/,
    );
    expect(flash?.text).not.toMatch(/[A-Z]{2,}_?[A-Z]+/);
  });

  it("the booking page of a shop that does not exist says so in the visitor's German", async () => {
    const res = await fetch(`${t.url}/book/nosuchshop0000000000000`, {
      headers: { "accept-language": "de-DE,de;q=0.9" },
    });
    expect(res.status).toBe(404);
    const text = await res.text();
    expect(text).toContain('<html lang="de"');
    // Before: "Not found" and "There is no such shop. Check the link you followed."
    expect(text).toContain("Nicht gefunden");
    expect(text).not.toContain("Not found");
  });

  it("a customer's wedding date reads as a German date on the list and her page", async () => {
    const { key, browser } = await germanOwner();
    const clara = await t.api.post(
      "/api/vendor/customers",
      { name: "Clara Weiß", weddingDate: "2031-06-14" },
      { key },
    );
    const shown = '<time datetime="2031-06-14">14.06.2031</time>';
    expect(await page(browser, "/dashboard/customers")).toContain(shown);
    expect(await page(browser, `/dashboard/customers/${clara.body.id}`)).toContain(shown);
  });
  it("the brand and mail-wording pages follow the member's German, not the shop's English", async () => {
    // The shop's language stays English (the customers' mail); the pages are the member's.
    const { browser } = await germanOwner();
    const brand = await page(browser, "/dashboard/settings/brand");
    expect(brand).toContain("<h1>Marke und Sprache</h1>");
    expect(brand).not.toContain("Brand and language");
    const saved = await browser.post(
      "/dashboard/settings/brand",
      filledForm(await browser.get("/dashboard/settings/brand"), "/dashboard/settings/brand"),
    );
    expect(saved.status).toBe(303);
    expect(flashOf(await follow(browser, saved))?.text).toBe("Gespeichert.");
    const editor = await page(browser, "/dashboard/settings/mail?kind=order_status&language=en");
    expect(editor).toContain(">Speichern</button>");
    expect(editor).not.toContain(">Save</button>");
    const settings = await page(browser, "/dashboard/settings");
    expect(settings).toContain("E-Mails an die Kundschaft formulieren");
    expect(settings).not.toContain("Word your customer mail");
  });
});
