// CONTRACT 12 (Languages) for what a shop's customers read, read back from a real SMTP server
// and a real Chromium: a German shop's customer gets German order and appointment mail and a German
// tracking page, a Portuguese customer of the same shop Portuguese mail; the shop's brand is in
// each; an owner's own subject is used and an unknown placeholder refused with its name (staff
// may not word mail at all); no customer page or mail says "vendor-api"; the tracking page in the
// pseudo-locale at 390 px does not scroll sideways.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { updateShopBrand } from "../../src/modules/vendors/shop-brand.ts";
import { updateShopSettings } from "../../src/modules/vendors/shop-settings.ts";
import { Browser, hiddenFields, type PageResponse } from "../helpers/browser.ts";
import { useChromium } from "../helpers/chromium.ts";
import { createMember, createVendorWithKey } from "../helpers/factories.ts";
import { signedInBrowser } from "../helpers/oauth.ts";
import { type ReceivedMail, useMailSender } from "../helpers/smtp.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp({ ownDatabase: true });
const mail = useMailSender(() => t);
const chromium = useChromium();
beforeAll(async () => {});
afterAll(async () => {});

let seq = 0;
const BRAND = {
  logoUrl: "https://cdn.lumiere.example/logo.png",
  accentColor: "#8a2d5c",
  address: "Hauptstraße 5\n10115 Berlin",
  phone: "+49 30 1234567",
  signature: "Herzliche Grüße\nIhr Team von Atelier Lumière",
};

/** A German shop in Berlin with customer mail on and its brand set. */
async function germanShop() {
  const { vendor, key } = await createVendorWithKey(t.ctx, "Atelier Lumière");
  await updateShopSettings(t.ctx, vendor.id, {
    name: "Atelier Lumière",
    contactEmail: "hallo@lumiere.example",
    timeZone: "Europe/Berlin",
    customerMail: true,
  });
  await updateShopBrand(t.ctx, vendor.id, { language: "de", ...BRAND });
  return { vendor, key };
}

async function customer(key: string, name: string, language?: string | null) {
  const email = `bride-${Date.now()}-${seq++}@example.test`;
  const res = await t.api.post(
    "/api/vendor/customers",
    { name, email, ...(language !== undefined ? { language } : {}) },
    { key },
  );
  expect(res.status).toBe(201);
  return { id: res.body.id as string, email, body: res.body };
}

async function order(key: string, customerId: string) {
  const res = await t.api.post(
    "/api/vendor/orders",
    { customerId, type: "BRIDAL_DRESS", model: "Aurora" },
    { key },
  );
  expect(res.status).toBe(201);
  return res.body as { id: string; number: number };
}

async function moveWithMessage(key: string, orderId: string, status: string, message: string) {
  const res = await t.api.put(`/api/vendor/orders/${orderId}/status`, { status, message }, { key });
  expect(res.status).toBe(200);
}

async function confirmedAppointment(key: string, customerId: string) {
  const created = await t.api.post(
    "/api/vendor/appointments",
    { customerId, type: "FITTING", date: "2031-05-02T08:30:00Z", duration: 45 },
    { key },
  );
  expect(created.status).toBe(201);
  const confirmed = await t.api.patch(
    `/api/vendor/appointments/${created.body.id}`,
    { status: "CONFIRMED" },
    { key },
  );
  expect(confirmed.status).toBe(200);
}

const ics = (m: ReceivedMail | undefined) =>
  (
    m?.parsed.attachments.find((a) => a.contentType.startsWith("text/calendar"))?.content.toString("utf8") ??
    ""
  ).replace(/\r\n /g, "");
const everything = (m: ReceivedMail | undefined) =>
  `${m?.raw ?? ""}\n${m?.parsed.html || ""}\n${m?.parsed.text ?? ""}`;

describe("a German shop's customers", () => {
  it("get order and appointment mail in German, under the shop's brand, and a German tracking page", async () => {
    const { key } = await germanShop();
    const clara = await customer(key, "Clara Weiß");
    // Left out, the customer's language is the shop's: the API shows the stored null.
    expect(clara.body.language).toBeNull();
    const o = await order(key, clara.id);
    await moveWithMessage(key, o.id, "IN_PRODUCTION", "Der Stoff ist da.");
    const [orderMail] = await mail.sink.waitFor(clara.email);
    expect(orderMail?.parsed.subject).toBe(`Bestellung Nr. ${o.number} (Brautkleid Aurora): In Fertigung`);
    const text = orderMail?.parsed.text ?? "";
    expect(text).toContain("Hallo Clara Weiß,");
    expect(text).toContain(
      `Atelier Lumière hat Neuigkeiten zu Ihrer Bestellung Nr. ${o.number} (Brautkleid Aurora).`,
    );
    expect(text).toContain("Der Stoff ist da.");
    expect(text).toContain("Ihre Bestellung verfolgen: http");
    // The brand: signature, address, phone; the logo and accent colour in the HTML part.
    expect(text).toContain("Herzliche Grüße\nIhr Team von Atelier Lumière");
    expect(text).toContain("Hauptstraße 5\n10115 Berlin\nTelefon: +49 30 1234567");
    const htmlPart = orderMail?.parsed.html || "";
    expect(htmlPart).toContain('<html lang="de">');
    expect(htmlPart).toContain(
      '<img src="https://cdn.lumiere.example/logo.png" alt="Logo von Atelier Lumière"',
    );
    expect(htmlPart).toContain("#8a2d5c");
    expect(htmlPart).toContain("Abmelden");
    expect(text).not.toMatch(/Hello|Follow your order|has news/);

    await confirmedAppointment(key, clara.id);
    const [, appointmentMail] = await mail.sink.waitFor(clara.email, 2);
    const when = new Intl.DateTimeFormat("de", {
      dateStyle: "full",
      timeStyle: "short",
      timeZone: "Europe/Berlin",
    }).format(new Date("2031-05-02T08:30:00Z"));
    expect(when).toContain("10:30");
    expect(appointmentMail?.parsed.subject).toBe(`Anprobe bestätigt: ${when}`);
    expect(appointmentMail?.parsed.text).toContain("Atelier Lumière hat Ihren Termin (Anprobe) bestätigt.");
    expect(appointmentMail?.parsed.text).toContain("Dauer: 45 Minuten");
    expect(appointmentMail?.parsed.text).toContain("Wo: Hauptstraße 5, 10115 Berlin");
    const invitation = ics(appointmentMail);
    expect(invitation).toContain("SUMMARY:Anprobe bei Atelier Lumière");
    expect(invitation).toContain("LOCATION:Hauptstraße 5\\, 10115 Berlin");

    // The tracking page the mail links to, in German, under the brand.
    const link = /Ihre Bestellung verfolgen: (\S+)/.exec(text)?.[1] ?? "";
    const page = await new Browser(t.url).get(new URL(link).pathname);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<html lang="de">');
    expect(page.text).toContain(`<h1>Bestellung Nr. ${o.number}: Brautkleid Aurora</h1>`);
    expect(page.text).toContain("Aktueller Stand:");
    expect(page.text).toContain('data-status="IN_PRODUCTION">In Fertigung</span>');
    expect(page.text).toContain("Bestellung aufgenommen");
    expect(page.text).toContain("Verlauf");
    expect(page.text).toContain("Telefon: +49 30 1234567");
    expect(page.text).not.toMatch(/Current status|Progress|Order created/);
    for (const m of [orderMail, appointmentMail]) expect(everything(m)).not.toMatch(/vendor-api/i);
    expect(page.text).not.toMatch(/vendor-api/i);
  });

  it("a Portuguese customer of the same shop gets Portuguese mail", async () => {
    const { key } = await germanShop();
    const ana = await customer(key, "Ana Costa", "pt");
    expect(ana.body.language).toBe("pt");
    const o = await order(key, ana.id);
    await moveWithMessage(key, o.id, "FITTING_READY", "Pode vir provar.");
    const [orderMail] = await mail.sink.waitFor(ana.email);
    expect(orderMail?.parsed.subject).toBe(
      `Encomenda n.º ${o.number} (Vestido de noiva Aurora): Pronto para a prova`,
    );
    expect(orderMail?.parsed.text).toContain("Olá Ana Costa,");
    expect(orderMail?.parsed.text).toContain("Recebe este e-mail porque é cliente de Atelier Lumière.");
    await confirmedAppointment(key, ana.id);
    const [, appointmentMail] = await mail.sink.waitFor(ana.email, 2);
    expect(appointmentMail?.parsed.subject).toMatch(/^Marcação confirmada \(Prova\): /);
    expect(appointmentMail?.parsed.text).toContain("Duração: 45 minutos");
    expect(ics(appointmentMail)).toContain("SUMMARY:Prova em Atelier Lumière");
    for (const m of [orderMail, appointmentMail]) expect(everything(m)).not.toMatch(/vendor-api/i);

    // Her tracking page follows her language, not the shop's.
    const link = /Acompanhe a sua encomenda: (\S+)/.exec(orderMail?.parsed.text ?? "")?.[1] ?? "";
    const page = await new Browser(t.url).get(new URL(link).pathname);
    expect(page.text).toContain('<html lang="pt">');
    expect(page.text).toContain("Estado atual:");
  });

  it("a language outside the eight is a 400 naming the field, on create and update", async () => {
    const { key } = await germanShop();
    const bad = await t.api.post(
      "/api/vendor/customers",
      { name: "X", email: `x-${seq++}@example.test`, language: "klingon" },
      { key },
    );
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("language");
    const ok = await customer(key, "Y");
    const patched = await t.api.patch(`/api/vendor/customers/${ok.id}`, { language: "fr" }, { key });
    expect(patched.status).toBe(200);
    expect(patched.body.language).toBe("fr");
    const read = await t.api.get(`/api/vendor/customers/${ok.id}`, { key });
    expect(read.body.language).toBe("fr");
    const wrong = await t.api.patch(`/api/vendor/customers/${ok.id}`, { language: "pt-BR" }, { key });
    expect(wrong.status).toBe(400);
    expect(JSON.stringify(wrong.body)).toContain("language");
    const profile = await t.api.get("/api/vendor/profile", { key });
    expect(profile.body).toMatchObject({ language: "de", timeZone: "Europe/Berlin" });
  });
});

describe("mail the shop words itself", () => {
  it("an owner's subject and opening are used, an unknown placeholder is refused by name, reset restores the default", async () => {
    const { vendor, key } = await germanShop();
    const owner = await signedInBrowser(t, vendor.email);
    const editor = await owner.get("/dashboard/settings/mail?kind=order_status&language=de");
    expect(editor.status).toBe(200);
    expect(editor.text).toContain("{customerName}, {shopName}, {orderNumber}, {item}, {status}");

    // The editor's own form (the page's first is the layout's sign-out).
    const submit = (page: PageResponse, extra: Record<string, string>) =>
      owner.post("/dashboard/settings/mail", { ...hiddenFields(page.text), ...extra });
    const refused = await submit(editor, {
      action: "save",
      subject: "Neu: {status} für {bride}",
      opening: "Liebe {customerName}",
    });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain("Unbekannter Platzhalter {bride}");
    expect(refused.text).toContain('id="subject-error"');

    const preview = await submit(editor, {
      action: "preview",
      subject: "Neuigkeiten zu Nr. {orderNumber}: {status}",
      opening: "Liebe {customerName},\n<b>wir</b> haben gute Nachrichten!",
    });
    expect(preview.status).toBe(200);
    expect(preview.text).toContain("Neuigkeiten zu Nr. 1001: Bereit zur Anprobe");

    const saved = await submit(editor, {
      action: "save",
      subject: "Neuigkeiten zu Nr. {orderNumber}: {status}",
      opening: "Liebe {customerName},\n<b>wir</b> haben gute Nachrichten!",
    });
    expect(saved.status).toBe(303);

    const clara = await customer(key, "Clara Weiß");
    const o = await order(key, clara.id);
    await moveWithMessage(key, o.id, "IN_PRODUCTION", "Der Stoff ist da.");
    const [edited] = await mail.sink.waitFor(clara.email);
    expect(edited?.parsed.subject).toBe(`Neuigkeiten zu Nr. ${o.number}: In Fertigung`);
    expect(edited?.parsed.text).toContain("Liebe Clara Weiß,\n<b>wir</b> haben gute Nachrichten!");
    // No HTML from the shop: escaped, its line break kept.
    expect(edited?.parsed.html).toContain(
      "Liebe Clara Weiß,<br>&lt;b&gt;wir&lt;/b&gt; haben gute Nachrichten!",
    );

    // A Portuguese customer of the shop still gets the default: the wording was German.
    const ana = await customer(key, "Ana Costa", "pt");
    await moveWithMessage(key, (await order(key, ana.id)).id, "IN_PRODUCTION", "Olá");
    const [pt] = await mail.sink.waitFor(ana.email);
    expect(pt?.parsed.subject).toMatch(/^Encomenda n\.º \d+ \(Vestido de noiva Aurora\): Em produção$/);

    const reset = await submit(await owner.get("/dashboard/settings/mail?kind=order_status&language=de"), {
      action: "reset",
    });
    expect(reset.status).toBe(303);
    await moveWithMessage(key, o.id, "FITTING_READY", "Bitte zur Anprobe kommen.");
    const [, again] = await mail.sink.waitFor(clara.email, 2);
    expect(again?.parsed.subject).toBe(`Bestellung Nr. ${o.number} (Brautkleid Aurora): Bereit zur Anprobe`);
  });

  it("staff cannot word the shop's mail", async () => {
    const { vendor } = await germanShop();
    const staff = await createMember(t.ctx, vendor.id, { role: "staff" });
    const browser = await signedInBrowser(t, staff.email);
    expect((await browser.get("/dashboard/settings/mail?kind=order_status&language=de")).status).toBe(403);
    expect((await browser.get("/dashboard/settings/brand")).status).toBe(403);
    const post = await browser.post("/dashboard/settings/mail", {
      kind: "order_status",
      language: "de",
      subject: "x",
      opening: "y",
      action: "save",
    });
    expect([403, 303]).toContain(post.status);
    expect(post.status === 303 ? post.location : "").not.toContain("/dashboard/settings/mail");
  });
});

describe("customer pages", () => {
  it("the inquiry page follows Accept-Language and keeps it for the customer the inquiry becomes", async () => {
    const { vendor } = await germanShop();
    const res = await fetch(`${t.url}/inquiry/${vendor.id}`, {
      headers: { "accept-language": "fr-CH,fr;q=0.9" },
    });
    const body = await res.text();
    expect(body).toContain('<html lang="fr">');
    expect(body).toContain("Écrire à Atelier Lumière");
    expect(body).toContain('<input type="hidden" name="language" value="fr">');
    expect(body).not.toMatch(/vendor-api/i);
    const none = await (await fetch(`${t.url}/inquiry/${vendor.id}`)).text();
    expect(none).toContain("Schreiben Sie Atelier Lumière");
  });

  it.skipIf(!chromium.available)(
    "the tracking page in the pseudo-locale at 390 px does not scroll sideways",
    async () => {
      const { key } = await germanShop();
      const c = await customer(key, "Clara Weiß");
      const o = await order(key, c.id);
      await moveWithMessage(key, o.id, "IN_PRODUCTION", "Der Stoff ist da und wird zugeschnitten.");
      const [m] = await mail.sink.waitFor(c.email);
      const path = new URL(/Ihre Bestellung verfolgen: (\S+)/.exec(m?.parsed.text ?? "")?.[1] ?? "").pathname;
      const context = await chromium.browser.newContext({ viewport: { width: 390, height: 844 } });
      try {
        const page = await context.newPage();
        const res = await page.goto(`${t.url}${path}?lang=en-XA`);
        expect(res?.status()).toBe(200);
        const text = await page.locator("main").innerText();
        expect(text).toContain("Çûŕŕéñţ šţàţûš"); // accented: the catalogue's, not a hard-coded string
        expect(text).not.toMatch(/vendor-api/i);
        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        expect(width).toBeLessThanOrEqual(390);
      } finally {
        await context.close();
      }
    },
  );
});
