import { describe, expect, it } from "vitest";
import { decodeEntities } from "../helpers/browser.ts";
import {
  filledForm,
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
  const { vendor, key } = await createVendorWithKey(t.ctx, "Customers Bridal");
  const res = await t.api.post(
    "/api/vendor/customers",
    {
      name: "Beatrice Bride",
      email: "bea@example.test",
      phone: "+31 6 1234",
      weddingDate: "2027-06-12",
      notes: "Prefers mornings",
      measurements: { bust: 86, waist: 66 },
    },
    { key },
  );
  expect(res.status).toBe(201);
  const browser = await signedInBrowser(t, vendor.email);
  return { vendor, key, customerId: res.body.id as string, browser };
}

const customerOf = async (key: string, id: string) =>
  (await t.api.get(`/api/vendor/customers/${id}`, { key })).body;
const validForm = {
  name: "Beatrice B.",
  email: "bea.b@example.test",
  phone: "",
  weddingDate: "2027-07-01",
  notes: "Line one\nLine two",
  "measurements.name": ["bust", "", ""],
  "measurements.value": ["87", "", ""],
  "preferences.name": ["", "", ""],
  "preferences.value": ["", "", ""],
};

describe("dashboard customers pages", () => {
  it("the list shows customers newest first, filters by e-mail, pages with the cursor, and says when it is empty", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx);
    const browser = await signedInBrowser(t, vendor.email);
    const empty = await browser.get("/dashboard/customers");
    expect(empty.text).toContain('class="empty"');
    const ids: string[] = [];
    for (const n of [1, 2, 3]) {
      const res = await t.api.post(
        "/api/vendor/customers",
        { name: `C${n}`, email: `c${n}@example.test` },
        { key },
      );
      ids.push(res.body.id);
    }
    const linked = (text: string) =>
      [...text.matchAll(/href="\/dashboard\/customers\/([a-z0-9]{20,})"/g)].map((m) => m[1]);
    const first = await browser.get("/dashboard/customers?limit=2");
    expect(linked(first.text)).toEqual([ids[2], ids[1]]);
    const next = decodeEntities(
      /href="(\/dashboard\/customers\?[^"]*cursor=[^"]+)"/.exec(first.text)?.[1] ?? "",
    );
    expect(linked((await browser.get(next)).text)).toEqual([ids[0]]);
    const filtered = await browser.get("/dashboard/customers?email=C2%40EXAMPLE.test");
    expect(linked(filtered.text)).toEqual([ids[1]]);
    const none = await browser.get("/dashboard/customers?email=nobody%40example.test");
    expect(none.text).toContain("No customer has this e-mail address.");
  });

  it("the customer page shows details, formatted measurements, and their orders and appointments with counts", async () => {
    const { key, customerId, browser } = await vendorWithCustomer();
    const order = await t.api.post(
      "/api/vendor/orders",
      {
        customerName: "Beatrice Bride",
        customerEmail: "bea@example.test",
        type: "BRIDAL_DRESS",
        model: "Luna",
      },
      { key },
    );
    expect(order.body.customerId).toBe(customerId);
    const appt = await t.api.post(
      "/api/vendor/appointments",
      { customerId, type: "FITTING", date: "2030-01-02T10:00:00Z" },
      { key },
    );
    expect(appt.status).toBe(201);
    const page = await browser.get(`/dashboard/customers/${customerId}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain("Beatrice Bride");
    expect(page.text).toContain("Prefers mornings");
    expect(page.text).toContain(
      '<h2>Measurements</h2><dl class="facts"><dt>bust</dt><dd>86</dd><dt>waist</dt><dd>66</dd></dl>',
    );
    expect(page.text).toContain("Orders (1)");
    expect(page.text).toContain(`href="/dashboard/orders/${order.body.id}"`);
    expect(page.text).toContain("Appointments (1)");
    expect(page.text).toContain(`href="/dashboard/appointments/${appt.body.id}"`);
    expect(page.text).toContain('<time datetime="2030-01-02T10:00:00.000Z">Jan 2, 2030, 10:00 AM UTC</time>');
  });

  it("the edit form saves the customer and shows a success flash", async () => {
    const { key, customerId, browser } = await vendorWithCustomer();
    const form = await browser.get(`/dashboard/customers/${customerId}/edit`);
    expect(form.status).toBe(200);
    expect(form.text).toContain('value="Beatrice Bride"');
    const res = await submitForm(browser, form, `/dashboard/customers/${customerId}`, validForm);
    expect(res.location).toBe(`/dashboard/customers/${customerId}`);
    const page = await follow(browser, res);
    expect(flashOf(page)).toEqual({ kind: "success", text: "Customer saved." });
    const saved = await customerOf(key, customerId);
    expect(saved).toMatchObject({
      name: "Beatrice B.",
      email: "bea.b@example.test",
      phone: null,
      weddingDate: "2027-07-01",
      notes: "Line one\nLine two",
      measurements: { bust: 87 },
      preferences: null,
    });
  });

  it("a taken e-mail, an invalid date or a bad row re-renders the form with the message, and nothing changes", async () => {
    const { key, customerId, browser } = await vendorWithCustomer();
    await t.api.post("/api/vendor/customers", { name: "Other", email: "taken@example.test" }, { key });
    const action = `/dashboard/customers/${customerId}`;
    const form = await browser.get(`${action}/edit`);
    const taken = await submitForm(browser, form, action, { ...validForm, email: "TAKEN@example.test" });
    expect(taken.status).toBe(409);
    expect(flashOf(taken)?.kind).toBe("error");
    expect(taken.text).toContain(
      '<p class="field-error" id="email-error">is already used by another customer</p>',
    );
    expect(taken.text).toContain('value="TAKEN@example.test"');
    const invalid = await submitForm(browser, taken, action, {
      ...validForm,
      name: " ",
      weddingDate: "2027-13-45",
      "measurements.name": ["bust", "bust"],
      "measurements.value": ["1", "2"],
      "preferences.name": [""],
      "preferences.value": ["lace"],
    });
    expect(invalid.status).toBe(400);
    expect(invalid.text).toContain('id="weddingDate-error"');
    expect(invalid.text).toContain('id="name-error"');
    expect(invalid.text).toContain(
      '<p class="field-error" id="measurements-error">row 2: “bust” is already used above</p>',
    );
    expect(invalid.text).toContain('id="preferences-error">row 1 has a value but no name');
    // What was typed is shown again, row by row.
    expect(filledForm(invalid, action)).toMatchObject({
      "measurements.name": ["bust", "bust"],
      "measurements.value": ["1", "2"],
      "preferences.value": ["lace"],
    });
    const unchanged = await customerOf(key, customerId);
    expect(unchanged).toMatchObject({
      name: "Beatrice Bride",
      email: "bea@example.test",
      measurements: { bust: 86, waist: 66 },
    });
  });

  it("another vendor's customer is a 404 page, to view, to edit and to save, and nothing changes", async () => {
    const owner = await vendorWithCustomer();
    const other = await vendorWithCustomer();
    for (const path of [
      `/dashboard/customers/${owner.customerId}`,
      `/dashboard/customers/${owner.customerId}/edit`,
    ]) {
      expect((await other.browser.get(path)).status, path).toBe(404);
    }
    const own = await other.browser.get(`/dashboard/customers/${other.customerId}/edit`);
    const res = await other.browser.post(`/dashboard/customers/${owner.customerId}`, {
      ...formFields(own, `/dashboard/customers/${other.customerId}`),
      ...validForm,
    });
    expect(res.status).toBe(404);
    expect((await customerOf(owner.key, owner.customerId)).name).toBe("Beatrice Bride");
  });

  it("the edit form refuses a missing or wrong CSRF token with 403 and changes nothing", async () => {
    const { key, customerId, browser } = await vendorWithCustomer();
    await browser.get(`/dashboard/customers/${customerId}/edit`);
    const action = `/dashboard/customers/${customerId}`;
    expect((await browser.post(action, validForm)).status).toBe(403);
    expect((await browser.post(action, { ...validForm, _csrf: "wrong" })).status).toBe(403);
    expect((await customerOf(key, customerId)).name).toBe("Beatrice Bride");
  });

  it("measurements and preferences are labelled rows: the customer's own plus empty ones, saved as the API's objects", async () => {
    const { key, customerId, browser } = await vendorWithCustomer();
    const action = `/dashboard/customers/${customerId}`;
    const form = await browser.get(`${action}/edit`);
    expect(form.text).toContain("<legend>Measurements</legend>");
    expect(form.text).toContain('aria-label="Measurement 1 name"');
    const shown = filledForm(form, action);
    expect(shown["measurements.name"]).toEqual(["bust", "waist", "", "", ""]);
    expect(shown["measurements.value"]).toEqual(["86", "66", "", "", ""]);
    expect(shown["preferences.name"]).toEqual(["", "", ""]);
    // Change a value, clear a row, fill an empty one; a number stays a number, text stays text.
    const res = await browser.post(action, {
      ...shown,
      "measurements.name": ["bust", "", "hips", "", ""],
      "measurements.value": ["88.5", "", "92", "", ""],
      "preferences.name": ["neckline", "fabric", ""],
      "preferences.value": ["V", "lace, ivory", ""],
    });
    expect(res.status, res.text.slice(0, 300)).toBe(303);
    expect(await customerOf(key, customerId)).toMatchObject({
      measurements: { bust: 88.5, hips: 92 },
      preferences: { neckline: "V", fabric: "lace, ivory" },
    });
    // Every row emptied: the object is cleared (null), as the API's null does.
    await browser.post(action, {
      ...filledForm(await browser.get(`${action}/edit`), action),
      "preferences.name": ["", ""],
      "preferences.value": ["", ""],
    });
    expect((await customerOf(key, customerId)).preferences).toBeNull();
  });

  it("a nested value set through the API survives an unchanged save from the form", async () => {
    const { key, customerId, browser } = await vendorWithCustomer();
    const nested = {
      bust: 86,
      sleeve: { left: 60, right: 61 },
      tags: ["petite"],
      petite: true,
      note: "left arm",
    };
    await t.api.patch(`/api/vendor/customers/${customerId}`, { measurements: nested }, { key });
    const action = `/dashboard/customers/${customerId}`;
    const form = await browser.get(`${action}/edit`);
    const res = await browser.post(action, filledForm(form, action));
    expect(res.status).toBe(303);
    expect((await customerOf(key, customerId)).measurements).toEqual(nested);
  });

  it("“Add rows” shows the form again with more empty rows and what was typed, and saves nothing", async () => {
    const { key, customerId, browser } = await vendorWithCustomer();
    const action = `/dashboard/customers/${customerId}`;
    const form = await browser.get(`${action}/edit`);
    expect(form.text).toContain(
      '<button type="submit" name="addRows" value="measurements" formnovalidate>Add rows</button>',
    );
    // Enter in a field presses the form's first submit button: Save, never "Add rows".
    const firstButton =
      /<form method="post" action="[^"]*" class="customer-form">[\s\S]*?<button ([^>]*)>/.exec(
        form.text,
      )?.[1];
    expect(firstButton).not.toContain("addRows");
    const typed = {
      ...filledForm(form, action),
      name: "Typed Name",
      "measurements.name": ["bust", "waist", "hips", "", ""],
      "measurements.value": ["86", "66", "90", "", ""],
    };
    const more = await browser.post(action, { ...typed, addRows: "measurements" });
    expect(more.status).toBe(200);
    const again = filledForm(more, action);
    expect(again["measurements.name"]).toEqual(["bust", "waist", "hips", "", "", "", "", "", ""]);
    expect(again.name).toEqual(["Typed Name"]);
    expect(again["preferences.name"]).toEqual(["", "", ""]);
    expect(await customerOf(key, customerId)).toMatchObject({
      name: "Beatrice Bride",
      measurements: { bust: 86, waist: 66 },
    });
    // The new-customer form does the same.
    const blank = await browser.get("/dashboard/customers/new");
    const moreNew = await browser.post("/dashboard/customers", {
      ...filledForm(blank, "/dashboard/customers"),
      addRows: "preferences",
    });
    expect(moreNew.status).toBe(200);
    expect(filledForm(moreNew, "/dashboard/customers")["preferences.name"]).toHaveLength(6);
  });
});
