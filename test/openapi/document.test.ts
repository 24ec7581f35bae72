import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";

let t: TestApp;
let doc: any;
beforeAll(async () => {
  t = await startTestApp();
  doc = (await t.api.get("/openapi.json")).body;
});
afterAll(() => t.close());

const toOpenApiPath = (url: string) => url.replace(/:([A-Za-z]+)/g, "{$1}");

describe("the OpenAPI document", () => {
  it("is OpenAPI 3.1 and states the API version and server", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(doc.servers).toEqual([{ url: t.url }]);
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(["apiKey", "oauth2"]);
  });

  it("documents every route the app serves under /api", () => {
    // Left out deliberately: the consent form's own POST (the page's form, not an API) and the
    // CORS preflights of the public endpoints (answered by @fastify/cors, not operations).
    const apiRoutes = t.app.routeCatalog.filter((r) => r.url.startsWith("/api/") && r.documented);
    expect(
      t.app.routeCatalog
        .filter((r) => r.url.startsWith("/api/") && !r.documented)
        .map(({ method, url }) => ({ method, url })),
    ).toEqual([
      { method: "OPTIONS", url: "/api/public*" },
      // The booking endpoints' own preflight scope (CONTRACT 12, Public booking).
      { method: "OPTIONS", url: "/api/public/vendors*" },
      { method: "POST", url: "/api/oauth/authorize" },
    ]);
    expect(apiRoutes.length).toBeGreaterThan(0);
    for (const route of apiRoutes) {
      const operation = doc.paths[toOpenApiPath(route.url)]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${route.url}`).toBeDefined();
      expect(operation.summary, `${route.method} ${route.url} summary`).toEqual(expect.any(String));
      expect(operation.operationId, `${route.method} ${route.url} operationId`).toEqual(expect.any(String));
    }
  });

  it("gives every scoped route its security requirement and documented errors", () => {
    const scoped = t.app.routeCatalog.filter((r) => r.scope);
    for (const route of scoped) {
      const operation = doc.paths[toOpenApiPath(route.url)][route.method.toLowerCase()];
      const where = `${route.method} ${route.url}`;
      expect(operation.security, where).toEqual([
        { apiKey: [] },
        ...(route.scopes ?? [route.scope]).map((scope) => ({ oauth2: [scope] })),
      ]);
      for (const status of ["400", "401", "403", "429", "500"]) {
        expect(operation.responses[status], `${where} ${status}`).toBeDefined();
      }
      if (route.url.includes(":id")) expect(operation.responses["404"], `${where} 404`).toBeDefined();
      if (["POST", "PUT", "PATCH"].includes(route.method) && operation.requestBody) {
        expect(operation.responses["413"], `${where} 413`).toBeDefined();
        expect(operation.responses["415"], `${where} 415`).toBeDefined();
      }
      const success = Object.keys(operation.responses).find((s) => s.startsWith("2"));
      expect(success, `${where} success response`).toBeDefined();
    }
  });

  it("describes the order shape with the contract's fields", () => {
    const ref = doc.paths["/api/vendor/orders/{id}"].get.responses["200"].content["application/json"].schema;
    expect(ref).toEqual({ $ref: "#/components/schemas/Order" });
    const schema = doc.components.schemas.Order;
    expect(Object.keys(schema.properties).sort()).toEqual(
      [
        "color",
        "createdAt",
        "customer",
        "customerId",
        "description",
        "dueBackDate",
        "dueDate",
        "externalId",
        "id",
        "metadata",
        "model",
        "number",
        "pickupDate",
        "size",
        "specialRequests",
        "status",
        "type",
        "updatedAt",
        "updates",
      ].sort(),
    );
  });

  it("/docs renders the document with assets served locally", async () => {
    const res = await fetch(`${t.url}/docs/`, { redirect: "follow" });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("<html");
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string);
    expect(assets.length).toBeGreaterThan(0);
    for (const asset of assets) {
      expect(asset, "no third-party asset").not.toMatch(/^https?:\/\//);
      const url = new URL(asset, `${t.url}/docs/`).toString();
      expect((await fetch(url)).status, url).toBe(200);
    }
  });
});
