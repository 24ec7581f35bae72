// Issue 47, Wedding-date risk: an owner sets the shop's lead times and risk rules on Settings →
// Order dates and risk (/dashboard/settings/order-dates), over real HTTP as a signed-in browser.
// The defaults show until the shop chooses; a saved rule makes an order at risk on Today and on
// its page at once, with order.at_risk once; a lead time moves the due date the order shows;
// refused input is the form again naming the field, in the reader's language, with nothing saved;
// staff get the owners-only 403; another shop keeps its own settings.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.ts";
import { sweepOrderAlerts } from "../../src/modules/orders/order-alerts.service.ts";
import type { Browser, PageResponse } from "../helpers/browser.ts";
import { csrfOf, filledForm, flashOf, follow, signedInBrowser } from "../helpers/dashboard.ts";
import { createMember, createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";
import { day } from "./seed.ts";

const t = useTestApp();
const PATH = "/dashboard/settings/order-dates";

async function shop(name = "Dates Bridal") {
  const { vendor, key } = await createVendorWithKey(t.ctx, name);
  const browser = await signedInBrowser(t, vendor.email);
  return { vendor, key, browser };
}

async function bridalOrder(key: string, weddingDate: string) {
  const order = await t.api.post(
    "/api/vendor/orders",
    { customerName: "Wanda Wedding", type: "BRIDAL_DRESS", weddingDate, model: "Aurora" },
    { key },
  );
  expect(order.status).toBe(201);
  return order.body as { id: string; dueDate: string | null };
}

/** The settings page's form as the browser would send it, with `changes` typed in. */
async function submit(browser: Browser, changes: Record<string, string>): Promise<PageResponse> {
  const page = await browser.get(PATH);
  expect(page.status).toBe(200);
  return browser.post(PATH, { ...filledForm(page, PATH), action: "save", ...changes });
}

async function storedSettings(vendorId: string) {
  const [row] = await queryRows<{ leadTimes: unknown; riskRules: unknown }>(
    t.ctx.db,
    sql`select lead_times as "leadTimes", risk_rules as "riskRules" from vendors where id = ${vendorId}`,
  );
  return row;
}

async function atRiskEvents(orderId: string) {
  const rows = await queryRows<{ rule: string }>(
    t.ctx.db,
    sql`select (data->'rule'->>'status') || ':' || (data->'rule'->>'daysBefore') as rule from events
        where type = 'order.at_risk' and data->'order'->>'id' = ${orderId} order by created_at, id`,
  );
  return rows.map((r) => r.rule);
}

/** The selected option of the select named `name`, and the value of the input named `name`. */
const selected = (text: string, name: string) =>
  new RegExp(`<select id="[^"]*" name="${name}"[^>]*>[\\s\\S]*?<option value="([^"]*)" selected>`).exec(
    text,
  )?.[1];
const inputValue = (text: string, name: string) =>
  new RegExp(`name="${name.replaceAll(".", "\\.")}"[^>]*value="([^"]*)"`).exec(text)?.[1];
const unitOf = (text: string, type: string) =>
  new RegExp(`name="leadUnit\\.${type}"[^>]*>[\\s\\S]*?<option value="([^"]*)" selected>`).exec(text)?.[1];

describe("Settings → Order dates and risk", () => {
  it("is linked from Settings and shows the default lead times and rules until the shop chooses", async () => {
    const { vendor, browser } = await shop();
    const settings = await browser.get("/dashboard/settings");
    expect(settings.text).toContain(`href="${PATH}"`);
    const page = await browser.get(PATH);
    expect(page.status).toBe(200);
    expect(page.text).toContain("<h1>Order dates and risk</h1>");
    // 56, 28 and 7 days: shown as 8, 4 and 1 weeks, each with its default named.
    expect([inputValue(page.text, "leadDays.BRIDAL_DRESS"), unitOf(page.text, "BRIDAL_DRESS")]).toEqual([
      "8",
      "weeks",
    ]);
    expect([inputValue(page.text, "leadDays.SUIT"), unitOf(page.text, "SUIT")]).toEqual(["4", "weeks"]);
    expect([inputValue(page.text, "leadDays.RENTAL"), unitOf(page.text, "RENTAL")]).toEqual(["1", "weeks"]);
    expect(page.text).toContain("Default: 56 days");
    // The two default rules, then blank rows to add more.
    expect(selected(page.text, "rules.0.status")).toBe("FITTING_READY");
    expect(inputValue(page.text, "rules.0.daysBefore")).toBe("56");
    expect(selected(page.text, "rules.1.status")).toBe("READY_FOR_PICKUP");
    expect(inputValue(page.text, "rules.1.daysBefore")).toBe("14");
    expect(inputValue(page.text, "rules.2.daysBefore")).toBe("");
    expect(page.text).toContain("At risk when not");
    expect(page.text).toContain("ready for fitting");
    expect(await storedSettings(vendor.id)).toEqual({ leadTimes: null, riskRules: null });
  });

  it("a saved rule makes an order at risk on Today and its page at once, with order.at_risk once; another shop is unaffected", async () => {
    const { vendor, key, browser } = await shop();
    const other = await shop("Other Dates Bridal");
    const order = await bridalOrder(key, day(100));
    const untouched = await bridalOrder(other.key, day(100));
    // 100 days before the wedding: no default rule reaches that far.
    expect(await atRiskEvents(order.id)).toEqual([]);
    expect((await browser.get("/dashboard/today")).text).not.toContain('data-section="atRisk"');
    expect((await browser.get(`/dashboard/orders/${order.id}`)).text).not.toContain('data-status="AT_RISK"');

    const saved = await follow(
      browser,
      await submit(browser, {
        "rules.0.status": "FITTING_READY",
        "rules.0.daysBefore": "120",
        "rules.1.remove": "on",
      }),
    );
    expect(flashOf(saved)).toEqual({
      kind: "success",
      text: "Order dates and risk rules saved. Open orders were checked against them.",
    });
    expect(selected(saved.text, "rules.0.status")).toBe("FITTING_READY");
    expect(inputValue(saved.text, "rules.0.daysBefore")).toBe("120");
    // One rule, then two blank rows.
    expect(inputValue(saved.text, "rules.1.daysBefore")).toBe("");
    expect(inputValue(saved.text, "rules.2.daysBefore")).toBe("");
    expect(saved.text).not.toContain('name="rules.3.status"');
    expect(await storedSettings(vendor.id)).toEqual({
      leadTimes: null,
      riskRules: [{ status: "FITTING_READY", daysBefore: 120 }],
    });
    // Evaluated with the save: the event is there before any sweep.
    expect(await atRiskEvents(order.id)).toEqual(["FITTING_READY:120"]);

    const today = await browser.get("/dashboard/today");
    expect(today.text).toContain('data-section="atRisk"');
    expect(today.text).toContain(`href="/dashboard/orders/${order.id}"`);
    expect(today.text).toMatch(/not ready for fitting 120 days before/);
    const orderPage = await browser.get(`/dashboard/orders/${order.id}`);
    expect(orderPage.text).toContain('data-status="AT_RISK"');
    expect(orderPage.text).toMatch(/not ready for fitting 120 days before/);

    // Saved again and swept twice: still the one event.
    expect((await submit(browser, {})).status).toBe(303);
    await sweepOrderAlerts(t.ctx);
    await sweepOrderAlerts(t.ctx);
    expect(await atRiskEvents(order.id)).toEqual(["FITTING_READY:120"]);

    // The other shop: its defaults, its order not at risk.
    expect(await storedSettings(other.vendor.id)).toEqual({ leadTimes: null, riskRules: null });
    expect(await atRiskEvents(untouched.id)).toEqual([]);
    expect((await other.browser.get("/dashboard/today")).text).not.toContain('data-section="atRisk"');
    expect(inputValue((await other.browser.get(PATH)).text, "rules.0.daysBefore")).toBe("56");
  });

  it("a lead time moves the due date an order shows, and the defaults come back on request", async () => {
    const { vendor, key, browser } = await shop();
    const order = await bridalOrder(key, "2031-06-20");
    // 8 weeks before the wedding.
    expect(order.dueDate).toBe("2031-04-25");
    expect((await browser.get(`/dashboard/orders/${order.id}`)).text).toContain("Apr 25, 2031");

    const saved = await submit(browser, { "leadDays.BRIDAL_DRESS": "10", "leadUnit.BRIDAL_DRESS": "weeks" });
    expect(saved.status).toBe(303);
    // Only the type that differs from its default is stored; the rules stay the defaults.
    expect(await storedSettings(vendor.id)).toEqual({ leadTimes: { BRIDAL_DRESS: 70 }, riskRules: null });
    const page = await browser.get(`/dashboard/orders/${order.id}`);
    expect(page.text).toContain("Apr 11, 2031");
    expect(page.text).not.toContain("Apr 25, 2031");
    expect((await t.api.get(`/api/vendor/orders/${order.id}`, { key })).body.dueDate).toBe("2031-04-11");

    // In days, too.
    expect(
      (await submit(browser, { "leadDays.BRIDAL_DRESS": "60", "leadUnit.BRIDAL_DRESS": "days" })).status,
    ).toBe(303);
    expect((await t.api.get(`/api/vendor/orders/${order.id}`, { key })).body.dueDate).toBe("2031-04-21");

    const reset = await follow(browser, await submit(browser, { action: "reset" }));
    expect(flashOf(reset)?.kind).toBe("success");
    expect(await storedSettings(vendor.id)).toEqual({ leadTimes: null, riskRules: null });
    expect((await t.api.get(`/api/vendor/orders/${order.id}`, { key })).body.dueDate).toBe("2031-04-25");
  });

  it("refuses invalid input with the form again, each field named, values kept, nothing saved", async () => {
    const { vendor, key, browser } = await shop();
    const order = await bridalOrder(key, day(100));
    const refused = await submit(browser, {
      "leadDays.SUIT": "abc",
      // Row 1 stays the default FITTING_READY 56; row 2 says it again.
      "rules.1.status": "FITTING_READY",
      "rules.1.daysBefore": "56",
      "rules.2.daysBefore": "120",
      "rules.3.status": "IN_PRODUCTION",
      "rules.3.daysBefore": "400",
    });
    expect(refused.status).toBe(400);
    // Beside each field, tied to it, and listed above the form by the field's name.
    expect(refused.text).toMatch(/id="leadDays-SUIT" name="leadDays\.SUIT"[^>]*aria-invalid="true"/);
    expect(refused.text).toContain('id="leadDays-SUIT-error"');
    expect(refused.text).toMatch(/name="rules\.3\.daysBefore"[^>]*aria-invalid="true"/);
    expect(refused.text).toMatch(/name="rules\.2\.status"[^>]*aria-invalid="true"/);
    expect(refused.text).toContain(
      "Suit</a>: Enter a whole number up to 730 days (104 weeks), or leave it empty for the default.",
    );
    expect(refused.text).toContain("Rule 4</a>: Enter a whole number of days from 1 to 365.");
    expect(refused.text).toContain("Rule 2</a>: This rule is given twice.");
    expect(refused.text).toContain("Rule 3</a>: Choose the status this rule asks for.");
    // What was typed is still there.
    expect(inputValue(refused.text, "leadDays.SUIT")).toBe("abc");
    expect(inputValue(refused.text, "rules.3.daysBefore")).toBe("400");
    expect(selected(refused.text, "rules.3.status")).toBe("IN_PRODUCTION");
    expect(inputValue(refused.text, "rules.2.daysBefore")).toBe("120");
    expect(await storedSettings(vendor.id)).toEqual({ leadTimes: null, riskRules: null });
    expect(await atRiskEvents(order.id)).toEqual([]);

    // In the shop's language.
    await t.ctx.db.execute(sql`update vendors set language = 'de' where id = ${vendor.id}`);
    const german = await submit(browser, { "rules.0.daysBefore": "0" });
    expect(german.status).toBe(400);
    expect(german.text).toContain("Regel 1</a>: Geben Sie eine ganze Zahl von Tagen zwischen 1 und 365 ein.");
    expect(await storedSettings(vendor.id)).toEqual({ leadTimes: null, riskRules: null });
  });

  it("answers staff the owners-only 403, on the page and its form", async () => {
    const { vendor } = await shop();
    const staff = await createMember(t.ctx, vendor.id, {
      role: "staff",
      email: `staff-${vendor.id}@example.test`,
    });
    const browser = await signedInBrowser(t, staff.email);
    expect((await browser.get(PATH)).status).toBe(403);
    const today = await browser.get("/dashboard/today");
    const post = await browser.post(PATH, {
      _csrf: csrfOf(today),
      action: "save",
      "rules.0.status": "FITTING_READY",
      "rules.0.daysBefore": "120",
    });
    expect(post.status).toBe(403);
    const reset = await browser.post(PATH, { _csrf: csrfOf(today), action: "reset" });
    expect(reset.status).toBe(403);
    expect(await storedSettings(vendor.id)).toEqual({ leadTimes: null, riskRules: null });
  });
});
