// The shop owner's flows in a real browser (Debian's Chromium through playwright-core), at desktop
// width and at 390px as a phone: create an order and see its order.created webhook arrive at a
// real local receiver; turn an inquiry into a customer and an appointment; change the shop's time
// zone and see the times move; search and filter; export a CSV and read it back. Every page
// visited is checked for sideways scrolling, and (SCREENSHOTS=1) screenshots land in
// test-artifacts/screenshots.
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Dispatcher, startDispatcher } from "../../src/webhook-delivery/dispatcher.ts";
import { expectNoSidewaysScroll, screenshot, useChromium } from "../helpers/chromium.ts";
import { createVendorWithKey, TEST_PASSWORD } from "../helpers/factories.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";
import { type Receiver, startReceiver } from "../helpers/webhook-receiver.ts";

const chromium = useChromium();

let t: TestApp;
let dispatcher: Dispatcher;
let receiver: Receiver;
beforeAll(async () => {
  if (!chromium.available) return;
  t = await startTestApp({ ownDatabase: true });
  dispatcher = await startDispatcher({ config: t.config, database: t.database });
  receiver = await startReceiver();
});
afterAll(async () => {
  await dispatcher?.stop(1_000);
  await receiver?.close();
  await t?.close();
});

/** A minimal RFC 4180 reader, to read the export back as a spreadsheet would. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  const body = text.replace(/^\uFEFF/, "");
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (quoted) {
      if (c === '"' && body[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      row.push(cell);
      cell = "";
    } else if (c === "\r" && body[i + 1] === "\n") {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
      i++;
    } else cell += c;
  }
  return rows;
}

const viewports = [
  { name: "desktop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
] as const;

describe.skipIf(!chromium.available)("the shop owner's day in the browser", () => {
  for (const viewport of viewports) {
    it(`creates, converts, re-zones, finds and exports (${viewport.name}, ${viewport.width}px)`, async () => {
      const { vendor, key } = await createVendorWithKey(t.ctx, `Atelier ${viewport.name}`);
      const hook = await t.api.post(
        "/api/vendor/webhooks",
        { url: `${receiver.url}/${viewport.name}`, events: ["order.created"] },
        { key },
      );
      expect(hook.status).toBe(201);
      const context = await chromium.browser.newContext({ viewport, acceptDownloads: true });
      const page = await context.newPage();
      page.setDefaultTimeout(20_000);
      const dialogs: string[] = [];
      page.on("dialog", async (d) => {
        dialogs.push(d.message());
        await d.dismiss();
      });
      const shot = async (name: string) => {
        // No page scrolls sideways (a phone would show half a table).
        await expectNoSidewaysScroll(page, `${page.url()} at ${viewport.width}px`);
        await screenshot(page, `shop-${name}-${viewport.name}`);
      };

      await page.goto(`${t.url}/dashboard`);
      await page.getByLabel("Email").fill(vendor.email);
      await page.getByLabel("Password").fill(TEST_PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL(`${t.url}/dashboard/today`);

      // 1. A new order from the dashboard; its order.created webhook arrives at the receiver.
      const before = receiver.requests.length;
      await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Orders" }).click();
      await page.waitForURL(`${t.url}/dashboard/orders`);
      await page.getByRole("link", { name: "New order" }).click();
      await page.waitForURL(`${t.url}/dashboard/orders/new`);
      await shot("new-order");
      await page.getByLabel("Name", { exact: true }).fill("Marta Dias");
      await page.getByLabel(/^E-mail/).fill(`marta-${viewport.name}@example.test`);
      await page.getByLabel("Type").selectOption("BRIDAL_DRESS");
      await page.getByLabel("Model").fill("Aurora");
      await page.getByLabel("Size").fill("38");
      await page.getByRole("button", { name: "Create order" }).click();
      await page.waitForURL(/\/dashboard\/orders\/[a-z0-9]{20,}$/);
      expect(await page.locator(".flash.success").textContent()).toContain("Order created.");
      const orderId = page.url().split("/").at(-1) as string;
      await shot("order-created");
      const [delivery] = (await receiver.waitFor(before + 1, 15_000)).slice(before);
      expect(delivery?.headers["x-service-event"]).toBe("order.created");
      expect(delivery?.body.data).toMatchObject({
        id: orderId,
        model: "Aurora",
        size: "38",
        customer: { name: "Marta Dias" },
      });

      // 2. An inquiry becomes a customer and an appointment in one step.
      await t.api.post(`/api/public/vendors/${vendor.id}/inquiries`, {
        name: "Flora Nunes",
        email: `flora-${viewport.name}@example.test`,
        message: "Could I come for a fitting?",
      });
      await page.getByRole("link", { name: "Inquiries", exact: true }).click();
      await page.waitForURL(`${t.url}/dashboard/inquiries`);
      await shot("inquiries");
      await page.getByRole("link", { name: "Flora Nunes" }).click();
      await page.waitForURL(/\/dashboard\/inquiries\/[a-z0-9]{20,}$/);
      await shot("inquiry");
      await page.getByLabel(/^When/).fill("2031-03-02T15:00");
      await page.getByRole("button", { name: "Create customer and appointment" }).click();
      await page.waitForURL(/\/dashboard\/appointments\/[a-z0-9]{20,}$/);
      expect(await page.locator(".flash.success").textContent()).toContain("the inquiry is handled");
      expect(await page.getByRole("link", { name: "Flora Nunes" }).count()).toBe(1);
      const appointmentUrl = page.url();
      const when = () => page.locator("dl.facts time").first().textContent();
      expect(await when()).toBe("Mar 2, 2031, 03:00 PM UTC");
      await shot("appointment-from-inquiry");

      // 3. The shop's time zone: the same appointment, and the tracking page, move.
      await page.getByRole("link", { name: "Settings", exact: true }).click();
      await page.waitForURL(`${t.url}/dashboard/settings`);
      await page.getByLabel("Time zone").selectOption("America/Sao_Paulo");
      await page.getByRole("button", { name: "Save settings" }).click();
      await page.waitForURL(`${t.url}/dashboard/settings`);
      expect(await page.locator(".flash.success").textContent()).toContain("America/Sao_Paulo");
      await shot("settings");
      await page.goto(appointmentUrl);
      expect(await when()).toBe("Mar 2, 2031, 12:00 PM GMT-3");
      await page.goto(`${t.url}/dashboard/orders/${orderId}`);
      const trackingUrl = await page.getByLabel("Tracking link").inputValue();
      expect(await page.getByRole("button", { name: "Copy" }).isVisible()).toBe(true);
      await page.goto(trackingUrl);
      // The shop's wall clock in São Paulo, in the customer's language (English here).
      const since = page.locator("p.current time");
      const at = new Date((await since.getAttribute("datetime")) ?? "");
      expect(await since.textContent()).toBe(
        new Intl.DateTimeFormat("en", {
          timeZone: "America/Sao_Paulo",
          dateStyle: "medium",
          timeStyle: "short",
        }).format(at),
      );
      await shot("tracking");

      // 4. Search and filter.
      await t.api.post(
        "/api/vendor/orders",
        { customerName: "Rui Sousa", type: "SUIT", model: "Lisboa" },
        { key },
      );
      const other = await t.api.post(
        "/api/vendor/orders",
        { customerName: "Sara Pinto", type: "RENTAL", model: "Porto" },
        { key },
      );
      const moved = await t.api.put(
        `/api/vendor/orders/${other.body.id}/status`,
        { status: "CANCELLED" },
        { key },
      );
      expect(moved.status).toBe(200);
      await page.goto(`${t.url}/dashboard/orders`);
      const models = async () =>
        // Each link reads "#<number> <model>"; the models are what this test tells apart.
        (await page.locator("table.orders tbody tr td:first-child a").allTextContents())
          .map((text) => text.replace(/^#\d+ /, ""))
          .sort();
      expect(await models()).toEqual(["Aurora", "Lisboa", "Porto"]);
      await page.getByLabel("Search (order number, name, e-mail, phone, model)").fill("marta");
      await page.getByRole("button", { name: "Find" }).click();
      await page.waitForURL(/q=marta/);
      expect(await models()).toEqual(["Aurora"]);
      await page.getByLabel("Search (order number, name, e-mail, phone, model)").fill("");
      await page.locator("select#order-status").selectOption("CANCELLED");
      await page.getByRole("button", { name: "Find" }).click();
      await page.waitForURL(/status=CANCELLED/);
      expect(await models()).toEqual(["Porto"]);
      await shot("orders-filtered");
      await t.api.post(
        "/api/vendor/appointments",
        {
          customerId: other.body.customerId,
          type: "PICKUP",
          date: "2020-01-10T10:00:00Z",
          notes: "Long ago",
        },
        { key },
      );
      await page.getByRole("link", { name: "Appointments", exact: true }).click();
      await page.waitForURL(`${t.url}/dashboard/appointments`);
      expect(await page.locator("table.appointments tbody tr").count()).toBe(1);
      await page.getByRole("link", { name: "Past", exact: true }).click();
      await page.waitForURL(/day=past/);
      expect(await page.locator("table.appointments .prose").allTextContents()).toEqual(["Long ago"]);
      await shot("appointments-past");

      // 5. CSV export, read back.
      await page.goto(`${t.url}/dashboard/orders`);
      const [download] = await Promise.all([
        page.waitForEvent("download"),
        page.getByRole("link", { name: "Export CSV" }).click(),
      ]);
      const file = await download.path();
      const rows = parseCsv(fs.readFileSync(file, "utf8"));
      expect(rows[0]?.slice(0, 5)).toEqual(["Order ID", "Number", "Status", "Type", "Model"]);
      expect(rows[0]?.at(-1)).toBe("Updated (America/Sao_Paulo)");
      expect(
        rows
          .slice(1)
          .map((r) => r[4])
          .sort(),
      ).toEqual(["Aurora", "Lisboa", "Porto"]);
      expect(
        rows
          .slice(1)
          .map((r) => r[1])
          .sort(),
      ).toEqual(["1001", "1002", "1003"]);
      expect(rows.find((r) => r[4] === "Aurora")?.[7]).toBe("Marta Dias");

      // The landing page of Integrations, with the webhook's health.
      await page.getByRole("link", { name: "Integrations", exact: true }).click();
      await page.waitForURL(`${t.url}/dashboard/integrations`);
      expect(await page.locator('[data-integration="webhooks"] .count').textContent()).toBe("1 webhook");
      await shot("integrations");
      expect(dialogs).toEqual([]);
      await context.close();
    }, 180_000);
  }
});
