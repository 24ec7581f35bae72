// CONTRACT 12: an order names its customer by customerId, or is linked by e-mail, then by the
// phone number in E.164 (the shop's country as default), before a new customer is made.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { eventsAbout } from "../helpers/events.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

async function germanShop() {
  const shop = await createVendorWithKey(t.ctx);
  await t.ctx.db.execute(sql`update vendors set time_zone = 'Europe/Berlin' where id = ${shop.vendor.id}`);
  return shop;
}

async function customersOf(key: string) {
  return (await t.api.get("/api/vendor/customers", { key })).body.customers as Array<{
    id: string;
    name: string;
  }>;
}

describe("an order's customer", () => {
  it("customerId links the order to that customer, makes none and emits no customer.created", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const clara = await t.api.post(
      "/api/vendor/customers",
      { name: "Clara Weiß", phone: "+49 170 1234567" },
      { key },
    );
    const created = await t.api.post(
      "/api/vendor/orders",
      { customerId: clara.body.id, type: "SUIT" },
      { key },
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ customerId: clara.body.id, customer: { name: "Clara Weiß" } });
    expect(await customersOf(key)).toHaveLength(1);
    expect((await eventsAbout(t, clara.body.id)).map((e) => e.type)).toEqual(["customer.created"]);
  });

  it("customerId with any customer field is validation_failed naming both", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const clara = await t.api.post("/api/vendor/customers", { name: "Clara" }, { key });
    const both = await t.api.post(
      "/api/vendor/orders",
      { customerId: clara.body.id, customerName: "Clara", type: "SUIT" },
      { key },
    );
    expect(both.status).toBe(400);
    expect(both.body.code).toBe("validation_failed");
    expect(both.body.errors.map((e: { field: string }) => e.field)).toEqual(["customerId", "customerName"]);
    const neither = await t.api.post("/api/vendor/orders", { type: "SUIT" }, { key });
    expect(neither.status).toBe(400);
    expect(neither.body).toMatchObject({ code: "validation_failed", errors: [{ field: "customerName" }] });
  });

  it("another shop's customer id, an unknown or a malformed one is unknown_reference naming customerId", async () => {
    const other = await createVendorWithKey(t.ctx);
    const theirs = await t.api.post("/api/vendor/customers", { name: "Theirs" }, { key: other.key });
    const { key } = await createVendorWithKey(t.ctx);
    for (const customerId of [theirs.body.id, "tz4a98xxat96iws9zmbrgj3a", "not an id!"]) {
      const answer = await t.api.post("/api/vendor/orders", { customerId, type: "SUIT" }, { key });
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ code: "unknown_reference", errors: [{ field: "customerId" }] });
      expect(JSON.stringify(answer.body)).not.toContain("Theirs");
    }
    expect(await customersOf(key)).toHaveLength(0);
  });

  it("without an e-mail, a German shop's order finds the customer by her number written nationally", async () => {
    const { key } = await germanShop();
    const clara = await t.api.post(
      "/api/vendor/customers",
      { name: "Clara Weiß", phone: "+49 170 1234567" },
      { key },
    );
    const order = await t.api.post(
      "/api/vendor/orders",
      { customerName: "Clara Weiss", customerPhone: "0170 1234567", type: "BRIDAL_DRESS" },
      { key },
    );
    expect(order.status).toBe(201);
    expect(order.body.customerId).toBe(clara.body.id);
    expect(await customersOf(key)).toHaveLength(1);
  });

  it("a customer made by an order with a national number is found again by the international form", async () => {
    const { key } = await germanShop();
    const first = await t.api.post(
      "/api/vendor/orders",
      { customerName: "Clara", customerPhone: "0170 1234567", type: "SUIT" },
      { key },
    );
    const second = await t.api.post(
      "/api/vendor/orders",
      {
        customerName: "Clara",
        customerPhone: "+49 (170) 123-4567",
        customerEmail: "clara@example.com",
        type: "SUIT",
      },
      { key },
    );
    expect(second.body.customerId).toBe(first.body.customerId);
  });

  it("a phone given to a customer later, written nationally, is matched too", async () => {
    const { key } = await germanShop();
    const clara = await t.api.post("/api/vendor/customers", { name: "Clara" }, { key });
    const patched = await t.api.patch(
      `/api/vendor/customers/${clara.body.id}`,
      { phone: "0170 1234567" },
      { key },
    );
    expect(patched.status).toBe(200);
    const order = await t.api.post(
      "/api/vendor/orders",
      { customerName: "Clara", customerPhone: "+49 170 1234567", type: "SUIT" },
      { key },
    );
    expect(order.body.customerId).toBe(clara.body.id);
  });

  it("the e-mail wins over the phone, and a phone match never joins two different e-mails", async () => {
    const { key } = await germanShop();
    const byMail = await t.api.post("/api/vendor/customers", { name: "A", email: "a@example.com" }, { key });
    const byPhone = await t.api.post(
      "/api/vendor/customers",
      { name: "B", email: "b@example.com", phone: "+49 170 1234567" },
      { key },
    );
    const mail = await t.api.post(
      "/api/vendor/orders",
      { customerName: "A", customerEmail: "A@example.com", customerPhone: "0170 1234567", type: "SUIT" },
      { key },
    );
    expect(mail.body.customerId).toBe(byMail.body.id);
    const third = await t.api.post(
      "/api/vendor/orders",
      { customerName: "C", customerEmail: "c@example.com", customerPhone: "0170 1234567", type: "SUIT" },
      { key },
    );
    expect([byMail.body.id, byPhone.body.id]).not.toContain(third.body.customerId);
  });

  it("a shop in UTC has no default country: a national number matches nobody", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    await t.api.post("/api/vendor/customers", { name: "Clara", phone: "+49 170 1234567" }, { key });
    const order = await t.api.post(
      "/api/vendor/orders",
      { customerName: "Clara", customerPhone: "0170 1234567", type: "SUIT" },
      { key },
    );
    expect(await customersOf(key)).toHaveLength(2);
    expect(order.status).toBe(201);
  });
});
