// Inquiries from another origin in a real browser (Debian's Chromium): a page served from a
// different origin (the shop's website, played by a local server) sends an inquiry with fetch
// and reads the answer (CORS), and the Settings snippet pasted into that page posts as a plain
// form and lands on the thank-you page. Both reach the shop by mail.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { embedSnippet } from "../../src/dashboard/inquiry-embed.ts";
import { updateShopSettings } from "../../src/modules/vendors/shop-settings.ts";
import { useChromium } from "../helpers/chromium.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useMailSender } from "../helpers/smtp.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp({ ownDatabase: true });
const mail = useMailSender(() => t);
const chromium = useChromium();
let site: http.Server;
let siteUrl: string;
let html = "";
beforeAll(async () => {
  if (!chromium.available) return;
  site = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(html);
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  // "localhost" is another origin than the API's 127.0.0.1.
  siteUrl = `http://localhost:${(site.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => site?.close(resolve));
});

it.skipIf(!chromium.available)("fetch from the shop's website reads the 201 across origins", async () => {
  const { vendor, key } = await createVendorWithKey(t.ctx, "Bella Bridal");
  html = "<!doctype html><title>Bella</title><p>Our shop</p>";
  const page = await chromium.browser.newPage();
  try {
    await page.goto(siteUrl);
    const answer = await page.evaluate(
      async ({ url }) => {
        const res = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ name: "Ana", email: "ana@example.test", message: "From your site" }),
        });
        return { status: res.status, body: await res.json() };
      },
      { url: `${t.url}/api/public/vendors/${vendor.id}/inquiries` },
    );
    expect(answer.status).toBe(201);
    expect(answer.body.id).toMatch(/^[a-z0-9]{24,32}$/);
    const list = await t.api.get("/api/vendor/inquiries", { key });
    expect(list.body.inquiries[0].message).toBe("From your site");
    await mail.sink.waitFor(vendor.email);
  } finally {
    await page.close();
  }
});

it.skipIf(!chromium.available)(
  "the Settings snippet posts as a plain form and returns to the shop's website",
  async () => {
    const { vendor } = await createVendorWithKey(t.ctx, "Noiva");
    await updateShopSettings(t.ctx, vendor.id, {
      name: "Noiva",
      contactEmail: null,
      timeZone: "UTC",
      website: siteUrl,
    });
    html = `<!doctype html><title>Contact</title>${embedSnippet(vendor.id, t.url, siteUrl)}`;
    const page = await chromium.browser.newPage();
    try {
      await page.goto(`${siteUrl}/contact`);
      await page.getByLabel("Name").fill("Rita");
      await page.getByLabel("E-mail").fill("rita@example.test");
      await page.getByLabel("Message").fill("A plain form");
      await page.getByRole("button", { name: "Send" }).click();
      await page.waitForURL(`${siteUrl}/`);
      const [received] = await mail.sink.waitFor(vendor.email);
      expect(received?.parsed.text).toContain("A plain form");
    } finally {
      await page.close();
    }
  },
);
