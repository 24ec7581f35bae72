// What a German shop's people read beside a field they filled in wrong, on the settings forms whose
// checks the services own (mail wording, booking settings, order dates): the reader's sentence,
// never the service's English for the API ("must be one line", "must be at most 200 characters").
// The brand form answers with a flash, which names the refused field by its label.
import { describe, expect, it } from "vitest";
import { setShopLanguage } from "../../src/modules/vendors/shop-language.ts";
import { decodeEntities, hiddenFields } from "../helpers/browser.ts";
import { filledForm, flashOf, follow, signedInBrowser } from "../helpers/dashboard.ts";
import { createVendor } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

async function germanOwner() {
  const vendor = await createVendor(t.ctx, "Atelier Lumière");
  await setShopLanguage(t.ctx, vendor.id, "de");
  return signedInBrowser(t, vendor.email);
}

/** The messages shown beside fields (class field-error), entities decoded. */
function fieldErrors(text: string): string[] {
  return [...decodeEntities(text).matchAll(/class="field-error"[^>]*>([\s\S]*?)<\/(?:p|div|span)>/g)].map(
    (m) => (m[1] ?? "").replace(/<[^>]+>/g, " ").trim(),
  );
}

const englishRule = /must (?:be|not|NOT)|is not valid|is required|characters\b/;

describe("field refusals on the settings forms, in German", () => {
  it("the mail editor: a two-line subject and a too-long opening", async () => {
    const owner = await germanOwner();
    const editor = await owner.get("/dashboard/settings/mail?kind=order_status&language=de");
    expect(editor.status).toBe(200);
    const refused = await owner.post("/dashboard/settings/mail", {
      ...hiddenFields(editor.text),
      action: "save",
      subject: "Neuigkeiten\nzu {orderNumber}",
      opening: "x".repeat(2001),
    });
    expect(refused.status).toBe(400);
    const text = decodeEntities(refused.text);
    expect(text).toContain("Der Betreff muss in eine Zeile passen.");
    expect(text).toContain("Darf höchstens 2000 Zeichen lang sein.");
    expect(text).not.toMatch(englishRule);
  });

  it("booking settings: a capacity and a reschedule cut-off out of range", async () => {
    const owner = await germanOwner();
    const path = "/dashboard/settings/booking";
    const page = await owner.get(path);
    expect(page.status).toBe(200);
    const refused = await owner.post(path, {
      ...filledForm(page, path),
      "types.FITTING.capacity": "0",
      rescheduleCutoffHours: "-3",
    });
    expect(refused.status).toBe(400);
    expect(fieldErrors(refused.text)).toEqual(
      expect.arrayContaining([
        "muss eine ganze Zahl von 1 bis 50 sein",
        "muss eine ganze Zahl von 0 bis 720 sein",
      ]),
    );
    expect(fieldErrors(refused.text).length).toBeGreaterThan(0);
    expect(decodeEntities(refused.text)).not.toMatch(englishRule);
  });

  it("order dates: a lead time beyond the limit", async () => {
    const owner = await germanOwner();
    const path = "/dashboard/settings/order-dates";
    const page = await owner.get(path);
    expect(page.status).toBe(200);
    const refused = await owner.post(path, { ...filledForm(page, path), "leadDays.BRIDAL_DRESS": "99999" });
    expect(refused.status).toBe(400);
    expect(decodeEntities(refused.text)).toContain("Geben Sie eine ganze Zahl bis 730 Tage (104 Wochen) ein");
    expect(fieldErrors(refused.text).length).toBeGreaterThan(0);
    expect(decodeEntities(refused.text)).not.toMatch(englishRule);
  });

  it("the brand form: an accent colour that is not a colour", async () => {
    const owner = await germanOwner();
    const path = "/dashboard/settings/brand";
    const page = await owner.get(path);
    expect(page.status).toBe(200);
    const res = await owner.post(path, { ...filledForm(page, path), accentColor: "red" });
    expect(res.status).toBe(303);
    const flash = flashOf(await follow(owner, res));
    expect(flash?.kind).toBe("error");
    expect(flash?.text).not.toMatch(englishRule);
    // Before: the generic "a value is not valid", naming no field.
    expect(flash?.text).toBe("Bitte prüfen Sie das Feld „Akzentfarbe“ und versuchen Sie es erneut.");
  });
});
