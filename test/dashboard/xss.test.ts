// Stored markup never runs: a script-and-onerror payload stored in every field the data pages and
// the tracking page render comes back escaped on every one of them.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { customers, orders } from "../../src/db/schema/index.ts";
import { Browser, type PageResponse } from "../helpers/browser.ts";
import { expectEscaped, signedInBrowser, submitForm, XSS } from "../helpers/dashboard.ts";
import { createKey, createVendor, createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

const ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;";
const count = (page: PageResponse) => page.text.split(ESCAPED).length - 1;

async function trackingToken(orderId: string): Promise<string> {
  const [row] = await t.ctx.db
    .select({ token: orders.trackingToken })
    .from(orders)
    .where(eq(orders.id, orderId));
  return row?.token as string;
}

describe("stored markup is escaped on every data page and on the tracking page", () => {
  it("order, customer, appointment and inquiry fields", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx, "Escaping Bridal");
    const order = await t.api.post(
      "/api/vendor/orders",
      {
        customerName: XSS,
        type: "BRIDAL_DRESS",
        model: XSS,
        description: XSS,
        color: XSS,
        specialRequests: XSS,
      },
      { key },
    );
    expect(order.status).toBe(201);
    const orderId = order.body.id as string;
    const customerId = order.body.customerId as string;
    const moved = await t.api.put(
      `/api/vendor/orders/${orderId}/status`,
      { status: "IN_PRODUCTION", message: XSS, imageUrl: "https://photos.example/a.jpg?q=%3Cscript%3E" },
      { key },
    );
    expect(moved.status).toBe(200);
    const patched = await t.api.patch(
      `/api/vendor/customers/${customerId}`,
      { notes: XSS, phone: XSS.slice(0, 50), measurements: { [XSS]: XSS } },
      { key },
    );
    expect(patched.status).toBe(200);
    // The API accepts no markup in an e-mail address; a stored one (e.g. imported before that
    // check) must still render escaped, so it is written straight to the row.
    await t.ctx.db.update(customers).set({ email: XSS }).where(eq(customers.id, customerId));
    const appt = await t.api.post(
      "/api/vendor/appointments",
      { customerId, type: "FITTING", date: "2030-01-01T10:00:00Z", notes: XSS },
      { key },
    );
    expect(appt.status).toBe(201);
    const inquiry = await t.api.post(`/api/public/vendors/${vendor.id}/inquiries`, {
      name: XSS,
      email: "xss@example.test",
      message: XSS,
    });
    expect(inquiry.status).toBe(201);

    const browser = await signedInBrowser(t, vendor.email);
    // Each page with the least number of escaped copies it must show (one per rendered field).
    const pages: Array<[string, number]> = [
      ["/dashboard/orders", 3], // model, customer name, customer e-mail
      [`/dashboard/orders/${orderId}`, 8], // title ×2, customer name, e-mail, description, color, requests, message
      ["/dashboard/customers", 2], // name, e-mail
      [`/dashboard/customers/${customerId}`, 6], // title ×2, e-mail, notes, order model, measurements ×2 in JSON
      [`/dashboard/customers/${customerId}/edit`, 5], // title ×2 … name, e-mail, notes
      ["/dashboard/appointments", 2], // customer name, notes
      [`/dashboard/appointments/${appt.body.id}`, 2], // customer name, notes
      ["/dashboard/inquiries", 2], // name, message
      [`/dashboard/inquiries/${inquiry.body.id}`, 4], // title ×2, name, message
    ];
    for (const [path, atLeast] of pages) {
      const page = await browser.get(path);
      expectEscaped(page);
      expect(count(page), path).toBeGreaterThanOrEqual(atLeast);
    }

    // The edit form re-rendered with errors echoes what was posted, escaped too.
    const form = await browser.get(`/dashboard/customers/${customerId}/edit`);
    const again = await submitForm(browser, form, `/dashboard/customers/${customerId}`, {
      name: XSS,
      email: XSS,
      notes: XSS,
      measurements: XSS,
      preferences: "",
      phone: "",
      weddingDate: "",
    });
    expect(again.status).toBe(400);
    expect(again.text).not.toContain("<script>alert(1)");
    expect(again.text).not.toContain("<img src=x");
    expect(count(again)).toBeGreaterThanOrEqual(4);

    const tracking = await new Browser(t.url).get(`/track/${await trackingToken(orderId)}`);
    expectEscaped(tracking);
    expect(count(tracking)).toBeGreaterThanOrEqual(2); // model (h1), message
    expect(tracking.text).toContain('src="https://photos.example/a.jpg?q=%3Cscript%3E"');
  });

  it("the vendor's name on the tracking page", async () => {
    const vendor = await createVendor(t.ctx, XSS);
    const key = await createKey(t.ctx, vendor.id);
    const order = await t.api.post("/api/vendor/orders", { customerName: "N", type: "SUIT" }, { key });
    const page = await new Browser(t.url).get(`/track/${await trackingToken(order.body.id)}`);
    expectEscaped(page);
    expect(count(page)).toBeGreaterThanOrEqual(2); // <title> and the page
  });
});
