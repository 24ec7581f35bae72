// The document and the server agree on which request bodies may be left out:
// an operation whose body is `required: true` refuses a request without one (400 naming
// `(body)`), and one whose body is optional accepts it. Every operation of the served document
// with a JSON body is sent once with no body at all, as a client that follows the document would.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createVendorWithKey } from "../helpers/factories.ts";
import { openApiConformance } from "../helpers/openapi-conformance.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";

let t: TestApp;
let doc: any;
beforeAll(async () => {
  t = await startTestApp();
  doc = (await t.api.get("/openapi.json")).body;
});
afterAll(() => t.close());

/** A well-formed id no row has: a body that is accepted reaches the lookup and answers 404. */
const absentId = "zz00000000000000000000zz";

function operationsWithJsonBodies(): { method: string; path: string; required: boolean }[] {
  const out: { method: string; path: string; required: boolean }[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, operation] of Object.entries<any>(item)) {
      if (!operation.requestBody?.content?.["application/json"]) continue;
      out.push({ method: method.toUpperCase(), path, required: operation.requestBody.required === true });
    }
  }
  return out;
}

describe("request bodies the document marks required", () => {
  it("include every PATCH and PUT of orders, customers, appointments and webhooks", () => {
    const required = new Set(
      operationsWithJsonBodies()
        .filter((o) => o.required)
        .map((o) => `${o.method} ${o.path}`),
    );
    for (const resource of ["orders", "customers", "appointments", "webhooks"]) {
      expect(required).toContain(`PATCH /api/vendor/${resource}/{id}`);
    }
    for (const resource of ["customers", "appointments", "webhooks"]) {
      expect(required).toContain(`PUT /api/vendor/${resource}/{id}`);
    }
    expect(required).toContain("PUT /api/vendor/orders/{id}/status");
  });

  it("are refused when left out, and the others are accepted without one", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const conformance = openApiConformance(doc);
    const operations = operationsWithJsonBodies();
    expect(operations.filter((o) => !o.required).length).toBeGreaterThan(0);
    for (const { method, path, required } of operations) {
      const url = path.replace(/\{[^}]+\}/g, absentId);
      const res = await t.api.request(method, url, { key });
      const where = `${method} ${path} (document: required ${required})`;
      if (required) {
        expect(res.status, where).toBe(400);
        expect(res.body.code, where).toBe("validation_failed");
        expect(res.body.errors, where).toContainEqual(expect.objectContaining({ field: "(body)" }));
      } else {
        // Accepted: the request goes on to look for the (absent) resource.
        expect([res.status, res.body.code], where).toEqual([404, "not_found"]);
      }
      expect(
        conformance.check({ method, url, status: res.status, headers: res.headers, text: res.text }),
      ).toEqual([]);
    }
  });
});
