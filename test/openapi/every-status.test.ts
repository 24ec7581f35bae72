// Every status the server answers is in the document for that operation: a
// DELETE refuses a body (400 for JSON, 415 for another type, 413 over the limit), and the OAuth
// endpoints answer 429 past their per-address budget. Each answer is provoked for real and
// checked against the served document (status, headers, body schema).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createVendorWithKey } from "../helpers/factories.ts";
import { openApiConformance } from "../helpers/openapi-conformance.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";

let t: TestApp;
let doc: any;
beforeAll(async () => {
  // A small OAuth budget, so that the third request of a minute is refused.
  t = await startTestApp({ env: { OAUTH_RATE_LIMIT_PER_MINUTE: "2" } });
  doc = (await t.api.get("/openapi.json")).body;
});
afterAll(() => t.close());

const overLimit = Buffer.alloc(1024 * 1024 + 1, "a");

describe("a DELETE with a body", () => {
  it("is refused, with statuses the document lists for the operation", async () => {
    const conformance = openApiConformance(doc);
    const { key } = await createVendorWithKey(t.ctx);
    const customer = await t.api.post("/api/vendor/customers", { name: "Ana Reis" }, { key });
    const appointment = await t.api.post(
      "/api/vendor/appointments",
      { customerId: customer.body.id, type: "FITTING", date: "2031-05-02T10:00:00Z" },
      { key },
    );
    expect(appointment.status, appointment.text).toBe(201);
    const webhook = await t.api.post(
      "/api/vendor/webhooks",
      { url: "https://hooks.example.com/in", events: ["order.created"] },
      { key },
    );
    const paths = [
      `/api/vendor/appointments/${appointment.body.id}`,
      `/api/vendor/webhooks/${webhook.body.id}`,
      `/api/vendor/customers/${customer.body.id}`,
    ];
    const bodies = [
      { status: 400, raw: '{"confirm":true}', contentType: "application/json" },
      { status: 415, raw: "please", contentType: "text/plain" },
      { status: 413, raw: overLimit, contentType: "application/json" },
    ];
    for (const path of paths) {
      for (const { status, raw, contentType } of bodies) {
        const res = await t.api.request("DELETE", path, { key, raw, contentType });
        expect(res.status, `DELETE ${path} ${contentType}`).toBe(status);
        expect(
          conformance.check({ method: "DELETE", url: path, status, headers: res.headers, text: res.text }),
        ).toEqual([]);
      }
      // Nothing was deleted by the refused requests; without a body the DELETE goes through.
      expect((await t.api.delete(path, { key })).status).toBe(204);
    }
  });
});

describe("the OAuth endpoints past their per-address budget", () => {
  it("answer 429 with Retry-After, and the document lists it", async () => {
    const conformance = openApiConformance(doc);
    const form = "application/x-www-form-urlencoded";
    const requests: { method: string; path: string; raw?: string; contentType?: string }[] = [
      { method: "GET", path: "/.well-known/oauth-authorization-server" },
      {
        method: "POST",
        path: "/api/oauth/revoke",
        raw: "token=x&client_id=app_x&client_secret=y",
        contentType: form,
      },
      {
        method: "POST",
        path: "/api/oauth/token",
        raw: "grant_type=refresh_token&refresh_token=x",
        contentType: form,
      },
    ];
    const answers: { method: string; path: string; status: number; headers: Headers; text: string }[] = [];
    for (const { method, path, raw, contentType } of requests) {
      for (let i = 0; i < 3; i++) {
        const res = await t.api.request(method, path, { raw, contentType });
        answers.push({ method, path, status: res.status, headers: res.headers, text: res.text });
      }
    }
    // The authorization endpoint has a budget of its own; the three above share one.
    for (let i = 0; i < 3; i++) {
      const res = await t.api.get("/api/oauth/authorize?client_id=app_x");
      answers.push({ method: "GET", path: "/api/oauth/authorize", ...res });
    }
    for (const { method, path, status, headers, text } of answers) {
      expect(conformance.check({ method, url: path, status, headers, text }), `${method} ${path}`).toEqual(
        [],
      );
    }
    const limited = answers.filter((a) => a.status === 429);
    expect(new Set(limited.map((a) => `${a.method} ${a.path}`))).toEqual(
      new Set([
        "GET /.well-known/oauth-authorization-server",
        "POST /api/oauth/revoke",
        "POST /api/oauth/token",
        "GET /api/oauth/authorize",
      ]),
    );
    for (const a of limited) expect(Number(a.headers.get("retry-after")), a.path).toBeGreaterThan(0);
  });
});
