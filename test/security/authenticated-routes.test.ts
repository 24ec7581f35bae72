// The shared security suite applied to every authenticated route, the order routes included.
import { describe, expect, it } from "vitest";
import { receiveInquiry } from "../../src/modules/inquiries/inquiries.service.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { type Owned, securitySuite } from "../helpers/security-suite.ts";
import { type TestApp, useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();
const app = () => t;

async function created(t: TestApp, owner: Owned, path: string, body: unknown): Promise<string> {
  const res = await t.api.post(`/api/vendor${path}`, body, { key: owner.key });
  if (res.status !== 201) throw new Error(`setup ${path}: ${res.status} ${res.text}`);
  return res.body.id;
}
const makeCustomer = (t: TestApp, owner: Owned) => created(t, owner, "/customers", { name: "Rita" });
const makeOrder = (t: TestApp, owner: Owned) =>
  created(t, owner, "/orders", { customerName: "Rita", type: "SUIT" });
const appointmentBody = async (t: TestApp, owner: Owned) => ({
  customerId: await makeCustomer(t, owner),
  type: "FITTING",
  date: "2027-05-01T10:00:00Z",
});
const makeAppointment = async (t: TestApp, owner: Owned) =>
  created(t, owner, "/appointments", await appointmentBody(t, owner));
const makeInquiry = async (t: TestApp, owner: Owned) =>
  (await receiveInquiry(t.ctx, owner.vendorId, { name: "Sara", email: "sara@example.com", message: "Hello" }))
    .id;

// Orders (issue #2 routes)
securitySuite(app, { method: "GET", path: "/orders", scope: "orders:read" });
securitySuite(app, {
  method: "POST",
  path: "/orders",
  scope: "orders:write",
  body: async () => ({ customerName: "Rita", type: "SUIT" }),
  ownedFields: ["id", "vendorId", "status", "createdAt", "updatedAt", "number"],
});
securitySuite(app, { method: "GET", path: "/orders/:id", scope: "orders:read", makeResource: makeOrder });
securitySuite(app, {
  method: "PATCH",
  path: "/orders/:id",
  scope: "orders:write",
  makeResource: makeOrder,
  body: async () => ({ size: "40" }),
  ownedFields: ["id", "vendorId", "status", "createdAt", "updatedAt", "customerId"],
});
securitySuite(app, {
  method: "PUT",
  path: "/orders/:id/status",
  scope: "orders:write",
  makeResource: makeOrder,
  body: async () => ({ status: "IN_PRODUCTION" }),
});

// Customers
securitySuite(app, { method: "GET", path: "/customers", scope: "customers:read" });
securitySuite(app, {
  method: "POST",
  path: "/customers",
  scope: "customers:write",
  body: async () => ({ name: "Rita" }),
  ownedFields: ["id", "vendorId", "status", "createdAt", "updatedAt", "counts"],
});
securitySuite(app, {
  method: "GET",
  path: "/customers/:id",
  scope: "customers:read",
  makeResource: makeCustomer,
});
for (const method of ["PATCH", "PUT"] as const) {
  securitySuite(app, {
    method,
    path: "/customers/:id",
    scope: "customers:write",
    makeResource: makeCustomer,
    body: async () => ({ notes: "VIP" }),
    ownedFields: ["id", "vendorId", "createdAt", "updatedAt", "counts"],
  });
}
securitySuite(app, {
  method: "POST",
  path: "/customers/:id/merge",
  scope: "customers:write",
  makeResource: makeCustomer,
  body: async (t: TestApp, owner: Owned) => ({ from: await makeCustomer(t, owner) }),
});
securitySuite(app, {
  method: "DELETE",
  path: "/customers/:id",
  scope: "customers:write",
  makeResource: makeCustomer,
});

// Appointments
securitySuite(app, { method: "GET", path: "/appointments", scope: "appointments:read" });
securitySuite(app, {
  method: "POST",
  path: "/appointments",
  scope: "appointments:write",
  body: appointmentBody,
  ownedFields: ["id", "vendorId", "status", "createdAt", "updatedAt"],
});
securitySuite(app, {
  method: "GET",
  path: "/appointments/:id",
  scope: "appointments:read",
  makeResource: makeAppointment,
});
for (const method of ["PATCH", "PUT"] as const) {
  securitySuite(app, {
    method,
    path: "/appointments/:id",
    scope: "appointments:write",
    makeResource: makeAppointment,
    body: async () => ({ notes: "Bring shoes" }),
  });
}
securitySuite(app, {
  method: "DELETE",
  path: "/appointments/:id",
  scope: "appointments:write",
  makeResource: makeAppointment,
});

// Inquiries and profile
securitySuite(app, { method: "GET", path: "/inquiries", scope: "inquiries:read" });
securitySuite(app, {
  method: "GET",
  path: "/inquiries/:id",
  scope: "inquiries:read",
  makeResource: makeInquiry,
});
securitySuite(app, { method: "GET", path: "/profile", scope: "profile:read" });

describe("POST /api/public/vendors/{vendorId}/inquiries security", () => {
  it("needs no credentials, answers 404 for an unknown or malformed vendor id", async () => {
    const body = { name: "Sara", email: "sara@example.com", message: "Hello" };
    const { vendor } = await createVendorWithKey(t.ctx);
    expect((await t.api.post(`/api/public/vendors/${vendor.id}/inquiries`, body)).status).toBe(201);
    const unknown = await t.api.post("/api/public/vendors/tz4a98xxat96iws9zmbrgj3a/inquiries", body);
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe("not_found");
    expect((await t.api.post("/api/public/vendors/x'--/inquiries", body)).status).toBe(404);
  });

  for (const field of ["id", "vendorId", "createdAt"]) {
    it(`refuses a body that sets ${field}`, async () => {
      const { vendor } = await createVendorWithKey(t.ctx);
      const res = await t.api.post(`/api/public/vendors/${vendor.id}/inquiries`, {
        name: "Sara",
        email: "sara@example.com",
        message: "Hello",
        [field]: vendor.id,
      });
      expect(res.status).toBe(400);
      expect(res.body.errors).toContainEqual({ field, message: "is not an accepted field" });
    });
  }
});
