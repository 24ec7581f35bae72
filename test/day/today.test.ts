// Today (issue 47): the landing page after sign-in lists the shop's day, each line linking to its
// action, in the member's language; owners alone see a failing integration; another shop's day
// never shows.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { postFrom, signedInBrowser } from "../helpers/dashboard.ts";
import { createKey, createMember, createVendor } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";
import { seedDay } from "./seed.ts";

const t = useTestApp();

async function shop(name = "Day Bridal") {
  const vendor = await createVendor(t.ctx, name);
  const key = await createKey(t.ctx, vendor.id);
  return { vendor, key };
}

const linksOf = (text: string) => [...text.matchAll(/href="([^"]+)"/g)].map((m) => m[1]);

describe("Today", () => {
  it("is where an owner lands after sign-in, first in the menu", async () => {
    const { vendor } = await shop();
    const browser = await signedInBrowser(t, vendor.email);
    const home = await browser.get("/dashboard");
    expect([home.status, home.location]).toEqual([303, "/dashboard/today"]);
    const page = await browser.get("/dashboard/today");
    expect(page.status).toBe(200);
    expect(page.text).toMatch(
      /<nav class="main"[^>]*>\s*<a href="\/dashboard\/today" aria-current="page">Today<\/a>/,
    );
    expect(page.text).toContain("Nothing today.");
  });

  it("lists the appointment, the at-risk order, the overdue rental, the pickup, the inquiry and the failing webhook, each a link to it", async () => {
    const { vendor, key } = await shop();
    const seeded = await seedDay(t, key, vendor.id);
    const other = await shop("Other Bridal");
    await seedDay(t, other.key, other.vendor.id, " Elsewhere");
    const browser = await signedInBrowser(t, vendor.email);
    const page = await browser.get("/dashboard/today");
    expect(page.status).toBe(200);
    const links = linksOf(page.text);
    expect(links).toContain(`/dashboard/appointments/${seeded.appointmentId}`);
    expect(links).toContain(`/dashboard/orders/${seeded.atRiskId}`);
    expect(links).toContain(`/dashboard/orders/${seeded.overdueId}`);
    expect(links).toContain(`/dashboard/orders/${seeded.pickupId}`);
    expect(links).toContain(`/dashboard/inquiries/${seeded.inquiryId}`);
    expect(links).toContain(`/dashboard/integrations/webhooks/${seeded.webhookId}`);
    for (const section of ["appointments", "atRisk", "overdue", "pickups", "inquiries", "integrations"]) {
      expect(page.text).toContain(`data-section="${section}"`);
    }
    expect(page.text).toContain("Clara Appointment");
    expect(page.text).toMatch(/not ready for fitting 56 days before/);
    expect(page.text).toMatch(/2 days overdue/);
    expect(page.text).not.toContain("Elsewhere");
  });

  it("shows staff the shop's day without the integrations", async () => {
    const { vendor, key } = await shop();
    const seeded = await seedDay(t, key, vendor.id);
    const staff = await createMember(t.ctx, vendor.id, {
      role: "staff",
      email: `staff-${vendor.id}@example.test`,
    });
    const browser = await signedInBrowser(t, staff.email);
    const page = await browser.get("/dashboard/today");
    expect(page.status).toBe(200);
    expect(linksOf(page.text)).toContain(`/dashboard/orders/${seeded.atRiskId}`);
    expect(page.text).not.toContain('data-section="integrations"');
    expect(page.text).not.toContain(seeded.webhookId);
  });

  it("speaks the member's language, else the shop's", async () => {
    const { vendor, key } = await shop();
    await seedDay(t, key, vendor.id);
    await t.ctx.db.execute(sql`update vendors set language = 'de' where id = ${vendor.id}`);
    const browser = await signedInBrowser(t, vendor.email);
    const de = await browser.get("/dashboard/today");
    expect(de.text).toContain('<html lang="de">');
    expect(de.text).toContain("Gefährdete Aufträge");
    expect(de.text).toContain("2 Tage überfällig");
    await t.ctx.db.execute(sql`update members set language = 'pl' where vendor_id = ${vendor.id}`);
    const pl = await browser.get("/dashboard/today");
    expect(pl.text).toContain("Zamówienia zagrożone");
    expect(pl.text).toContain("2 dni po terminie");
  });
});

describe("the order page's dates", () => {
  it("shows the order at risk and its rental dates, and saves new ones through the PATCH rules", async () => {
    const { vendor, key } = await shop();
    const seeded = await seedDay(t, key, vendor.id);
    const browser = await signedInBrowser(t, vendor.email);
    const risky = await browser.get(`/dashboard/orders/${seeded.atRiskId}`);
    expect(risky.text).toContain('data-status="AT_RISK"');
    expect(risky.text).toContain("not ready for fitting 56 days before");
    const rental = await browser.get(`/dashboard/orders/${seeded.overdueId}`);
    expect(rental.text).toContain('data-status="OVERDUE"');
    expect(rental.text).toContain('name="dueBackDate"');
    const refused = await postFrom(
      browser,
      `/dashboard/orders/${seeded.overdueId}`,
      `/dashboard/orders/${seeded.overdueId}/dates`,
      {
        dueDate: "",
        pickupDate: "2031-06-18",
        dueBackDate: "2031-06-01",
      },
    );
    expect(refused.status).toBe(303);
    const after = await t.api.get(`/api/vendor/orders/${seeded.overdueId}`, { key });
    expect(after.body.dueBackDate).not.toBe("2031-06-01");
    const saved = await postFrom(
      browser,
      `/dashboard/orders/${seeded.overdueId}`,
      `/dashboard/orders/${seeded.overdueId}/dates`,
      {
        dueDate: "",
        pickupDate: "2031-06-18",
        dueBackDate: "2031-06-22",
      },
    );
    expect(saved.status).toBe(303);
    const now = await t.api.get(`/api/vendor/orders/${seeded.overdueId}`, { key });
    expect(now.body).toMatchObject({ pickupDate: "2031-06-18", dueBackDate: "2031-06-22" });
    const page = await browser.get(`/dashboard/orders/${seeded.overdueId}`);
    expect(page.text).not.toContain('data-status="OVERDUE"');
  });
});
