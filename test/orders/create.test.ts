import { beforeAll, describe, expect, it } from "vitest";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const t = useTestApp();

describe("POST /api/vendor/orders", () => {
  it("answers 201 with id and status ORDERED, and the order reads back in the documented shape", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const created = await t.api.post(
      "/api/vendor/orders",
      {
        customerName: "Maria Silva",
        type: "BRIDAL_DRESS",
        customerEmail: "maria@example.com",
        customerPhone: "+351 912 345 678",
        weddingDate: "2027-06-12",
        model: "Aurora",
        description: "A-line, lace sleeves",
        size: "38",
        color: "Ivory",
        specialRequests: "Extra long train",
      },
      { key },
    );
    expect(created.status).toBe(201);
    expect(created.headers.get("content-type")).toMatch(/^application\/json/);
    expect(created.body).toMatchObject({ id: expect.any(String), status: "ORDERED" });

    const read = await t.api.get(`/api/vendor/orders/${created.body.id}`, { key });
    expect(read.status).toBe(200);
    const order = read.body;
    expect(Object.keys(order).sort()).toEqual(
      [
        "id",
        "number",
        "type",
        "status",
        "model",
        "size",
        "color",
        "description",
        "specialRequests",
        "dueDate",
        "pickupDate",
        "dueBackDate",
        "customerId",
        "customer",
        "externalId",
        "metadata",
        "updates",
        "createdAt",
        "updatedAt",
      ].sort(),
    );
    expect(order).toMatchObject({
      id: created.body.id,
      type: "BRIDAL_DRESS",
      status: "ORDERED",
      model: "Aurora",
      size: "38",
      color: "Ivory",
      description: "A-line, lace sleeves",
      specialRequests: "Extra long train",
      customer: { name: "Maria Silva", email: "maria@example.com" },
    });
    expect(order.createdAt).toMatch(ISO_MS);
    expect(order.updatedAt).toMatch(ISO_MS);
    // A new order has exactly one history entry: ORDERED, "Order created".
    expect(order.updates).toEqual([
      {
        status: "ORDERED",
        message: "Order created",
        imageUrl: null,
        photos: [],
        createdAt: order.createdAt,
      },
    ]);
    // customerPhone and weddingDate are accepted on creation only, not shown on the order.
    expect(order).not.toHaveProperty("customerPhone");
    expect(order).not.toHaveProperty("weddingDate");
  });

  it("creates a customer from the order's contact details when the e-mail is new", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx);
    const a = await t.api.post(
      "/api/vendor/orders",
      { customerName: "Ana", type: "SUIT", customerEmail: "ana@example.com" },
      { key },
    );
    const b = await t.api.post("/api/vendor/orders", { customerName: "Rui", type: "SUIT" }, { key });
    expect(a.body.customerId).not.toEqual(b.body.customerId);
    const { findCustomerById } = await import("../../src/modules/customers/customers.repository.ts");
    const customer = await findCustomerById(t.ctx.db, vendor.id, a.body.customerId);
    expect(customer).toMatchObject({ name: "Ana", email: "ana@example.com" });
  });

  it("links an order to the vendor's customer with the same e-mail, case-insensitively", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const first = await t.api.post(
      "/api/vendor/orders",
      { customerName: "Joana Reis", type: "BRIDAL_DRESS", customerEmail: "Joana.Reis@Example.com" },
      { key },
    );
    const second = await t.api.post(
      "/api/vendor/orders",
      { customerName: "Joana R.", type: "RENTAL", customerEmail: "joana.reis@example.COM" },
      { key },
    );
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body.customerId).toBe(first.body.customerId);
    // The linked order shows the existing customer.
    expect(second.body.customer).toEqual({ name: "Joana Reis", email: "Joana.Reis@Example.com" });
  });

  it("never links to another vendor's customer with the same e-mail", async () => {
    const a = await createVendorWithKey(t.ctx);
    const b = await createVendorWithKey(t.ctx);
    const body = { customerName: "Same Person", type: "SUIT", customerEmail: "same@example.com" };
    const first = await t.api.post("/api/vendor/orders", body, { key: a.key });
    const second = await t.api.post("/api/vendor/orders", body, { key: b.key });
    expect(second.body.customerId).not.toBe(first.body.customerId);
  });

  it("concurrent orders with one new e-mail end with one customer", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const body = { customerName: "Race", type: "SUIT", customerEmail: "race@example.com" };
    const results = await Promise.all(
      Array.from({ length: 5 }, () => t.api.post("/api/vendor/orders", body, { key })),
    );
    expect(results.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    expect(new Set(results.map((r) => r.body.customerId)).size).toBe(1);
  });

  it("writes order.created (and customer.created for a new customer) in the same transaction", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx);
    const created = await t.api.post(
      "/api/vendor/orders",
      { customerName: "Eva", type: "RENTAL", customerEmail: "eva@example.com" },
      { key },
    );
    const { events } = await import("../../src/db/schema/index.ts");
    const { eq } = await import("drizzle-orm");
    const rows = await t.ctx.db.select().from(events).where(eq(events.vendorId, vendor.id));
    const byType = Object.fromEntries(rows.map((r) => [r.type, r.data]));
    expect(Object.keys(byType).sort()).toEqual(["customer.created", "order.created"]);
    expect(byType["order.created"]).toEqual(created.body);
    expect(byType["customer.created"]).toMatchObject({
      id: created.body.customerId,
      email: "eva@example.com",
    });
  });

  it("ignores nothing silently: id, number, status, vendorId and timestamps in the body are refused", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    for (const field of ["id", "status", "vendorId", "createdAt", "updatedAt", "number"]) {
      const res = await t.api.post(
        "/api/vendor/orders",
        { customerName: "X", type: "SUIT", [field]: field === "number" ? 1001 : "ORDERED" },
        { key },
      );
      expect(res.status, field).toBe(400);
      expect(res.body.code).toBe("validation_failed");
      expect(res.body.errors).toContainEqual({ field, message: "is not an accepted field" });
    }
  });
});

describe("bad input to POST /api/vendor/orders", () => {
  let key: string;
  beforeAll(async () => {
    ({ key } = await createVendorWithKey(t.ctx));
  });

  const cases: Array<[string, unknown, string]> = [
    ["missing customerName", { type: "SUIT" }, "customerName"],
    ["missing type", { customerName: "A" }, "type"],
    ["empty customerName", { customerName: "", type: "SUIT" }, "customerName"],
    ["blank customerName", { customerName: "   ", type: "SUIT" }, "customerName"],
    ["wrong-typed customerName", { customerName: 42, type: "SUIT" }, "customerName"],
    ["unknown enum value", { customerName: "A", type: "TUXEDO" }, "type"],
    ["lower-case enum value", { customerName: "A", type: "suit" }, "type"],
    ["invalid e-mail", { customerName: "A", type: "SUIT", customerEmail: "not-an-email" }, "customerEmail"],
    ["invalid weddingDate", { customerName: "A", type: "SUIT", weddingDate: "12/06/2027" }, "weddingDate"],
    ["impossible weddingDate", { customerName: "A", type: "SUIT", weddingDate: "2027-02-30" }, "weddingDate"],
    ["wrong-typed size", { customerName: "A", type: "SUIT", size: 38 }, "size"],
    ["over-long model", { customerName: "A", type: "SUIT", model: "x".repeat(201) }, "model"],
  ];
  it.each(cases)("%s → 400 validation_failed naming the field", async (_name, body, field) => {
    const res = await t.api.post("/api/vendor/orders", body, { key });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 400, code: "validation_failed", title: expect.any(String) });
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    expect(res.body.requestId).toBe(res.headers.get("x-request-id"));
  });

  it("a JSON array or a bare string as body → 400 validation_failed", async () => {
    for (const raw of ["[]", '"order"', "null", "42"]) {
      const res = await t.api.request("POST", "/api/vendor/orders", {
        key,
        raw,
        contentType: "application/json",
      });
      expect(res.status, raw).toBe(400);
      expect(["validation_failed", "invalid_json"]).toContain(res.body.code);
    }
  });

  it("malformed JSON → 400 invalid_json", async () => {
    const res = await t.api.request("POST", "/api/vendor/orders", {
      key,
      raw: '{"customerName": "A", "type": ',
      contentType: "application/json",
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("invalid_json");
  });

  it("an empty body with a JSON content type → 400", async () => {
    const res = await t.api.request("POST", "/api/vendor/orders", {
      key,
      raw: "",
      contentType: "application/json",
    });
    expect(res.status).toBe(400);
  });

  it("a body over 1 MiB → 413 payload_too_large", async () => {
    const raw = JSON.stringify({ customerName: "A", type: "SUIT", description: "x".repeat(1024 * 1024) });
    const res = await t.api.request("POST", "/api/vendor/orders", {
      key,
      raw,
      contentType: "application/json",
    });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe("payload_too_large");
  });

  it.each([
    ["text/plain", '{"customerName":"A","type":"SUIT"}'],
    ["application/x-www-form-urlencoded", "customerName=A&type=SUIT"],
    ["application/xml", "<order/>"],
  ])("content type %s → 415 unsupported_media_type", async (contentType, raw) => {
    const res = await t.api.request("POST", "/api/vendor/orders", { key, raw, contentType });
    expect(res.status).toBe(415);
    expect(res.body.code).toBe("unsupported_media_type");
  });

  it("a body without any content type → 415", async () => {
    const res = await t.api.request("POST", "/api/vendor/orders", {
      key,
      raw: '{"customerName":"A","type":"SUIT"}',
    });
    expect(res.status).toBe(415);
  });

  it("refused input stores nothing", async () => {
    const before = await t.api.get("/api/vendor/orders", { key });
    await t.api.post("/api/vendor/orders", { customerName: "A", type: "NOPE" }, { key });
    const after = await t.api.get("/api/vendor/orders", { key });
    expect(after.body.orders.length).toBe(before.body.orders.length);
  });
});
