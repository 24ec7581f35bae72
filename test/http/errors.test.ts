import { describe, expect, it } from "vitest";
import { errorCatalog } from "../../src/errors.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

describe("problem details (RFC 9457, CONTRACT 2)", () => {
  it("an unknown route → 404 route_not_found as problem+json", async () => {
    const res = await t.api.get("/api/vendor/nothing-here");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({
      type: `${t.url}/docs/errors#route_not_found`,
      title: "Route not found",
      status: 404,
      code: "route_not_found",
      requestId: res.headers.get("x-request-id"),
    });
  });

  it("an unsupported method on a known path → 405 method_not_allowed with Allow, never a 500", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const res = await t.api.request("DELETE", "/api/vendor/orders", { key });
    expect(res.status).toBe(405);
    expect(res.body.code).toBe("method_not_allowed");
    expect(res.headers.get("allow")).toBe("GET, HEAD, POST");
  });

  it("every status a route's codes fall under is serialized by one problem schema: one member order", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const created = await t.api.post("/api/vendor/customers", { name: "Maria Rossi" }, { key });
    expect(created.status).toBe(201);
    const path = `/api/vendor/customers/${created.body.id}`;
    // 412 (If-Match), 415 (a body on a DELETE) and 404 come from three different declarations.
    const stale = await t.api.delete(path, { key, headers: { "if-match": '"stale"' } });
    const typed = await t.api.request("DELETE", path, { key, raw: "x", contentType: "text/plain" });
    const missing = await t.api.get("/api/vendor/customers/nope", { key });
    expect([stale.status, typed.status, missing.status]).toEqual([412, 415, 404]);
    const members = ["type", "title", "status", "code", "requestId", "detail"];
    for (const res of [stale, typed, missing]) expect(Object.keys(JSON.parse(res.text))).toEqual(members);
  });

  it("the type URI of each code resolves to the errors page with an anchor for it", async () => {
    const res = await t.api.get("/docs/errors");
    expect(res.status).toBe(200);
    for (const code of Object.keys(errorCatalog)) expect(res.text).toContain(`id="${code}"`);
  });

  it("a deeply nested or huge-number JSON body is a 400, not a 500", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const nested = `${"[".repeat(5000)}${"]".repeat(5000)}`;
    const res = await t.api.request("POST", "/api/vendor/orders", {
      key,
      raw: nested,
      contentType: "application/json",
    });
    expect(res.status).toBe(400);
    const proto = await t.api.request("POST", "/api/vendor/orders", {
      key,
      raw: '{"customerName":"A","type":"SUIT","__proto__":{"x":1}}',
      contentType: "application/json",
    });
    expect(proto.status).toBe(400);
  });

  it("JSON with a charset parameter is accepted", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const res = await t.api.request("POST", "/api/vendor/orders", {
      key,
      raw: JSON.stringify({ customerName: "Zoë", type: "SUIT" }),
      contentType: "application/json; charset=utf-8",
    });
    expect(res.status).toBe(201);
    expect(res.body.customer.name).toBe("Zoë");
  });
});

describe("health and readiness", () => {
  it("GET /health → 200 { status: ok }", async () => {
    const res = await t.api.get("/health");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok" });
  });
  it("GET /ready → 200 when the database answers", async () => {
    const res = await t.api.get("/ready");
    expect(res.status).toBe(200);
  });
});
