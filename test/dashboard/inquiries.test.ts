import { describe, expect, it } from "vitest";
import { decodeEntities } from "../helpers/browser.ts";
import { signedInBrowser } from "../helpers/dashboard.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

async function vendorWithInquiries(count: number) {
  const { vendor } = await createVendorWithKey(t.ctx, "Inquiries Bridal");
  const ids: string[] = [];
  for (let i = 1; i <= count; i++) {
    const res = await t.api.post(`/api/public/vendors/${vendor.id}/inquiries`, {
      name: `Sender ${i}`,
      email: `sender${i}@example.test`,
      phone: "+44 20 7946 0000",
      weddingDate: "2028-09-09",
      message: `Hello number ${i}\nDo you have size 38?`,
    });
    expect(res.status).toBe(201);
    ids.push(res.body.id);
  }
  return { vendor, ids, browser: await signedInBrowser(t, vendor.email) };
}

const linked = (text: string) =>
  [...text.matchAll(/href="\/dashboard\/inquiries\/([a-z0-9]+)"/g)].map((m) => m[1]);

describe("dashboard inquiries pages", () => {
  it("an empty list says so", async () => {
    const { browser } = await vendorWithInquiries(0);
    const page = await browser.get("/dashboard/inquiries");
    expect(page.status).toBe(200);
    expect(page.text).toContain('class="empty"');
  });

  it("lists inquiries newest first and pages with the cursor", async () => {
    const { ids, browser } = await vendorWithInquiries(3);
    const first = await browser.get("/dashboard/inquiries?limit=2");
    expect(linked(first.text)).toEqual([ids[2], ids[1]]);
    expect(first.text).toContain("sender3@example.test");
    const next = decodeEntities(
      /href="(\/dashboard\/inquiries\?[^"]*cursor=[^"]+)"/.exec(first.text)?.[1] ?? "",
    );
    expect(linked((await browser.get(next)).text)).toEqual([ids[0]]);
  });

  it("the inquiry page shows the sender and the whole message", async () => {
    const { ids, browser } = await vendorWithInquiries(1);
    const page = await browser.get(`/dashboard/inquiries/${ids[0]}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain("Sender 1");
    expect(page.text).toContain('href="mailto:sender1@example.test"');
    expect(page.text).toContain("2028-09-09");
    expect(page.text).toContain("Hello number 1\nDo you have size 38?");
  });

  it("another vendor's inquiry is a 404 page", async () => {
    const owner = await vendorWithInquiries(1);
    const other = await vendorWithInquiries(0);
    const page = await other.browser.get(`/dashboard/inquiries/${owner.ids[0]}`);
    expect(page.status).toBe(404);
    expect(page.text).not.toContain("Sender 1");
    expect((await other.browser.get("/dashboard/inquiries/zzz")).status).toBe(404);
  });
});
