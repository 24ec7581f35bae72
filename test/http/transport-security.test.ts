// Strict-Transport-Security (RFC 6797) in production (the audit's low findings): every answer,
// API and pages, tells browsers to use https only for two years, subdomains included; in
// development and tests (plain http on localhost) no answer does.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createVendorWithKey } from "../helpers/factories.ts";
import { startTestApp, type TestApp, useTestApp } from "../helpers/test-app.ts";

const HSTS = "max-age=63072000; includeSubDomains";
const testMode = useTestApp();

describe("Strict-Transport-Security", () => {
  let prod: TestApp;
  beforeAll(async () => {
    prod = await startTestApp({ env: { NODE_ENV: "production", SESSION_SECRET: "s".repeat(40) } });
  });
  afterAll(() => prod.close());

  it("is on every answer in production: pages, API answers, errors", async () => {
    const { key } = await createVendorWithKey(prod.ctx);
    const answers = await Promise.all([
      fetch(`${prod.url}/login`),
      fetch(`${prod.url}/health`),
      fetch(`${prod.url}/api/vendor/orders`, { headers: { "x-api-key": key } }),
      fetch(`${prod.url}/api/vendor/orders`),
      fetch(`${prod.url}/no-such-page`),
    ]);
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 401, 404]);
    for (const r of answers) expect(r.headers.get("strict-transport-security")).toBe(HSTS);
  });

  it("is not sent outside production", async () => {
    const res = await fetch(`${testMode.url}/login`);
    expect(res.status).toBe(200);
    expect(res.headers.get("strict-transport-security")).toBeNull();
  });
});
