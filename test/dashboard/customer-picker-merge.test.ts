// The dashboard's side of CONTRACT 12: the New order page's customer picker (works without
// JavaScript: a search form and a select), the customer page's "New order", order numbers on the
// order pages, and the page of likely duplicates with its confirmed, owner-only merge.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { confirmThrough, filledForm, flashOf, follow, signedInBrowser } from "../helpers/dashboard.ts";
import { createMember, createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

async function germanShopSignedIn() {
  const { vendor, key } = await createVendorWithKey(t.ctx, "Picker Bridal");
  await t.ctx.db.execute(sql`update vendors set time_zone = 'Europe/Berlin' where id = ${vendor.id}`);
  return { vendor, key, browser: await signedInBrowser(t, vendor.email) };
}

describe("the New order page's customer picker", () => {
  it("finds a customer by her number as typed, phone first, and the order is hers: no second customer", async () => {
    const { key, browser } = await germanShopSignedIn();
    const clara = await t.api.post(
      "/api/vendor/customers",
      { name: "Clara Weiß", email: "clara@example.com", phone: "+49 170 1234567" },
      { key },
    );
    await t.api.post("/api/vendor/customers", { name: "Someone 0170", phone: "+49 89 555" }, { key });
    const page = await browser.get("/dashboard/orders/new?find=0170%20123");
    expect(page.status).toBe(200);
    const options = [...page.text.matchAll(/<option value="([a-z0-9]+)"( selected)?>([^<]*)<\/option>/g)];
    expect(options.map((m) => m[1])[0]).toBe(clara.body.id);
    expect(options[0]?.[3]).toMatch(/^\+49 170 1234567 · Clara Weiß/);
    const form = filledForm(page, "/dashboard/orders");
    const created = await follow(
      browser,
      await browser.post("/dashboard/orders", {
        ...form,
        customerId: clara.body.id,
        type: "SUIT",
        model: "Navy",
      }),
    );
    expect(created.text).toContain("Order #1001 — Navy");
    const customers = (await t.api.get("/api/vendor/customers", { key })).body.customers;
    expect(customers).toHaveLength(2);
    const orders = (await t.api.get("/api/vendor/orders", { key })).body.orders;
    expect(orders.map((o: { customerId: string }) => o.customerId)).toEqual([clara.body.id]);
  });

  it("the JSON behind search-as-you-type answers the same customers, and only the shop's", async () => {
    const { key, browser } = await germanShopSignedIn();
    const other = await createVendorWithKey(t.ctx);
    await t.api.post(
      "/api/vendor/customers",
      { name: "Clara Other", phone: "+49 170 1234567" },
      { key: other.key },
    );
    const clara = await t.api.post(
      "/api/vendor/customers",
      { name: "Clara", phone: "+49 170 1234567" },
      { key },
    );
    const answer = await browser.get("/dashboard/customers/pick?q=%2B49%20170%201234567");
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({
      customers: [{ id: clara.body.id, label: "+49 170 1234567 · Clara" }],
    });
  });

  it("the customer page's New order preselects her, and a new customer can still be typed in", async () => {
    const { key, browser } = await germanShopSignedIn();
    const clara = await t.api.post("/api/vendor/customers", { name: "Clara" }, { key });
    const customerPage = await browser.get(`/dashboard/customers/${clara.body.id}`);
    expect(customerPage.text).toContain(`href="/dashboard/orders/new?customerId=${clara.body.id}"`);
    const page = await browser.get(`/dashboard/orders/new?customerId=${clara.body.id}`);
    expect(page.text).toContain(`<option value="${clara.body.id}" selected>Clara</option>`);
    expect(filledForm(page, "/dashboard/orders").customerId).toEqual([clara.body.id]);
    const fresh = await browser.get("/dashboard/orders/new");
    const form = filledForm(fresh, "/dashboard/orders");
    expect(form.customerId).toEqual([""]);
    const made = await follow(
      browser,
      await browser.post("/dashboard/orders", { ...form, customerName: "Dora New", type: "SUIT" }),
    );
    expect(made.text).toContain("Order #1001");
    const nameless = await browser.post("/dashboard/orders", { ...form, type: "SUIT" });
    expect(nameless.status).toBe(400);
    expect(nameless.text).toContain("required unless");
  });

  it("order numbers are in the list and can be searched for", async () => {
    const { key, browser } = await germanShopSignedIn();
    for (const model of ["One", "Two"])
      await t.api.post("/api/vendor/orders", { customerName: "P", type: "SUIT", model }, { key });
    const list = await browser.get("/dashboard/orders");
    expect(list.text).toContain("#1001 One");
    expect(list.text).toContain("#1002 Two");
    const found = await browser.get("/dashboard/orders?q=%231002");
    expect(found.text).toContain("#1002 Two");
    expect(found.text).not.toContain("#1001 One");
  });
});

describe("likely duplicates and their merge", () => {
  it("lists pairs with the same phone or name; the owner merges one after a confirmation", async () => {
    const { vendor, key, browser } = await germanShopSignedIn();
    const kept = await t.api.post(
      "/api/vendor/customers",
      { name: "Clara Weiß", phone: "+49 170 1234567" },
      { key },
    );
    const dup = await t.api.post(
      "/api/vendor/customers",
      { name: "C. Weiss", email: "clara@example.com", phone: "0170 1234567" },
      { key },
    );
    await t.api.post("/api/vendor/orders", { customerId: dup.body.id, type: "SUIT" }, { key });
    await t.api.post("/api/vendor/customers", { name: "Unrelated", phone: "+49 89 1" }, { key });
    const page = await browser.get("/dashboard/customers/duplicates");
    expect(page.status).toBe(200);
    expect(page.text).toContain(`data-pair="${kept.body.id} ${dup.body.id}"`);
    expect(page.text).toContain("Same phone");
    expect(page.text).not.toContain("Unrelated");
    const action = `/dashboard/customers/${kept.body.id}/merge/${dup.body.id}`;
    expect(page.text).toContain(`href="${action}"`);
    // The confirmation page changes nothing.
    expect((await browser.get(action)).text).toContain("Merge C. Weiss into Clara Weiß?");
    expect((await t.api.get(`/api/vendor/customers/${dup.body.id}`, { key })).status).toBe(200);
    const done = await follow(browser, await confirmThrough(browser, action));
    expect(flashOf(done)?.text).toContain("Merged into Clara Weiß");
    const after = (await t.api.get(`/api/vendor/customers/${kept.body.id}`, { key })).body;
    expect(after).toMatchObject({ email: "clara@example.com", counts: { orders: 1 } });
    expect((await t.api.get(`/api/vendor/customers/${dup.body.id}`, { key })).status).toBe(404);
    const empty = await browser.get("/dashboard/customers/duplicates");
    expect(empty.text).toContain("No likely duplicates");
    expect(vendor.id).toBeTruthy();
  });

  it("staff see the pairs but cannot merge (the confirmation and the action are refused)", async () => {
    const { vendor, key } = await germanShopSignedIn();
    const a = await t.api.post("/api/vendor/customers", { name: "Same Name" }, { key });
    const b = await t.api.post("/api/vendor/customers", { name: "same name " }, { key });
    const staff = await createMember(t.ctx, vendor.id);
    const browser = await signedInBrowser(t, staff.email);
    const page = await browser.get("/dashboard/customers/duplicates");
    expect(page.text).toContain("Same name");
    expect(page.text).toContain("Only the shop&#39;s owner can merge.");
    const action = `/dashboard/customers/${a.body.id}/merge/${b.body.id}`;
    expect(page.text).not.toContain(`href="${action}"`);
    expect((await browser.get(action)).status).toBe(403);
    expect((await t.api.get(`/api/vendor/customers/${b.body.id}`, { key })).status).toBe(200);
  });
});
