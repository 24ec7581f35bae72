// The shop owner's daily work in the dashboard, over real HTTP: navigation with an
// Integrations landing page, shop settings and their time zone, creating and editing through the
// API's services (same webhooks), search, filters, CSV, inquiries, webhook health, HTML 404s and
// remembered OAuth consent. The Chromium flows are in shop.browser.test.ts.
import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids.ts";
import { csvCell, toCsv } from "../../src/web/csv.ts";
import { decodeEntities } from "../helpers/browser.ts";
import { flashOf, follow, formFields, signedInBrowser, submitForm } from "../helpers/dashboard.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import {
  authorizeCode,
  authorizePath,
  createClient,
  exchangeCode,
  pkcePair,
  REDIRECT_URI,
  redirectParams,
  validParams,
} from "../helpers/oauth.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

async function shop(name = "Shop Bridal") {
  const { vendor, key } = await createVendorWithKey(t.ctx, name);
  const browser = await signedInBrowser(t, vendor.email);
  return { vendor, key, browser };
}

const eventsOf = async (key: string) =>
  ((await t.api.get("/api/vendor/events", { key })).body.events as Array<{ event: string }>).map(
    (e) => e.event,
  );

describe("navigation", () => {
  it("has eight sections with Integrations as one landing page listing the four integration kinds with counts", async () => {
    const { key, browser } = await shop();
    await t.api.post(
      "/api/vendor/webhooks",
      { url: "http://127.0.0.1:9/hook", events: ["order.created"] },
      { key },
    );
    const page = await browser.get("/dashboard/integrations");
    expect(page.status).toBe(200);
    const nav = /<nav class="main"[^>]*>([\s\S]*?)<\/nav>/.exec(page.text)?.[1] ?? "";
    const labels = [...nav.matchAll(/>([^<]+)<\/a>/g)].map((m) => m[1]);
    expect(labels).toEqual([
      "Today",
      "Orders",
      "Customers",
      "Appointments",
      "Inquiries",
      "Integrations",
      "Settings",
      "Activity",
    ]);
    expect(nav).toMatch(/href="\/dashboard\/integrations" aria-current="page"/);
    for (const kind of ["api-keys", "applications", "connected-apps", "webhooks"]) {
      expect(page.text).toContain(`data-integration="${kind}"`);
      expect(page.text).toContain(`href="/dashboard/integrations/${kind}"`);
    }
    expect(page.text).toContain("1 active key");
    expect(page.text).toContain("1 webhook<");
    // A sub-page keeps "Integrations" highlighted.
    const keys = await browser.get("/dashboard/integrations/api-keys");
    expect(keys.text).toMatch(/href="\/dashboard\/integrations" aria-current="page"/);
  });

  it("unknown dashboard URLs answer an HTML 404 page, not JSON", async () => {
    const { browser } = await shop();
    const res = await browser.get("/dashboard/no-such-page");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.text).toContain("<h1>Not found</h1>");
  });
});

describe("shop settings and time zone", () => {
  it("saves name, contact e-mail and time zone; times everywhere (tracking page too) move; the API stays UTC", async () => {
    const { key, browser } = await shop();
    const order = await t.api.post(
      "/api/vendor/orders",
      { customerName: "Ana", customerEmail: "ana@example.test", type: "SUIT", model: "Lisboa" },
      { key },
    );
    const appt = await t.api.post(
      "/api/vendor/appointments",
      { customerId: order.body.customerId, type: "FITTING", date: "2031-05-01T07:30:00Z" },
      { key },
    );
    const before = await browser.get(`/dashboard/appointments/${appt.body.id}`);
    expect(before.text).toContain(
      '<time datetime="2031-05-01T07:30:00.000Z">May 1, 2031, 07:30 AM UTC</time>',
    );

    const settings = await browser.get("/dashboard/settings");
    const saved = await follow(
      browser,
      await submitForm(browser, settings, "/dashboard/settings", {
        name: "Loja Ana",
        contactEmail: "hello@loja.example",
        timeZone: "America/Sao_Paulo",
      }),
    );
    expect(flashOf(saved)).toEqual({
      kind: "success",
      text: "Settings saved. Times are shown in America/Sao_Paulo.",
    });
    expect(saved.text).toContain('value="hello@loja.example"');
    const after = await browser.get(`/dashboard/appointments/${appt.body.id}`);
    expect(after.text).toContain(
      '<time datetime="2031-05-01T07:30:00.000Z">May 1, 2031, 04:30 AM GMT-3</time>',
    );
    expect(after.text).toContain("Loja Ana");

    const orderPage = await browser.get(`/dashboard/orders/${order.body.id}`);
    const tracking = decodeEntities(/id="tracking-url"[^>]*value="([^"]+)"/.exec(orderPage.text)?.[1] ?? "");
    const trackingPage = await fetch(tracking).then((r) => r.text());
    // The customer's page shows the shop's local time (in her language, English here).
    const shown = /<time datetime="([^"]+)">([^<]+)<\/time>/.exec(trackingPage);
    const local = new Intl.DateTimeFormat("en", {
      timeZone: "America/Sao_Paulo",
      dateStyle: "medium",
      timeStyle: "short",
    });
    expect(shown?.[2]).toBe(local.format(new Date(shown?.[1] ?? "")));

    // The API is unchanged: UTC instants.
    expect((await t.api.get(`/api/vendor/appointments/${appt.body.id}`, { key })).body.date).toBe(
      "2031-05-01T07:30:00.000Z",
    );
  });

  it("refuses an unknown time zone or a malformed contact e-mail, naming the field, and keeps the old settings", async () => {
    const { browser } = await shop("Keep Bridal");
    const settings = await browser.get("/dashboard/settings");
    const res = await follow(
      browser,
      await submitForm(browser, settings, "/dashboard/settings", {
        name: "X",
        contactEmail: "not-an-email",
        timeZone: "Mars/Olympus",
      }),
    );
    expect(flashOf(res)?.kind).toBe("error");
    expect(flashOf(res)?.text).toContain("contactEmail must be an e-mail address");
    expect(flashOf(res)?.text).toContain("timeZone must be an IANA time zone");
    expect(res.text).toContain("Keep Bridal");
  });

  it("reads a typed date in the shop's zone when booking an appointment", async () => {
    const { key, browser } = await shop();
    const customer = await t.api.post("/api/vendor/customers", { name: "Bea" }, { key });
    const settings = await browser.get("/dashboard/settings");
    await submitForm(browser, settings, "/dashboard/settings", {
      name: "Z",
      contactEmail: "",
      timeZone: "Europe/Lisbon",
    });
    const form = await browser.get(`/dashboard/appointments/new?customerId=${customer.body.id}`);
    const booked = await follow(
      browser,
      await submitForm(browser, form, "/dashboard/appointments", {
        customerId: customer.body.id,
        type: "FITTING",
        date: "2031-07-15T10:00",
        duration: "45",
        notes: "",
      }),
    );
    expect(flashOf(booked)?.text).toBe("Appointment booked.");
    const list = await t.api.get("/api/vendor/appointments", { key });
    expect(list.body.appointments.map((a: any) => [a.date, a.duration])).toEqual([
      ["2031-07-15T09:00:00.000Z", 45],
    ]);
  });
});

describe("creating and editing from the dashboard", () => {
  it("creates an order through the orders service: order.created (and customer.created) are emitted", async () => {
    const { key, browser } = await shop();
    const form = await browser.get("/dashboard/orders/new");
    const created = await follow(
      browser,
      await submitForm(browser, form, "/dashboard/orders", {
        customerName: "Carla",
        customerEmail: "carla@example.test",
        customerPhone: "+351 900",
        weddingDate: "",
        type: "BRIDAL_DRESS",
        model: "Aurora",
        size: "38",
        color: "",
        description: "",
        specialRequests: "",
      }),
    );
    expect(flashOf(created)?.text).toBe("Order created.");
    const orders = (await t.api.get("/api/vendor/orders", { key })).body.orders;
    expect(orders.map((o: any) => [o.model, o.size, o.customer.email])).toEqual([
      ["Aurora", "38", "carla@example.test"],
    ]);
    expect((await eventsOf(key)).sort()).toEqual(["customer.created", "order.created"]);
  });

  it("shows a refused new order again with the field's error and 400, creating nothing", async () => {
    const { key, browser } = await shop();
    const form = await browser.get("/dashboard/orders/new");
    const res = await submitForm(browser, form, "/dashboard/orders", {
      customerName: " ",
      customerEmail: "nope",
      type: "BRIDAL_DRESS",
    });
    expect(res.status).toBe(400);
    expect(res.text).toContain('id="customerEmail-error"');
    expect((await t.api.get("/api/vendor/orders", { key })).body.orders).toEqual([]);
  });

  it("edits an order's details and emits order.updated", async () => {
    const { key, browser } = await shop();
    const order = await t.api.post(
      "/api/vendor/orders",
      { customerName: "D", type: "SUIT", model: "Old" },
      { key },
    );
    const page = await browser.get(`/dashboard/orders/${order.body.id}`);
    const saved = await follow(
      browser,
      await submitForm(browser, page, `/dashboard/orders/${order.body.id}/details`, {
        model: "New",
        size: "52",
        color: "Navy",
        description: "",
        specialRequests: "",
      }),
    );
    expect(flashOf(saved)?.text).toBe("Order details saved.");
    const after = (await t.api.get(`/api/vendor/orders/${order.body.id}`, { key })).body;
    expect([after.model, after.size, after.color, after.status]).toEqual(["New", "52", "Navy", "ORDERED"]);
    expect(await eventsOf(key)).toContain("order.updated");
  });

  it("adds a customer through the customers service (customer.created), a taken e-mail is shown on the form", async () => {
    const { key, browser } = await shop();
    const form = await browser.get("/dashboard/customers/new");
    const fields = {
      name: "Eva",
      email: "eva@example.test",
      phone: "",
      weddingDate: "",
      notes: "",
      measurements: "",
      preferences: "",
    };
    const added = await follow(browser, await submitForm(browser, form, "/dashboard/customers", fields));
    expect(flashOf(added)?.text).toBe("Customer added.");
    expect(await eventsOf(key)).toEqual(["customer.created"]);
    const again = await submitForm(
      browser,
      await browser.get("/dashboard/customers/new"),
      "/dashboard/customers",
      fields,
    );
    expect(again.status).toBe(409);
    expect(again.text).toContain("is already used by another customer");
  });
});

describe("inquiries", () => {
  it("an inquiry becomes a customer and an appointment in one step, and is then handled", async () => {
    const { vendor, key, browser } = await shop();
    const inquiry = await t.api.post(`/api/public/vendors/${vendor.id}/inquiries`, {
      name: "Flora",
      email: "flora@example.test",
      phone: "+55 11 9999",
      message: "A fitting, please",
    });
    const page = await browser.get(`/dashboard/inquiries/${inquiry.body.id}`);
    expect(page.text).toContain('data-status="OPEN"');
    const done = await follow(
      browser,
      await submitForm(browser, page, `/dashboard/inquiries/${inquiry.body.id}/convert`, {
        type: "CONSULTATION",
        date: "2031-03-02T15:00",
        duration: "60",
        notes: "From the inquiry",
      }),
    );
    expect(flashOf(done)?.text).toBe("Customer added and appointment booked; the inquiry is handled.");
    const customers = (await t.api.get("/api/vendor/customers", { key })).body.customers;
    expect(customers.map((c: any) => [c.name, c.email, c.phone])).toEqual([
      ["Flora", "flora@example.test", "+55 11 9999"],
    ]);
    const appts = (await t.api.get("/api/vendor/appointments", { key })).body.appointments;
    expect(appts.map((a: any) => [a.customerId, a.type, a.date])).toEqual([
      [customers[0].id, "CONSULTATION", "2031-03-02T15:00:00.000Z"],
    ]);
    expect((await browser.get(`/dashboard/inquiries/${inquiry.body.id}`)).text).toContain(
      'data-status="HANDLED"',
    );
  });

  it("a refused appointment leaves no customer behind, and Mark handled marks it", async () => {
    const { vendor, key, browser } = await shop();
    const inquiry = await t.api.post(`/api/public/vendors/${vendor.id}/inquiries`, {
      name: "Gil",
      email: "gil@example.test",
      message: "Hello",
    });
    const page = await browser.get(`/dashboard/inquiries/${inquiry.body.id}`);
    const refused = await follow(
      browser,
      await submitForm(browser, page, `/dashboard/inquiries/${inquiry.body.id}/convert`, {
        type: "CONSULTATION",
        date: "2031-03-02T15:00",
        duration: "5",
      }),
    );
    expect(flashOf(refused)?.kind).toBe("error");
    expect((await t.api.get("/api/vendor/customers", { key })).body.customers).toEqual([]);
    const handled = await follow(
      browser,
      // "Mark handled" is a one-button form: the same CSRF token as the page's other forms.
      await browser.post(`/dashboard/inquiries/${inquiry.body.id}/handled`, {
        _csrf: formFields(refused, `/dashboard/inquiries/${inquiry.body.id}/convert`)._csrf ?? "",
      }),
    );
    expect(flashOf(handled)?.text).toBe("Inquiry marked handled.");
    expect(handled.text).toContain('data-status="HANDLED"');
  });
});

describe("finding things", () => {
  it("searches orders by name, e-mail, phone or model, filters by status, literal % included", async () => {
    const { key, browser } = await shop();
    const mk = (customerName: string, customerEmail: string, model: string, customerPhone?: string) =>
      t.api.post(
        "/api/vendor/orders",
        { customerName, customerEmail, type: "SUIT", model, customerPhone },
        { key },
      );
    const a = await mk("Helena Costa", "helena@example.test", "Aurora");
    await mk("Ines Lima", "ines@example.test", "Bellini 100%", "+351 911");
    await t.api.put(`/api/vendor/orders/${a.body.id}/status`, { status: "IN_PRODUCTION" }, { key });
    const models = async (query: string) => {
      const page = await browser.get(`/dashboard/orders?${query}`);
      expect(page.status).toBe(200);
      // Each row's link reads "#<number> <model>" (CONTRACT 12: the order's number is shown).
      const cells = [...page.text.matchAll(/<td><a href="\/dashboard\/orders\/[a-z0-9]+">([^<]+)<\/a>/g)].map(
        (m) => m[1] as string,
      );
      for (const cell of cells) expect(cell).toMatch(/^#10\d\d /);
      return cells.map((c) => c.replace(/^#\d+ /, "")).sort();
    };
    expect(await models("q=helena")).toEqual(["Aurora"]);
    expect(await models("q=INES%40EXAMPLE")).toEqual(["Bellini 100%"]);
    expect(await models("q=911")).toEqual(["Bellini 100%"]);
    expect(await models("q=auro")).toEqual(["Aurora"]);
    expect(await models("q=%25")).toEqual(["Bellini 100%"]);
    expect(await models("status=IN_PRODUCTION")).toEqual(["Aurora"]);
    expect(await models("status=ORDERED&q=aurora")).toEqual([]);
    expect(await models("status=BOGUS")).toEqual(["Aurora", "Bellini 100%"]);
  });

  it("searches customers by name, e-mail or phone", async () => {
    const { key, browser } = await shop();
    await t.api.post(
      "/api/vendor/customers",
      { name: "Joana", email: "jo@example.test", phone: "+351 123" },
      { key },
    );
    await t.api.post("/api/vendor/customers", { name: "Kika", email: "kika@example.test" }, { key });
    const names = async (q: string) =>
      [
        ...(await browser.get(`/dashboard/customers?q=${encodeURIComponent(q)}`)).text.matchAll(
          /<td><a href="\/dashboard\/customers\/[a-z0-9]+">([^<]+)<\/a>/g,
        ),
      ].map((m) => m[1]);
    expect(await names("joa")).toEqual(["Joana"]);
    expect(await names("KIKA@")).toEqual(["Kika"]);
    expect(await names("123")).toEqual(["Joana"]);
  });

  it("filters appointments by day in the shop's zone: today, this week, past", async () => {
    const now = Date.now();
    const { key, browser } = await shop();
    const c = await t.api.post("/api/vendor/customers", { name: "Lu" }, { key });
    const at = (ms: number) => new Date(now + ms).toISOString();
    const hour = 3_600_000;
    for (const [notes, date] of [
      ["past", at(-30 * 24 * hour)],
      ["soon", at(60_000)],
      ["later", at(40 * 24 * hour)],
    ] as const) {
      await t.api.post(
        "/api/vendor/appointments",
        { customerId: c.body.id, type: "FITTING", date, notes },
        { key },
      );
    }
    const notes = async (day: string) =>
      [
        ...(await browser.get(`/dashboard/appointments${day ? `?day=${day}` : ""}`)).text.matchAll(
          /<div class="muted prose">([^<]+)<\/div>/g,
        ),
      ].map((m) => m[1]);
    expect(await notes("")).toEqual(["soon", "later"]);
    expect(await notes("past")).toEqual(["past"]);
    expect(await notes("week")).toContain("soon");
    expect(await notes("week")).not.toContain("later");
    // "soon" is a minute from now: today, unless the test runs in the day's last minute.
    expect(await notes("today")).not.toContain("later");
  });

  it("exports orders and customers as CSV, with the filters applied and formulas defused", async () => {
    const { key, browser } = await shop();
    await t.api.post(
      "/api/vendor/orders",
      { customerName: '=HYPERLINK("x")', type: "SUIT", model: 'Mo,del "1"' },
      { key },
    );
    await t.api.post("/api/vendor/orders", { customerName: "Other", type: "RENTAL", model: "Skip" }, { key });
    const res = await browser.get("/dashboard/orders/export.csv?q=del");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(res.headers.get("content-disposition")).toContain("orders.csv");
    const lines = res.text
      .replace(/^\uFEFF/, "")
      .trimEnd()
      .split("\r\n");
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(`"Mo,del ""1"""`);
    expect(lines[1]).toContain(`"'=HYPERLINK(""x"")"`);
    const customers = await browser.get("/dashboard/customers/export.csv");
    expect(customers.text.replace(/^\uFEFF/, "").split("\r\n")[0]).toBe(
      "Customer ID,Name,E-mail,Phone,Wedding date,Notes,Added (UTC)",
    );
  });

  it("CSV cells: quoted when needed, formula starts prefixed", () => {
    expect(csvCell("plain")).toBe("plain");
    expect(csvCell('a"b')).toBe('"a""b"');
    expect(csvCell("a\nb")).toBe('"a\nb"');
    for (const start of ["=", "+", "-", "@", "\t", "\r"])
      expect(csvCell(`${start}1`).replace(/"/g, "")).toMatch(/^'/);
    expect(csvCell(-5)).toBe("-5");
    expect(toCsv(["h"], [["x"]])).toBe("\uFEFFh\r\nx\r\n");
  });
});

describe("webhooks at a glance", () => {
  it("shows deliveries given up and the payload sent; a healthy webhook says so", async () => {
    const { key, browser } = await shop();
    const hook = await t.api.post(
      "/api/vendor/webhooks",
      { url: "http://127.0.0.1:9/hook", events: ["order.created"] },
      { key },
    );
    const healthy = await browser.get("/dashboard/integrations/webhooks");
    expect(healthy.text).toContain('data-health="healthy"');
    expect(healthy.text).toContain('data-failures="0"');
    await t.api.post(
      "/api/vendor/orders",
      { customerName: "M", type: "SUIT", model: "PayloadModel" },
      { key },
    );
    // Let the outbox fan the event out, then record two failed deliveries as the dispatcher would.
    const { sql } = await import("drizzle-orm");
    const { queryRows } = await import("../../src/db/query-rows.ts");
    const [event] = await queryRows<{ id: string }>(
      t.ctx.db,
      sql`select id from events where type = 'order.created' and vendor_id = (select vendor_id from webhooks where id = ${hook.body.id})`,
    );
    // Fresh ids: the file may run again on the same PostgreSQL database.
    for (const id of [newId(), newId()]) {
      await queryRows(
        t.ctx.db,
        sql`insert into webhook_deliveries (id, webhook_id, vendor_id, event_id, event_type, status, attempt_count, created_at, updated_at)
            select ${id}, w.id, w.vendor_id, ${event?.id}, 'order.created', 'FAILED', 4, now(), now() from webhooks w where w.id = ${hook.body.id}`,
      );
    }
    const failing = await browser.get("/dashboard/integrations/webhooks");
    expect(failing.text).toContain('data-health="failing"');
    // Given up without an attempt recorded as an endpoint failure: failing, two deliveries given up.
    expect(failing.text).toContain('data-given-up="2"');
    expect((await browser.get("/dashboard/integrations")).text).toContain("1 failing");
    const detail = await browser.get(`/dashboard/integrations/webhooks/${hook.body.id}`);
    expect(detail.text).toContain("Payload sent");
    expect(detail.text).toContain("PayloadModel");
  });
});

describe("OAuth consent remembered", () => {
  it("re-authorizing for granted scopes skips consent; a new scope asks again; Connected apps shows scopes in words", async () => {
    const client = await createClient(t.ctx);
    const { vendor, browser } = await shop();
    // Not yet granted (a code never exchanged grants nothing): the consent page.
    expect(
      (await browser.get(authorizePath(validParams(client, pkcePair().challenge, { scope: "orders:read" }))))
        .status,
    ).toBe(200);
    const first = await authorizeCode(t, client, { scope: "orders:read", email: vendor.email });
    expect((await exchangeCode(t, client, first.code, first.verifier)).status).toBe(200);
    const again = await browser.get(
      authorizePath(validParams(client, pkcePair().challenge, { scope: "orders:read" })),
    );
    expect(again.status).toBe(302);
    expect(redirectParams(again, REDIRECT_URI).get("code")).toEqual(expect.any(String));
    const more = await browser.get(
      authorizePath(validParams(client, pkcePair().challenge, { scope: "orders:read customers:read" })),
    );
    expect(more.status).toBe(200);
    expect(formFields(more, "/api/oauth/authorize")).toBeTruthy();
    const connected = await browser.get("/dashboard/integrations/connected-apps");
    expect(connected.text).toMatch(/<li>[^<]*[Oo]rders[^<]*<span class="badge">orders:read<\/span><\/li>/);
  });
});
