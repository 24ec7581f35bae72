// Dashboard lists are a fixed number of statements whatever their length (no N+1): a page with
// 20 rows sends exactly as many as the same page with 1 row.
import { describe, expect, it } from "vitest";
import { createApiKey } from "../../src/modules/api-keys/api-keys.service.ts";
import { createCustomer } from "../../src/modules/customers/customers.service.ts";
import { receiveInquiry } from "../../src/modules/inquiries/inquiries.service.ts";
import type { Browser } from "../helpers/browser.ts";
import { signedInBrowser } from "../helpers/dashboard.ts";
import { createMember, createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

async function statementsFor(browser: Browser, path: string, rowPattern: RegExp, rows: number) {
  // Every vendor also has the customer the orders and appointments belong to.
  if (path === "/dashboard/customers") rows += 1;
  // And its first owner, who is signed in, on the team page.
  if (path === "/dashboard/settings/team") rows += 1;
  await browser.get(path); // warm up: a first request may refresh the session
  const before = t.database.queryCount();
  const page = await browser.get(path);
  const count = t.database.queryCount() - before;
  expect(page.status).toBe(200);
  expect([...page.text.matchAll(rowPattern)]).toHaveLength(rows);
  return count;
}

interface Seeded {
  vendorId: string;
  key: string;
  customerId: string;
}
type Seed = (s: Seeded, i: number) => Promise<unknown>;

const appointment: Seed = (s, i) =>
  t.api.post(
    "/api/vendor/appointments",
    { customerId: s.customerId, type: "FITTING", date: new Date(Date.UTC(2031, 0, 1 + i)).toISOString() },
    { key: s.key },
  );
const order: Seed = (s, i) =>
  t.api.post(
    "/api/vendor/orders",
    { customerName: `C${i}`, customerEmail: "same@example.test", type: "SUIT" },
    { key: s.key },
  );

/** An order in the vendor's sandbox (CONTRACT 11), through a test key made once per vendor. */
const testKeys = new Map<string, string>();
const sandboxOrder: Seed = async (s, i) => {
  let key = testKeys.get(s.vendorId);
  if (!key) {
    key = (await createApiKey(t.ctx, { vendorId: s.vendorId, name: "tests", test: true })).key;
    testKeys.set(s.vendorId, key);
  }
  return t.api.post("/api/vendor/orders", { customerName: `C${i}`, type: "SUIT" }, { key });
};

const cases: Array<[string, (s: Seeded) => string, RegExp, Seed]> = [
  [
    "sandbox page (orders)",
    () => "/dashboard/integrations/sandbox",
    /<tr><td>C\d+<div class="muted"><code>/g,
    sandboxOrder,
  ],
  ["orders list", () => "/dashboard/orders", /<tr>\n<td><a href="\/dashboard\/orders\//g, order],
  [
    "customers list",
    () => "/dashboard/customers",
    /<tr><td><a href="\/dashboard\/customers\//g,
    (s, i) => createCustomer(t.ctx, s.vendorId, { name: `C${i}` }),
  ],
  ["appointments list", () => "/dashboard/appointments", /<tr data-id=/g, appointment],
  [
    "inquiries list",
    () => "/dashboard/inquiries",
    /<tr><td><a href="\/dashboard\/inquiries\//g,
    (s, i) => receiveInquiry(t.ctx, s.vendorId, { name: "N", email: "n@example.test", message: `${i}` }),
  ],
  ["activity page", () => "/dashboard/activity?kind=order", /<tr data-action="order\./g, order],
  [
    "team page",
    () => "/dashboard/settings/team",
    /<tr data-member-id=/g,
    (s, i) => createMember(t.ctx, s.vendorId, { name: `Member ${i}` }),
  ],
  [
    "customer page (orders)",
    (s) => `/dashboard/customers/${s.customerId}`,
    /<li><a href="\/dashboard\/orders\//g,
    order,
  ],
  [
    "customer page (appointments)",
    (s) => `/dashboard/customers/${s.customerId}`,
    /<li><a href="\/dashboard\/appointments\//g,
    appointment,
  ],
];

async function seeded(rows: number, seed: Seed): Promise<{ s: Seeded; browser: Browser }> {
  const { vendor, key } = await createVendorWithKey(t.ctx);
  const customer = await t.api.post(
    "/api/vendor/customers",
    { name: "Same", email: "same@example.test" },
    { key },
  );
  const s = { vendorId: vendor.id, key, customerId: customer.body.id as string };
  for (let i = 0; i < rows; i++) await seed(s, i);
  return { s, browser: await signedInBrowser(t, vendor.email) };
}

describe("dashboard statements per page (1 row vs 20 rows)", () => {
  for (const [name, path, rowPattern, seed] of cases) {
    it(`the ${name} sends the same number of statements for 1 and 20 rows`, async () => {
      const one = await seeded(1, seed);
      const many = await seeded(20, seed);
      const forOne = await statementsFor(one.browser, path(one.s), rowPattern, 1);
      const forMany = await statementsFor(many.browser, path(many.s), rowPattern, 20);
      expect(forMany).toBe(forOne);
    });
  }
});
