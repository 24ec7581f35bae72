// The customer, duplicate and inquiry pages read in the member's language, including the pages
// the crawl cannot reach by links (a merge confirmation, a form shown again with its errors, the
// flashes after a post): German throughout, and Polish for a count that needs its "many" form.
import { describe, expect, it } from "vitest";
import type { Browser } from "../helpers/browser.ts";
import { decodeEntities } from "../helpers/browser.ts";
import {
  confirmThrough,
  filledForm,
  flashOf,
  follow,
  formFields,
  signedInBrowser,
} from "../helpers/dashboard.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

/** A shop owner signed in, reading the dashboard in `language` (set on her Account page). */
async function ownerReading(language: string) {
  const { vendor, key } = await createVendorWithKey(t.ctx, "Sprachen Brautmoden");
  const browser = await signedInBrowser(t, vendor.email);
  const account = await browser.get("/dashboard/account");
  const csrf = decodeEntities(/name="_csrf" value="([^"]+)"/.exec(account.text)?.[1] ?? "");
  const saved = await browser.post("/dashboard/account/language", { _csrf: csrf, language });
  expect(saved.status).toBe(303);
  return { vendor, key, browser };
}

async function page(browser: Browser, path: string) {
  const res = await browser.get(path);
  expect(res.status, `${path}: ${res.text.slice(0, 300)}`).toBe(200);
  expect(res.text, path).toContain('<html lang="de">');
  return decodeEntities(res.text);
}

describe("customer and inquiry pages in German", () => {
  it("the list, a customer, her edit form refused, erasure and merging read in German", async () => {
    const { key, browser } = await ownerReading("de");
    const bea = await t.api.post(
      "/api/vendor/customers",
      { name: "Beatrice Braut", email: "bea@example.test", measurements: { bust: 86 } },
      { key },
    );
    await t.api.post("/api/vendor/customers", { name: "beatrice braut" }, { key });
    await t.api.post("/api/vendor/customers", { name: "Vergeben", email: "taken@example.test" }, { key });

    const list = await page(browser, "/dashboard/customers");
    expect(list).toContain(">Neue Kundin</a>");
    expect(list).toContain("Suche (Name, E-Mail, Telefon)");
    expect(list).not.toContain("New customer");
    const none = await page(browser, "/dashboard/customers?email=nobody%40example.test");
    expect(none).toContain("Keine Kundin hat diese E-Mail-Adresse.");

    const customer = await page(browser, `/dashboard/customers/${bea.body.id}`);
    expect(customer).toContain("<h2>Maße</h2>");
    expect(customer).toContain("<h2>Aufträge (0)</h2>");
    expect(customer).toContain("Keine Termine für diese Kundin.");
    expect(customer).toContain("Termin buchen");

    // The edit form, refused: a taken e-mail (the service's message) and a row without a name.
    const action = `/dashboard/customers/${bea.body.id}`;
    const edit = await browser.get(`${action}/edit`);
    expect(decodeEntities(edit.text)).toContain('aria-label="Maß 1: Name"');
    const refused = await browser.post(action, {
      ...filledForm(edit, action),
      email: "TAKEN@example.test",
    });
    expect(refused.status).toBe(409);
    expect(flashOf(refused)?.text).toBe(
      "Die Kundin wurde nicht gespeichert: Bitte korrigieren Sie die unten markierten Felder.",
    );
    expect(refused.text).toContain(
      '<p class="field-error" id="email-error">wird schon von einer anderen Kundin verwendet</p>',
    );
    const badRow = await browser.post(action, {
      ...filledForm(edit, action),
      "preferences.name": [""],
      "preferences.value": ["Spitze"],
    });
    expect(badRow.status).toBe(400);
    expect(badRow.text).toContain("Zeile 1 hat einen Wert, aber keinen Namen");
    const saved = await follow(browser, await browser.post(action, filledForm(edit, action)));
    expect(flashOf(saved)?.text).toBe("Kundin gespeichert.");

    const erase = await page(browser, `${action}/erase`);
    expect(erase).toContain("Beatrice Braut löschen?");
    expect(erase).toContain("ihre 0 Termine");

    const duplicates = await page(browser, "/dashboard/customers/duplicates");
    expect(duplicates).toContain("<td>Gleicher Name</td>");
    const merge = /href="(\/dashboard\/customers\/[a-z0-9]+\/merge\/[a-z0-9]+)"/.exec(duplicates)?.[1] ?? "";
    expect(merge).not.toBe("");
    // Which of the two is kept depends on the pair's order: either way, a German question.
    expect(await page(browser, merge)).toMatch(
      /<h1>(Beatrice Braut|beatrice braut) mit \S+ braut zusammenführen\?<\/h1>/i,
    );
    const merged = await follow(browser, await confirmThrough(browser, merge));
    expect(flashOf(merged)?.text).toMatch(/^Mit (Beatrice Braut|beatrice braut) zusammengeführt\.$/);
  });

  it("an inquiry's page, marking it handled and turning it into a customer read in German", async () => {
    const { vendor, browser } = await ownerReading("de");
    const ids: string[] = [];
    for (const name of ["Anna", "Berta"]) {
      const res = await t.api.post(`/api/public/vendors/${vendor.id}/inquiries`, {
        name,
        email: `${name.toLowerCase()}@example.test`,
        message: "Haben Sie Größe 38?",
      });
      ids.push(res.body.id);
    }
    const list = await page(browser, "/dashboard/inquiries");
    expect(list).toContain("<th>Eingegangen</th>");
    expect(list).toContain('data-status="OPEN">Offen</span>');

    const inquiry = await page(browser, `/dashboard/inquiries/${ids[0]}`);
    expect(inquiry).toContain("<h1>Anfrage von Anna</h1>");
    expect(inquiry).toContain(">Beratung</option>");
    expect(inquiry).toContain("Kundin und Termin anlegen");
    const csrf = formFields(
      await browser.get(`/dashboard/inquiries/${ids[0]}`),
      `/dashboard/inquiries/${ids[0]}/convert`,
    );

    const handled = await follow(
      browser,
      await browser.post(`/dashboard/inquiries/${ids[1]}/handled`, { _csrf: csrf._csrf ?? "" }),
    );
    expect(flashOf(handled)?.text).toBe("Anfrage als erledigt markiert.");
    expect(handled.text).toContain('data-status="HANDLED">Erledigt</span>');

    const converted = await follow(
      browser,
      await browser.post(`/dashboard/inquiries/${ids[0]}/convert`, {
        ...csrf,
        type: "CONSULTATION",
        date: "2031-05-01T10:00",
        duration: "60",
        notes: "",
      }),
    );
    expect(flashOf(converted)?.text).toBe("Kundin angelegt und Termin gebucht; die Anfrage ist erledigt.");
  });
});

describe("a count in Polish", () => {
  it("uses the plural form Polish needs for five orders", async () => {
    const { key, browser } = await ownerReading("pl");
    const customer = await t.api.post("/api/vendor/customers", { name: "Zofia" }, { key });
    for (let i = 0; i < 5; i++) {
      await t.api.post("/api/vendor/orders", { customerId: customer.body.id, type: "SUIT" }, { key });
    }
    const res = await browser.get(`/dashboard/customers/${customer.body.id}/erase`);
    expect(res.status).toBe(200);
    expect(res.text).toContain('<html lang="pl">');
    expect(decodeEntities(res.text)).toContain("5 zamówień pozostanie");
  });
});
