import { describe, expect, it } from "vitest";
import { Browser } from "../helpers/browser.ts";
import { flashOf, follow, formFields, signedInBrowser, submitForm } from "../helpers/dashboard.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

async function vendorWithOrder(type = "BRIDAL_DRESS") {
  const { vendor, key } = await createVendorWithKey(t.ctx, "Orders Bridal");
  const res = await t.api.post(
    "/api/vendor/orders",
    { customerName: "Ada Bride", customerEmail: "ada@example.test", type, model: "Aurora" },
    { key },
  );
  expect(res.status).toBe(201);
  const browser = await signedInBrowser(t, vendor.email);
  return { vendor, key, orderId: res.body.id as string, browser };
}

const orderOf = async (key: string, id: string) =>
  (await t.api.get(`/api/vendor/orders/${id}`, { key })).body as { status: string; updates: unknown[] };

describe("dashboard orders pages", () => {
  it("a visitor without a session is sent to sign in and back", async () => {
    const res = await new Browser(t.url).get("/dashboard/orders");
    expect(res.status).toBe(303);
    expect(res.location).toBe("/login?return_to=%2Fdashboard%2Forders");
  });

  it("the list shows the order with its customer and status badge; an empty list says so", async () => {
    const { orderId, browser } = await vendorWithOrder();
    const page = await browser.get("/dashboard/orders");
    expect(page.status).toBe(200);
    expect(page.text).toContain(`href="/dashboard/orders/${orderId}"`);
    expect(page.text).toContain("Ada Bride");
    expect(page.text).toContain('data-status="ORDERED"');

    const { vendor } = await createVendorWithKey(t.ctx);
    const empty = await (await signedInBrowser(t, vendor.email)).get("/dashboard/orders");
    expect(empty.status).toBe(200);
    expect(empty.text).toContain('class="empty"');
    expect(empty.text).toContain("No orders yet");
  });

  it("the list pages with the cursor, most recently updated first; a bad cursor is a 400 page", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx);
    const ids: string[] = [];
    for (const model of ["First", "Second", "Third"]) {
      const res = await t.api.post("/api/vendor/orders", { customerName: "P", type: "SUIT", model }, { key });
      ids.push(res.body.id);
    }
    const browser = await signedInBrowser(t, vendor.email);
    const linked = (text: string) =>
      [...text.matchAll(/href="\/dashboard\/orders\/([a-z0-9]{20,})"/g)].map((m) => m[1]);
    const first = await browser.get("/dashboard/orders?limit=2");
    expect(linked(first.text)).toEqual([ids[2], ids[1]]);
    const next = /href="(\/dashboard\/orders\?[^"]*cursor=[^"]+)"/.exec(first.text)?.[1];
    expect(next).toBeDefined();
    const second = await browser.get((next as string).replace(/&amp;/g, "&"));
    expect(second.status).toBe(200);
    expect(linked(second.text)).toEqual([ids[0]]);
    expect(second.text).not.toContain("Next page");
    const bad = await browser.get("/dashboard/orders?cursor=garbage");
    expect(bad.status).toBe(400);
    expect(bad.headers.get("content-type")).toContain("text/html");
  });

  it("the order page shows the timeline, the tracking link and only the statuses the workflow allows", async () => {
    const { orderId, browser } = await vendorWithOrder("SUIT");
    const page = await browser.get(`/dashboard/orders/${orderId}`);
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/<ol class="timeline"><li data-status="ORDERED">/);
    expect(page.text).toContain("Order created");
    expect(page.text).toMatch(/value="http:\/\/127\.0\.0\.1:\d+\/track\/[A-Za-z0-9_-]{43}"/);
    const options = [...page.text.matchAll(/<option value="([A-Z_]+)">/g)].map((m) => m[1]);
    expect(options).toEqual(["IN_PRODUCTION", "FITTING_READY", "READY_FOR_PICKUP", "CANCELLED", "ORDERED"]);
  });

  it("the status form moves the order, records message and photo, and shows a success flash", async () => {
    const { key, orderId, browser } = await vendorWithOrder();
    const page = await browser.get(`/dashboard/orders/${orderId}`);
    const res = await submitForm(browser, page, `/dashboard/orders/${orderId}/status`, {
      status: "IN_PRODUCTION",
      message: "Cutting the fabric",
      imageUrl: "https://photos.example/cut.jpg",
    });
    expect(res.location).toBe(`/dashboard/orders/${orderId}`);
    const after = await follow(browser, res);
    expect(flashOf(after)).toEqual({ kind: "success", text: "Status set to In production." });
    expect(after.text).toContain("Cutting the fabric");
    expect(after.text).toContain('<img src="https://photos.example/cut.jpg"');
    expect(after.text).toContain('<a href="https://photos.example/cut.jpg"');
    const order = await orderOf(key, orderId);
    expect(order.status).toBe("IN_PRODUCTION");
    expect(order.updates.at(-1)).toMatchObject({
      message: "Cutting the fabric",
      imageUrl: "https://photos.example/cut.jpg",
    });
  });

  it("a refused transition, an invalid image URL or an unknown status shows an error flash, not a 500, and changes nothing", async () => {
    const { key, orderId, browser } = await vendorWithOrder();
    const page = await browser.get(`/dashboard/orders/${orderId}`);
    const action = `/dashboard/orders/${orderId}/status`;
    const shown = await follow(browser, await submitForm(browser, page, action, { status: "COMPLETED" }));
    expect(flashOf(shown)?.kind).toBe("error");
    expect(flashOf(shown)?.text).toContain("cannot move from Ordered to Completed");
    const shown2 = await follow(
      browser,
      await submitForm(browser, shown, action, { status: "IN_PRODUCTION", imageUrl: "javascript:alert(1)" }),
    );
    expect(flashOf(shown2)?.kind).toBe("error");
    expect(flashOf(shown2)?.text).toContain("Image URL");
    const shown3 = await follow(browser, await submitForm(browser, shown2, action, { status: "NOPE" }));
    expect(flashOf(shown3)?.kind).toBe("error");
    const order = await orderOf(key, orderId);
    expect(order.status).toBe("ORDERED");
    expect(order.updates).toHaveLength(1);
  });

  it("a final order offers no status form", async () => {
    const { key, orderId, browser } = await vendorWithOrder();
    await t.api.put(`/api/vendor/orders/${orderId}/status`, { status: "CANCELLED" }, { key });
    const page = await browser.get(`/dashboard/orders/${orderId}`);
    expect(page.text).toContain("is final");
    expect(page.text).not.toContain(`action="/dashboard/orders/${orderId}/status"`);
  });

  it("another vendor's order is a 404 page, to view and to update, and nothing changes", async () => {
    const owner = await vendorWithOrder();
    const other = await vendorWithOrder();
    const page = await other.browser.get(`/dashboard/orders/${owner.orderId}`);
    expect(page.status).toBe(404);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect((await other.browser.get("/dashboard/orders/not-an-id")).status).toBe(404);
    const own = await other.browser.get(`/dashboard/orders/${other.orderId}`);
    const res = await other.browser.post(`/dashboard/orders/${owner.orderId}/status`, {
      ...formFields(own, `/dashboard/orders/${other.orderId}/status`),
      status: "IN_PRODUCTION",
    });
    expect(res.status).toBe(404);
    expect((await orderOf(owner.key, owner.orderId)).status).toBe("ORDERED");
  });

  it("the status form refuses a missing or wrong CSRF token with 403 and changes nothing", async () => {
    const { key, orderId, browser } = await vendorWithOrder();
    await browser.get(`/dashboard/orders/${orderId}`);
    const action = `/dashboard/orders/${orderId}/status`;
    expect((await browser.post(action, { status: "IN_PRODUCTION" })).status).toBe(403);
    expect((await browser.post(action, { status: "IN_PRODUCTION", _csrf: "wrong" })).status).toBe(403);
    // A real token, but another browser's: it does not match this browser's secret.
    const another = (await vendorWithOrder()).browser;
    const foreign = formFields(await another.get("/dashboard/orders"), "/logout")._csrf as string;
    expect((await browser.post(action, { status: "IN_PRODUCTION", _csrf: foreign })).status).toBe(403);
    expect((await orderOf(key, orderId)).status).toBe("ORDERED");
  });
});
