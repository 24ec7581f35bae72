// The orders pages in German (CONTRACT 12, Languages): a member who chose German reads the list,
// the new-order form, an order's page with its status form and history, and the flashes and form
// errors of those forms in German, under <html lang="de">; nothing of the English pages is left.
import { describe, expect, it } from "vitest";
import { csrfOf, flashOf, follow, signedInBrowser, submitForm } from "../helpers/dashboard.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

async function germanMemberWithOrder() {
  const { vendor, key } = await createVendorWithKey(t.ctx, "Brautmoden Berg");
  const res = await t.api.post(
    "/api/vendor/orders",
    { customerName: "Ada Braut", customerEmail: "ada@example.test", type: "BRIDAL_DRESS", model: "Aurora" },
    { key },
  );
  expect(res.status).toBe(201);
  const browser = await signedInBrowser(t, vendor.email);
  const account = await browser.get("/dashboard/account");
  const saved = await browser.post("/dashboard/account/language", { _csrf: csrfOf(account), language: "de" });
  expect(saved.status).toBe(303);
  return { browser, orderId: res.body.id as string };
}

describe("the orders pages in German", () => {
  it("the list and the new-order form read in German", async () => {
    const { browser } = await germanMemberWithOrder();
    const list = await browser.get("/dashboard/orders");
    expect(list.status).toBe(200);
    expect(list.text).toContain('<html lang="de">');
    for (const text of [
      "<h1>Aufträge</h1>",
      ">Neuer Auftrag</a>",
      ">Jeder Status</option>",
      "<th>Aktualisiert</th>",
    ])
      expect(list.text).toContain(text);
    expect(list.text).toContain('data-status="ORDERED">Bestellt</span>');
    expect(list.text).not.toContain("Any status");

    const form = await browser.get("/dashboard/orders/new");
    expect(form.text).toContain("<h1>Neuer Auftrag</h1>");
    expect(form.text).toContain(">Auftrag anlegen</button>");
    expect(form.text).toContain(">Brautkleid</option>");
    expect(form.text).not.toContain("Create order");
  });

  it("a refused new order says so in German, beside the field and in the flash", async () => {
    const { browser } = await germanMemberWithOrder();
    const form = await browser.get("/dashboard/orders/new");
    const res = await submitForm(browser, form, "/dashboard/orders", {
      customerName: "Bea",
      customerEmail: "not-an-address",
      type: "SUIT",
    });
    expect(res.status).toBe(400);
    expect(flashOf(res)?.text).toBe(
      "Der Auftrag wurde nicht angelegt: Bitte korrigieren Sie die unten markierten Felder.",
    );
    expect(res.text).toContain('id="customerEmail-error">muss eine gültige E-Mail-Adresse sein</p>');
  });

  it("an order's page, its status form and its flashes read in German", async () => {
    const { browser, orderId } = await germanMemberWithOrder();
    const page = await browser.get(`/dashboard/orders/${orderId}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<html lang="de">');
    expect(page.text).toMatch(/<h1>Auftrag Nr\. \d+ — Aurora<\/h1>/);
    for (const text of [
      "<h2>Link zur Sendungsverfolgung</h2>",
      "<h2>Status ändern</h2>",
      "<h2>Verlauf</h2>",
      ">Bestellt (unverändert, nur eine Nachricht)</option>",
      "<summary>Details bearbeiten</summary>",
    ])
      expect(page.text).toContain(text);
    expect(page.text).not.toContain("Update status");

    const action = `/dashboard/orders/${orderId}/status`;
    const refused = await follow(
      browser,
      await submitForm(browser, page, action, { status: "IN_PRODUCTION", imageUrl: "javascript:alert(1)" }),
    );
    expect(flashOf(refused)).toEqual({
      kind: "error",
      text: "Bild-URL: muss mit http:// oder https:// beginnen",
    });
    const moved = await follow(
      browser,
      await submitForm(browser, refused, action, { status: "IN_PRODUCTION" }),
    );
    expect(flashOf(moved)).toEqual({ kind: "success", text: "Status auf In Produktion gesetzt." });
    expect(moved.text).toContain('<li data-status="IN_PRODUCTION">');
    expect(moved.text).toContain('data-status="IN_PRODUCTION">In Produktion</span>');
  });
});
