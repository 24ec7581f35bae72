import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";

let t: TestApp;
let doc: any;
beforeAll(async () => {
  t = await startTestApp();
  doc = (await t.api.get("/openapi.json")).body;
});
afterAll(() => t.close());

const routes: Array<[string, string, string | null, number[]]> = [
  ["get", "/api/vendor/customers", "customers:read", [200, 400, 401, 403, 429]],
  ["post", "/api/vendor/customers", "customers:write", [201, 400, 401, 403, 409, 413, 415, 422, 429]],
  ["get", "/api/vendor/customers/{id}", "customers:read", [200, 401, 403, 404]],
  ["patch", "/api/vendor/customers/{id}", "customers:write", [200, 400, 404, 409]],
  ["put", "/api/vendor/customers/{id}", "customers:write", [200, 400, 404, 409]],
  ["get", "/api/vendor/appointments", "appointments:read", [200, 400, 401, 403, 429]],
  ["post", "/api/vendor/appointments", "appointments:write", [201, 400, 401, 403, 409, 422, 429]],
  ["get", "/api/vendor/appointments/{id}", "appointments:read", [200, 404]],
  ["patch", "/api/vendor/appointments/{id}", "appointments:write", [200, 400, 404, 409]],
  ["put", "/api/vendor/appointments/{id}", "appointments:write", [200, 400, 404, 409]],
  ["delete", "/api/vendor/appointments/{id}", "appointments:write", [204, 404, 409]],
  ["get", "/api/vendor/inquiries", "inquiries:read", [200, 401, 403]],
  ["get", "/api/vendor/inquiries/{id}", "inquiries:read", [200, 404]],
  ["get", "/api/vendor/profile", "profile:read", [200, 401, 403]],
  ["post", "/api/public/vendors/{vendorId}/inquiries", null, [201, 400, 404, 429]],
];

describe("the OpenAPI document", () => {
  for (const [method, path, scope, statuses] of routes) {
    it(`documents ${method.toUpperCase()} ${path} with its ${scope ?? "public"} security and responses ${statuses.join(", ")}`, () => {
      const op = doc.paths?.[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op.operationId).toEqual(expect.any(String));
      expect(op.tags).toHaveLength(1);
      for (const status of statuses) expect(Object.keys(op.responses)).toContain(String(status));
      if (scope) expect(op.security).toEqual([{ apiKey: [] }, { oauth2: [scope] }]);
      else expect(op.security ?? []).toEqual([]);
    });
  }

  it("names every error code of CONTRACT 2 that these routes answer in the problem schema", () => {
    const problem =
      doc.paths["/api/vendor/appointments"].post.responses["409"].content["application/json"].schema;
    const codes: string[] = problem.properties.code.enum;
    for (const code of [
      "unknown_reference",
      "invalid_transition",
      "appointment_not_deletable",
      "customer_email_taken",
      "idempotency_key_in_use",
      "idempotency_key_reused",
      "rate_limited",
    ]) {
      expect(codes).toContain(code);
    }
  });

  it("documents the Idempotency-Key header on every POST under /api/vendor", () => {
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      if (!path.startsWith("/api/vendor") || !ops.post) continue;
      const names = (ops.post.parameters ?? []).filter((p: any) => p.in === "header").map((p: any) => p.name);
      expect(names, path).toContain("idempotency-key");
    }
  });

  it("has a tag for each new group", () => {
    const tags = doc.tags.map((tag: any) => tag.name);
    for (const tag of ["Customers", "Appointments", "Inquiries", "Profile"]) expect(tags).toContain(tag);
  });

  it("/docs renders (Swagger UI, assets served locally)", async () => {
    const page = await t.api.get("/docs/");
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/swagger-ui/i);
    expect(page.text).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)[^"']*\.js/);
  });
});
