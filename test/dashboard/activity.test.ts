// The Activity page (CONTRACT 10): the shop's log, newest first, in the shop's time zone,
// naming the person, the API key and the OAuth application; filtered by who and by kind of record
// with a plain GET form; paged by keyset, the filters kept from page to page.
import { describe, expect, it } from "vitest";
import { shownDateTime } from "../../src/dashboard/layout.ts";
import { createApiKey } from "../../src/modules/api-keys/api-keys.service.ts";
import { updateShopSettings } from "../../src/modules/vendors/shop-settings.ts";
import { decodeEntities, type PageResponse } from "../helpers/browser.ts";
import { follow, postFrom, signedInBrowser } from "../helpers/dashboard.ts";
import { createVendor } from "../helpers/factories.ts";
import { authorizeCode, createClient, exchangeCode } from "../helpers/oauth.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

interface Entry {
  action: string;
  who: string;
  whoKind: string;
  datetime: string;
  shown: string;
}

function entriesOf(page: PageResponse): Entry[] {
  expect(page.status, page.text.slice(0, 300)).toBe(200);
  return [
    ...page.text.matchAll(
      /<tr data-action="([^"]+)"><td><time datetime="([^"]+)">([^<]+)<\/time><\/td>\s*<td class="actor" data-actor-kind="([^"]+)">([^<]*)<\/td>/g,
    ),
  ].map((m) => ({
    action: m[1] ?? "",
    datetime: m[2] ?? "",
    shown: decodeEntities(m[3] ?? ""),
    whoKind: m[4] ?? "",
    who: decodeEntities(m[5] ?? ""),
  }));
}

const order = { customerName: "Ana", customerEmail: "ana@example.test", type: "SUIT" };

/** A shop in Tokyo with writes by its person, its API key "Counter POS" and the app "Bridal POS". */
async function busyShop() {
  const client = await createClient(t.ctx);
  const vendor = await createVendor(t.ctx, "Tokyo Bridal");
  await updateShopSettings(t.ctx, vendor.id, {
    name: "Tokyo Bridal",
    contactEmail: null,
    timeZone: "Asia/Tokyo",
  });
  const { key } = await createApiKey(t.ctx, { vendorId: vendor.id, name: "Counter POS" });
  const byKey = await t.api.post("/api/vendor/orders", order, { key });
  expect(byKey.status).toBe(201);
  const { code, verifier, browser } = await authorizeCode(t, client, {
    email: vendor.email,
    scope: "orders:write",
  });
  const token = (await exchangeCode(t, client, code, verifier)).body.access_token as string;
  const byApp = await t.api.post("/api/vendor/orders", order, { token });
  expect(byApp.status).toBe(201);
  const moved = await postFrom(
    browser,
    `/dashboard/orders/${byApp.body.id}`,
    `/dashboard/orders/${byApp.body.id}/status`,
    {
      status: "IN_PRODUCTION",
      message: "",
    },
  );
  await follow(browser, moved);
  return { vendor, browser, orderByKey: byKey.body.id as string, orderByApp: byApp.body.id as string };
}

describe("the Activity page", () => {
  it("names the person, the API key and the application, newest first, in the shop's time zone", async () => {
    const { vendor, browser, orderByApp } = await busyShop();
    const page = await browser.get("/dashboard/activity");
    const entries = entriesOf(page);
    expect(entries.map((e) => [e.action, e.whoKind, e.who])).toEqual([
      ["order.status_changed", "person", vendor.email],
      ["order.created", "oauth_app", "Application “Bridal POS”"],
      ["application.authorized", "person", vendor.email],
      ["order.created", "api_key", "API key “Counter POS”"],
      ["api_key.created", "system", "The service"],
      ["settings.changed", "system", "The service"],
    ]);
    // In the reader's language (English) and the shop's zone: "Dec 3, 2026, 05:28 AM GMT+9".
    const tokyo = new Intl.DateTimeFormat("en", { ...shownDateTime, timeZone: "Asia/Tokyo" });
    for (const e of entries) expect(e.shown).toBe(tokyo.format(new Date(e.datetime)));
    expect(entries[0]?.shown).toMatch(/^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d\d:\d\d [AP]M GMT\+9$/);
    expect(page.text).toContain(`href="/dashboard/orders/${orderByApp}"`);
    expect(page.text).toContain("Ordered → In production");
  });

  it("filters by who and by kind of record, and keeps the filters on the next page", async () => {
    const { browser } = await busyShop();
    const all = await browser.get("/dashboard/activity");
    const options = [...all.text.matchAll(/<option value="((?:api_key|oauth_app|person):[^"]+)"/g)].map(
      (m) => m[1] ?? "",
    );
    const keyFilter = options.find((o) => o.startsWith("api_key:")) as string;
    const appFilter = options.find((o) => o.startsWith("oauth_app:")) as string;
    expect(keyFilter).toBeDefined();
    expect(appFilter).toBeDefined();
    const byKey = entriesOf(await browser.get(`/dashboard/activity?actor=${encodeURIComponent(keyFilter)}`));
    expect(byKey.map((e) => [e.action, e.who])).toEqual([["order.created", "API key “Counter POS”"]]);
    const byApp = entriesOf(await browser.get(`/dashboard/activity?actor=${encodeURIComponent(appFilter)}`));
    expect(byApp.map((e) => e.action)).toEqual(["order.created"]);
    const orders = entriesOf(await browser.get("/dashboard/activity?kind=order"));
    expect(orders.map((e) => e.action)).toEqual(["order.status_changed", "order.created", "order.created"]);

    // Paged by keyset, one entry a page: the filter travels with the cursor.
    const first = await browser.get("/dashboard/activity?kind=order&limit=1");
    expect(entriesOf(first).map((e) => e.action)).toEqual(["order.status_changed"]);
    const next = decodeEntities(
      /href="(\/dashboard\/activity\?[^"]*cursor=[^"]+)"/.exec(first.text)?.[1] ?? "",
    );
    expect(next).toContain("kind=order");
    const second = await browser.get(next);
    expect(entriesOf(second).map((e) => [e.action, e.whoKind])).toEqual([["order.created", "oauth_app"]]);
  });

  it("ignores filter values it does not know, shows only the shop's own entries, and a bad cursor is a 400 page", async () => {
    const { browser } = await busyShop();
    const other = await busyShop();
    const everything = entriesOf(await browser.get("/dashboard/activity"));
    const odd = entriesOf(await browser.get("/dashboard/activity?actor=nobody%3Ax%3Ay&kind=%3Cscript%3E"));
    expect(odd).toEqual(everything);
    const page = await browser.get("/dashboard/activity");
    expect(page.text).not.toContain(other.orderByKey);
    expect(page.text).not.toContain(other.vendor.email);
    const bad = await browser.get("/dashboard/activity?cursor=garbage");
    expect(bad.status).toBe(400);
    expect(bad.headers.get("content-type")).toContain("text/html");
  });

  it("is in the dashboard's menu and works without a session only through the sign-in page", async () => {
    const vendor = await createVendor(t.ctx);
    const browser = await signedInBrowser(t, vendor.email);
    const orders = await browser.get("/dashboard/orders");
    expect(orders.text).toContain('href="/dashboard/activity"');
    const anonymous = await fetch(`${t.url}/dashboard/activity`, { redirect: "manual" });
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get("location")).toContain("/login");
  });
});
