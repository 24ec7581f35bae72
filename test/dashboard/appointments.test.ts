import { describe, expect, it } from "vitest";
import { decodeEntities, type PageResponse } from "../helpers/browser.ts";
import {
  confirmThrough,
  flashOf,
  follow,
  formFields,
  signedInBrowser,
  submitForm,
} from "../helpers/dashboard.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

async function vendorWithCustomer() {
  const { vendor, key } = await createVendorWithKey(t.ctx, "Appointments Bridal");
  const customer = await t.api.post("/api/vendor/customers", { name: "Clara Groom" }, { key });
  const browser = await signedInBrowser(t, vendor.email);
  const appointment = async (date: string, type = "FITTING", notes?: string) => {
    const res = await t.api.post(
      "/api/vendor/appointments",
      { customerId: customer.body.id, type, date, ...(notes ? { notes } : {}) },
      { key },
    );
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  return { vendor, key, customerId: customer.body.id as string, browser, appointment };
}

const statusOf = async (key: string, id: string) =>
  (await t.api.get(`/api/vendor/appointments/${id}`, { key })).body.status as string;

/** The buttons shown in an appointment's row of the list. */
function buttonsFor(page: PageResponse, id: string): string[] {
  const row = page.text.split(`<tr data-id="${id}">`)[1]?.split("</tr>")[0] ?? "";
  const buttons = [...row.matchAll(/<button type="submit" name="status" value="([A-Z]+)"/g)].map(
    (m) => m[1] as string,
  );
  // Cancelling is final: a link to its confirmation page, not a button that acts.
  return row.includes(`href="/dashboard/appointments/${id}/cancel"`) ? [...buttons, "CANCELLED"] : buttons;
}

describe("dashboard appointments pages", () => {
  it("lists upcoming appointments only, earliest first, with customer, type, time (in the reader's language, shop's zone) and status", async () => {
    const { browser, appointment } = await vendorWithCustomer();
    const empty = await browser.get("/dashboard/appointments");
    expect(empty.text).toContain("No upcoming appointments.");
    const past = await appointment("2020-01-01T10:00:00Z");
    const later = await appointment("2031-05-01T09:30:00+02:00", "PICKUP");
    const sooner = await appointment("2030-05-01T10:00:00Z", "CONSULTATION");
    const page = await browser.get("/dashboard/appointments");
    expect(page.status).toBe(200);
    const rows = [...page.text.matchAll(/<tr data-id="([a-z0-9]+)">/g)].map((m) => m[1]);
    expect(rows).toEqual([sooner, later]);
    expect(rows).not.toContain(past);
    expect(page.text).toContain("Clara Groom");
    expect(page.text).toContain("Consultation");
    expect(page.text).toContain('<time datetime="2031-05-01T07:30:00.000Z">May 1, 2031, 07:30 AM UTC</time>');
    expect(page.text).toContain('data-status="PROPOSED"');
  });

  it("pages with the cursor", async () => {
    const { browser, appointment } = await vendorWithCustomer();
    const ids = [
      await appointment("2030-01-01T10:00:00Z"),
      await appointment("2030-01-02T10:00:00Z"),
      await appointment("2030-01-03T10:00:00Z"),
    ];
    const rows = (p: PageResponse) => [...p.text.matchAll(/<tr data-id="([a-z0-9]+)">/g)].map((m) => m[1]);
    const first = await browser.get("/dashboard/appointments?limit=2");
    expect(rows(first)).toEqual([ids[0], ids[1]]);
    const next = decodeEntities(
      /href="(\/dashboard\/appointments\?[^"]*cursor=[^"]+)"/.exec(first.text)?.[1] ?? "",
    );
    expect(rows(await browser.get(next))).toEqual([ids[2]]);
  });

  it("shows Confirm / Complete / Cancel only where the transition table allows them, and each works with a flash", async () => {
    const { key, browser, appointment } = await vendorWithCustomer();
    const a = await appointment("2030-02-01T10:00:00Z");
    const b = await appointment("2030-02-02T10:00:00Z");
    let page = await browser.get("/dashboard/appointments");
    expect(buttonsFor(page, a)).toEqual(["CONFIRMED", "CANCELLED"]);
    const action = `/dashboard/appointments/${a}/status`;

    page = await follow(browser, await submitForm(browser, page, action, { status: "CONFIRMED" }));
    // The shop mails no customer (its default): the owner is told the customer was not.
    const notTold = "The customer was not told: e-mail to customers is off in Settings.";
    expect(flashOf(page)).toEqual({ kind: "success", text: `Appointment confirmed. ${notTold}` });
    expect(await statusOf(key, a)).toBe("CONFIRMED");
    expect(buttonsFor(page, a)).toEqual(["COMPLETED", "CANCELLED"]);

    page = await follow(browser, await submitForm(browser, page, action, { status: "COMPLETED" }));
    expect(flashOf(page)).toEqual({ kind: "success", text: "Appointment completed." });
    expect(await statusOf(key, a)).toBe("COMPLETED");
    expect(buttonsFor(page, a)).toEqual([]);

    // The old one-click form (a page still open) only leads to the confirmation.
    const oneClick = await submitForm(browser, page, `/dashboard/appointments/${b}/status`, {
      status: "CANCELLED",
    });
    expect(oneClick.location).toBe(`/dashboard/appointments/${b}/cancel`);
    expect(await statusOf(key, b)).toBe("PROPOSED");
    page = await follow(browser, await confirmThrough(browser, `/dashboard/appointments/${b}/cancel`));
    expect(flashOf(page)).toEqual({ kind: "success", text: `Appointment cancelled. ${notTold}` });
    expect(await statusOf(key, b)).toBe("CANCELLED");
  });

  it("a refused transition or an unknown action shows an error flash, not a 500, and changes nothing", async () => {
    const { key, browser, appointment } = await vendorWithCustomer();
    const a = await appointment("2030-03-01T10:00:00Z");
    const page = await browser.get("/dashboard/appointments");
    const action = `/dashboard/appointments/${a}/status`;
    const refused = await follow(browser, await submitForm(browser, page, action, { status: "COMPLETED" }));
    expect(flashOf(refused)?.kind).toBe("error");
    expect(flashOf(refused)?.text).toContain("cannot move from PROPOSED to COMPLETED");
    const unknown = await follow(browser, await submitForm(browser, refused, action, { status: "PROPOSED" }));
    expect(flashOf(unknown)?.kind).toBe("error");
    expect(await statusOf(key, a)).toBe("PROPOSED");
  });

  it("the appointment page shows its notes and buttons, and an action there returns to it", async () => {
    const { browser, appointment } = await vendorWithCustomer();
    const a = await appointment("2030-04-01T10:00:00Z", "FITTING", "Bring the shoes");
    const page = await browser.get(`/dashboard/appointments/${a}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain("Bring the shoes");
    const res = await submitForm(browser, page, `/dashboard/appointments/${a}/status`, {
      status: "CONFIRMED",
    });
    expect(res.location).toBe(`/dashboard/appointments/${a}`);
    // Only our own pages are accepted as the place to return to.
    const evil = await submitForm(browser, page, `/dashboard/appointments/${a}/status`, {
      status: "COMPLETED",
      back: "https://evil.example/",
    });
    expect(evil.location).toBe("/dashboard/appointments");
  });

  it("another vendor's appointment is a 404 page, to view and to change, and nothing changes", async () => {
    const owner = await vendorWithCustomer();
    const other = await vendorWithCustomer();
    const theirs = await owner.appointment("2030-05-01T10:00:00Z");
    const mine = await other.appointment("2030-05-01T10:00:00Z");
    expect((await other.browser.get(`/dashboard/appointments/${theirs}`)).status).toBe(404);
    const page = await other.browser.get("/dashboard/appointments");
    const res = await other.browser.post(`/dashboard/appointments/${theirs}/status`, {
      ...formFields(page, `/dashboard/appointments/${mine}/status`),
      status: "CONFIRMED",
    });
    expect(res.status).toBe(404);
    expect(await statusOf(owner.key, theirs)).toBe("PROPOSED");
  });

  it("the action form refuses a missing or wrong CSRF token with 403 and changes nothing", async () => {
    const { key, browser, appointment } = await vendorWithCustomer();
    const a = await appointment("2030-06-01T10:00:00Z");
    await browser.get("/dashboard/appointments");
    const action = `/dashboard/appointments/${a}/status`;
    expect((await browser.post(action, { status: "CONFIRMED" })).status).toBe(403);
    expect((await browser.post(action, { status: "CONFIRMED", _csrf: "wrong" })).status).toBe(403);
    expect(await statusOf(key, a)).toBe("PROPOSED");
  });
});
