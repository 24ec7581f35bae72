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

  it("declares per operation and status only the codes it can answer, as problem+json", () => {
    const codes = (path: string, method: string, status: string) => {
      const media = doc.paths[path][method].responses[status].content;
      expect(Object.keys(media)).toEqual(["application/problem+json"]);
      return media["application/problem+json"].schema.allOf[1].properties.code.enum;
    };
    expect(codes("/api/vendor/orders/{id}/status", "put", "409")).toEqual(["invalid_transition"]);
    expect(codes("/api/vendor/appointments", "post", "409")).toEqual([
      "external_id_taken",
      "idempotency_key_in_use",
    ]);
    expect(codes("/api/vendor/appointments", "post", "400")).toContain("unknown_reference");
    expect(codes("/api/vendor/appointments/{id}", "delete", "409")).toEqual(["appointment_not_deletable"]);
    expect(codes("/api/vendor/customers", "post", "409")).toEqual([
      "customer_email_taken",
      "external_id_taken",
      "idempotency_key_in_use",
    ]);
    expect(codes("/api/vendor/orders", "get", "400")).toEqual(["validation_failed", "ambiguous_credentials"]);
    expect(doc.paths["/api/vendor/orders"].get.responses["404"]).toBeUndefined();
    const problem = doc.components.schemas.Problem.properties;
    for (const member of ["existingId", "currentStatus", "allowedStatuses", "errors"])
      expect(problem[member]).toBeDefined();
  });

  it("names its schemas and refers to them", () => {
    for (const name of [
      "Order",
      "OrderUpdate",
      "Customer",
      "CustomerWithCounts",
      "Appointment",
      "Webhook",
      "WebhookWithSecret",
      "Delivery",
      "DeliveryAttempt",
      "Inquiry",
      "Profile",
      "Event",
      "Problem",
    ]) {
      expect(doc.components.schemas[name], name).toBeDefined();
    }
    const media = (path: string, method: string, status: string) =>
      doc.paths[path][method].responses[status].content["application/json"].schema;
    expect(media("/api/vendor/orders/{id}", "get", "200")).toEqual({ $ref: "#/components/schemas/Order" });
    expect(media("/api/vendor/customers", "post", "201")).toEqual({ $ref: "#/components/schemas/Customer" });
    expect(media("/api/vendor/customers/{id}", "get", "200")).toEqual({
      $ref: "#/components/schemas/CustomerWithCounts",
    });
    expect(doc.components.schemas.Event.discriminator.propertyName).toBe("event");
    expect(doc.components.schemas.Event.oneOf).toHaveLength(15);
  });

  it("gives every request and response body an example, and cites no internal document", () => {
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        const bodies = [op.requestBody, ...Object.values<any>(op.responses)].filter(Boolean);
        for (const body of bodies) {
          for (const [type, media] of Object.entries<any>(body.content ?? {})) {
            // A file upload's body is bytes, which no example in a JSON document can hold: it
            // describes its one binary part instead.
            const binary = Object.values<any>(media.schema?.properties ?? {}).some(
              (p) => p.format === "binary",
            );
            if (binary) {
              expect(body.description, `${method} ${path} ${type}`).toMatch(/multipart/);
              continue;
            }
            expect(media.example ?? media.examples, `${method} ${path} ${type}`).toBeDefined();
          }
        }
      }
    }
    expect(JSON.stringify(doc)).not.toMatch(/CONTRACT|STACK-NOTES|\bspec \d/);
  });

  it("marks public operations security: [] and documents the OAuth form bodies", () => {
    for (const [path, method] of [
      ["/health", "get"],
      ["/api/oauth/token", "post"],
      ["/api/public/vendors/{vendorId}/inquiries", "post"],
    ] as const) {
      expect(doc.paths[path][method].security, path).toEqual([]);
    }
    for (const path of ["/api/oauth/token", "/api/oauth/revoke"]) {
      expect(Object.keys(doc.paths[path].post.requestBody.content)).toEqual([
        "application/x-www-form-urlencoded",
      ]);
    }
    expect(doc.paths["/api/vendor/webhooks/{id}/test"].post.requestBody.required).toBe(false);
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

  it("/docs renders the reference (assets served locally)", async () => {
    const page = await t.api.get("/docs");
    expect(page.status).toBe(200);
    expect(page.text).toContain('<redoc spec-url="/openapi.json">');
    expect(page.text).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)[^"']*\.js/);
  });
});
