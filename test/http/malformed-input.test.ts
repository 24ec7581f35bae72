// CONTRACT 2: no input, however malformed, produces a 500. PostgreSQL cannot store U+0000, so
// NUL characters are the classic way to reach the database with something it refuses.
import { describe, expect, it } from "vitest";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

describe("NUL characters are 400 validation_failed naming the field, never 500", () => {
  const cases: Array<[string, string, unknown, string]> = [
    ["POST", "/api/vendor/customers", { name: "a\u0000b" }, "name"],
    ["POST", "/api/vendor/customers", { name: "x", measurements: { k: "\u0000" } }, "measurements.k"],
    [
      "POST",
      "/api/vendor/customers",
      { name: "x", preferences: { list: ["ok", "\u0000"] } },
      "preferences.list[1]",
    ],
    ["POST", "/api/vendor/customers", { name: "x", measurements: { "k\u0000": 1 } }, "measurements.k\\u0000"],
    ["POST", "/api/vendor/orders", { customerName: "a\u0000b", type: "SUIT" }, "customerName"],
    ["GET", "/api/vendor/customers?email=a%00b", undefined, "email"],
    ["GET", "/api/vendor/appointments?customerId=a%00b", undefined, "customerId"],
  ];
  for (const [method, path, body, field] of cases) {
    it(`${method} ${path} ${body ? JSON.stringify(body) : ""} → 400 naming ${field}`, async () => {
      const { key } = await createVendorWithKey(t.ctx);
      const res = await t.api.request(method, path, { key, ...(body ? { body } : {}) });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("validation_failed");
      expect(res.body.errors[0].field).toBe(field);
    });
  }

  it("on the public inquiry form too", async () => {
    const { vendor } = await createVendorWithKey(t.ctx);
    const res = await t.api.post(`/api/public/vendors/${vendor.id}/inquiries`, {
      name: "a",
      email: "a@example.com",
      message: "x\u0000",
    });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toBe("message");
  });

  it("in a path parameter it is 404 like any id that cannot exist (CONTRACT 1)", async () => {
    const { key, vendor } = await createVendorWithKey(t.ctx);
    for (const path of [
      "/api/vendor/customers/a%00b",
      "/api/vendor/appointments/a%00b",
      "/api/vendor/inquiries/a%00b",
    ]) {
      const res = await t.api.get(path, { key });
      expect(res.status, path).toBe(404);
    }
    const pub = await t.api.post(`/api/public/vendors/${vendor.id}%00/inquiries`, {
      name: "a",
      email: "a@example.com",
      message: "x",
    });
    expect(pub.status).toBe(404);
  });
});

describe("year 0000 dates (valid ISO 8601, refused by PostgreSQL) are 400, never 500", () => {
  it("weddingDate 0000-01-01 on customers, orders and inquiries", async () => {
    const { key, vendor } = await createVendorWithKey(t.ctx);
    const weddingDate = "0000-01-01";
    const customer = await t.api.post("/api/vendor/customers", { name: "Z", weddingDate }, { key });
    const order = await t.api.post(
      "/api/vendor/orders",
      { customerName: "Z", type: "SUIT", weddingDate },
      { key },
    );
    const inquiry = await t.api.post(`/api/public/vendors/${vendor.id}/inquiries`, {
      name: "Z",
      email: "z@example.com",
      message: "hi",
      weddingDate,
    });
    for (const res of [customer, order, inquiry]) {
      expect(res.status).toBe(400);
      expect(res.body.errors[0].field).toBe("weddingDate");
    }
  });
});

describe("forged cursors are 400 naming cursor, never 500", () => {
  const forge = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const forged = [
    forge(["0", "abc"]),
    forge(["0000-01-01T00:00:00Z", "abc"]),
    forge(["+010000-01-01T00:00:00Z", "abc"]),
    forge(["2027-01-01T00:00:00Z", "a\u0000b"]),
    forge(["2027-01-01T00:00:00Z", 5]),
    forge({ t: 1 }),
    "%%%",
  ];
  for (const resource of ["orders", "customers", "appointments", "inquiries"]) {
    it(`GET /api/vendor/${resource} with forged cursors`, async () => {
      const { key } = await createVendorWithKey(t.ctx);
      for (const cursor of forged) {
        const res = await t.api.get(`/api/vendor/${resource}?cursor=${encodeURIComponent(cursor)}`, { key });
        // A cursor of a plausible instant and id simply finds nothing; anything else is 400.
        expect(res.status, cursor).not.toBe(500);
        if (res.status !== 200) expect(res.body.errors[0].field).toBe("cursor");
      }
    });
  }
});

describe("odd but schema-valid date-times in query strings are never 500", () => {
  const values = [
    "2026-12-31T23:59:60Z",
    "0001-01-01T00:00:00Z",
    "0001-01-01T00:00:00+01:00",
    "0000-01-01T00:00:00Z",
    "9999-12-31T23:59:59.999-14:00",
  ];
  for (const resource of ["orders", "customers", "appointments"]) {
    it(`GET /api/vendor/${resource}?updatedSince=… (leap second, year 1, year 9999)`, async () => {
      const { key } = await createVendorWithKey(t.ctx);
      for (const value of values) {
        const res = await t.api.get(`/api/vendor/${resource}?updatedSince=${encodeURIComponent(value)}`, {
          key,
        });
        expect([200, 400], value).toContain(res.status);
      }
    });
  }

  it("GET /api/vendor/appointments?from=…&to=… (leap second, extreme years)", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    for (const value of [...values, "0000-01-01", "275760-09-13"]) {
      const res = await t.api.get(
        `/api/vendor/appointments?from=${encodeURIComponent(value)}&to=${encodeURIComponent(value)}`,
        { key },
      );
      expect([200, 400], value).toContain(res.status);
    }
  });

  it("POST /api/vendor/appointments with a leap-second or far-future date is 201 or 400", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const c = await t.api.post("/api/vendor/customers", { name: "L" }, { key });
    for (const date of values) {
      const res = await t.api.post(
        "/api/vendor/appointments",
        { customerId: c.body.id, type: "FITTING", date },
        { key },
      );
      expect([201, 400], date).toContain(res.status);
    }
  });
});
