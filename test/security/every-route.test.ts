// Every route the app registers, the OAuth, sign-in, public and page routes included, held to the
// same answer hygiene: RateLimit headers, nosniff, no-store, and no 5xx for a NUL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { signedInBrowser } from "../helpers/oauth.ts";
import { everyRouteHygieneSuite, type HygieneCredentials } from "../helpers/security-suite.ts";
import { openTestDatabase, startTestApp, type TestApp } from "../helpers/test-app.ts";

// The route list is read from the app itself (collected before any test runs), so a new route
// is held to the suite without anyone adding it here.
const catalogApp = await buildApp({
  config: loadConfig({ NODE_ENV: "test" }),
  database: await openTestDatabase(),
});
await catalogApp.ready();
const routes = catalogApp.routeCatalog.map(({ method, url }) => ({ method, url }));
await catalogApp.close();

let t: TestApp;
let credentials: HygieneCredentials;
beforeAll(async () => {
  t = await startTestApp();
  const { vendor, key } = await createVendorWithKey(t.ctx);
  const browser = await signedInBrowser(t, vendor.email);
  const cookie = [...browser.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  credentials = { key, cookie, vendorId: vendor.id };
});
afterAll(() => t.close());

describe("the route list", () => {
  it("covers the OAuth, sign-in, public, tracking and dashboard routes", () => {
    const titles = routes.map((r) => `${r.method} ${r.url}`);
    for (const title of [
      "POST /api/oauth/token",
      "POST /api/oauth/revoke",
      "GET /api/oauth/authorize",
      "POST /login",
      "POST /api/public/vendors/:vendorId/inquiries",
      "GET /track/:token",
      "GET /dashboard/orders",
    ]) {
      expect(titles).toContain(title);
    }
  });
});

everyRouteHygieneSuite(
  () => t,
  routes,
  () => credentials,
);
