// Inquiries from the shop's own website (CONTRACT 10), over real HTTP: CORS for any origin
// (preflight included), a plain HTML form post answered 303, the honeypot, the return address
// only on the shop's registered website, the hosted page, the Settings snippet, and every new
// inquiry mailed to the shop (read back from a real SMTP server).
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.ts";
import { updateShopSettings } from "../../src/modules/vendors/shop-settings.ts";
import { Browser } from "../helpers/browser.ts";
import { csrfOf, signedInVendor } from "../helpers/dashboard.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useMailSender } from "../helpers/smtp.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp({ ownDatabase: true });
const mail = useMailSender(() => t);
const ORIGIN = "https://www.bella-bridal.example";

async function shop(contactEmail: string | null = `shop-${Date.now()}-${Math.random()}@bella.example`) {
  const { vendor, key } = await createVendorWithKey(t.ctx, "Bella <Bridal>");
  await updateShopSettings(t.ctx, vendor.id, {
    name: "Bella <Bridal>",
    contactEmail,
    timeZone: "Europe/Lisbon",
    website: `${ORIGIN}/about`,
  });
  return { vendor, key, contactEmail };
}

const path = (vendorId: string) => `/api/public/vendors/${vendorId}/inquiries`;

function postForm(vendorId: string, fields: Record<string, string>, origin = ORIGIN) {
  return fetch(`${t.url}${path(vendorId)}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin },
    body: new URLSearchParams(fields).toString(),
    redirect: "manual",
  });
}

async function inquiriesOf(key: string) {
  const res = await t.api.get("/api/vendor/inquiries", { key });
  return res.body.inquiries as Array<{ name: string; email: string; phone: string | null; message: string }>;
}

describe("CORS", () => {
  it("answers a preflight from any origin, and its answers are readable from any origin", async () => {
    const { vendor } = await shop();
    const preflight = await fetch(`${t.url}${path(vendor.id)}`, {
      method: "OPTIONS",
      headers: {
        origin: ORIGIN,
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect(preflight.headers.get("access-control-allow-methods")).toContain("POST");
    expect(preflight.headers.get("access-control-allow-headers")).toContain("content-type");
    expect(preflight.headers.get("access-control-allow-credentials")).toBeNull();

    const ok = await fetch(`${t.url}${path(vendor.id)}`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: ORIGIN },
      body: JSON.stringify({ name: "Ana", email: "ana@example.test", message: "Hello" }),
    });
    expect(ok.status).toBe(201);
    expect(ok.headers.get("access-control-allow-origin")).toBe("*");
    const bad = await fetch(`${t.url}${path(vendor.id)}`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: ORIGIN },
      body: JSON.stringify({ name: "Ana" }),
    });
    expect(bad.status).toBe(400);
    expect(bad.headers.get("access-control-allow-origin")).toBe("*");
  });
});

describe("a plain form post", () => {
  it("is stored, answered 303 to the thank-you page, and mailed to the shop with Reply-To the sender", async () => {
    const { vendor, key, contactEmail } = await shop();
    const res = await postForm(vendor.id, {
      name: "Rita <b>Sousa</b>",
      email: "rita@example.test",
      phone: "",
      weddingDate: "2031-06-01",
      message: "Do you have\nsize 38?",
      url: "",
    });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`${t.url}/inquiry/${vendor.id}/thanks`);
    const [stored] = await inquiriesOf(key);
    expect(stored).toMatchObject({
      name: "Rita <b>Sousa</b>",
      phone: null,
      message: "Do you have\nsize 38?",
    });

    // To the shop's notification e-mail (the founding owner's sign-in e-mail until changed),
    // never the customer-facing contact e-mail (CONTRACT 12; test/dashboard/notification-email.test.ts).
    const [received] = await mail.sink.waitFor(vendor.email);
    expect(mail.sink.to(contactEmail as string)).toEqual([]);
    expect(received?.parsed.subject).toBe("New inquiry from Rita <b>Sousa</b>");
    expect(received?.parsed.replyTo?.value[0]?.address).toBe("rita@example.test");
    expect(received?.parsed.text).toContain("Do you have\nsize 38?");
    expect(received?.parsed.html).toContain("Rita &lt;b&gt;Sousa&lt;/b&gt;");
    expect(received?.parsed.html).not.toContain("<b>Sousa");
    expect(received?.parsed.html).toContain(`${t.url}/dashboard/inquiries/`);

    const thanks = await new Browser(t.url).get(`/inquiry/${vendor.id}/thanks`);
    expect(thanks.status).toBe(200);
    expect(thanks.text).toContain("Bella &lt;Bridal&gt;");
  });

  it("goes back to a return address on the shop's registered website, and never elsewhere", async () => {
    const { vendor } = await shop();
    const fields = { name: "Ana", email: "ana@example.test", message: "Hi" };
    const home = await postForm(vendor.id, { ...fields, _return: `${ORIGIN}/thank-you?from=form` });
    expect(home.headers.get("location")).toBe(`${ORIGIN}/thank-you?from=form`);
    for (const elsewhere of [
      "https://evil.example/",
      "//evil.example",
      `${ORIGIN}.evil.example/`,
      "javascript:alert(1)",
    ]) {
      const res = await postForm(vendor.id, { ...fields, _return: elsewhere });
      expect([res.status, res.headers.get("location")]).toEqual([
        303,
        `${t.url}/inquiry/${vendor.id}/thanks`,
      ]);
    }
  });

  it("a filled honeypot is answered alike, and nothing is stored or mailed", async () => {
    const { vendor, key, contactEmail } = await shop();
    const res = await postForm(vendor.id, {
      name: "Bot",
      email: "bot@example.test",
      message: "Cheap watches",
      url: "http://spam.example",
    });
    expect([res.status, res.headers.get("location")]).toEqual([303, `${t.url}/inquiry/${vendor.id}/thanks`]);
    expect(await inquiriesOf(key)).toHaveLength(0);
    const mails = await queryRows(
      t.database.db,
      sql`select 1 from mails where to_address in (${contactEmail}, ${vendor.email})`,
    );
    expect(mails).toHaveLength(0);
  });

  it("an invalid form names the field (400), and an unknown shop is 404", async () => {
    const { vendor } = await shop();
    const bad = await postForm(vendor.id, { name: "Ana", email: "not-an-address", message: "Hi" });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("email");
    const unknown = await postForm("tz4a98xxat96iws9zmbrgj3a", {
      name: "Ana",
      email: "a@example.test",
      message: "Hi",
    });
    expect(unknown.status).toBe(404);
  });

  it("a shop without a contact e-mail gets the mail at its notification e-mail, the sign-in e-mail by default", async () => {
    const { vendor } = await shop(null);
    await postForm(vendor.id, { name: "Ana", email: "ana@example.test", message: "Hi" });
    const [received] = await mail.sink.waitFor(vendor.email);
    expect(received?.parsed.subject).toBe("New inquiry from Ana");
  });
});

describe("the hosted page and Settings", () => {
  it("each shop has a hosted inquiry page whose form posts to the public endpoint with the honeypot", async () => {
    const { vendor } = await shop();
    const page = await new Browser(t.url).get(`/inquiry/${vendor.id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`action="/api/public/vendors/${vendor.id}/inquiries"`);
    expect(page.text).toContain('name="url"');
    expect((await new Browser(t.url).get("/inquiry/tz4a98xxat96iws9zmbrgj3a")).status).toBe(404);
  });

  it("Settings shows the shop's id, its page and a copyable embed snippet, and saves the website", async () => {
    const { vendor, browser } = await signedInVendor(t);
    const page = await browser.get("/dashboard/settings");
    expect(page.text).toContain(`<code id="shop-id">${vendor.id}</code>`);
    expect(page.text).toContain(`${t.url}/inquiry/${vendor.id}`);
    expect(page.text).toContain(`action=&quot;${t.url}/api/public/vendors/${vendor.id}/inquiries&quot;`);
    expect(page.text).toContain('data-copy-from="embed-snippet"');
    const saved = await browser.post("/dashboard/settings", {
      _csrf: csrfOf(page),
      name: "Bella",
      contactEmail: "",
      timeZone: "UTC",
      website: "https://www.bella.example/contact",
    });
    expect(saved.status).toBe(303);
    const after = await browser.get("/dashboard/settings");
    expect(after.text).toContain('value="https://www.bella.example"');
    expect(after.text).toContain("name=&quot;_return&quot; value=&quot;https://www.bella.example/&quot;");
  });
});
