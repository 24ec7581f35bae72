// In Chromium at 1280 and 390 px, JavaScript off (CONTRACT 10): the owner enters
// measurements and preferences as labelled rows (adding rows posts the form back; Enter saves),
// an API key and an OAuth application write through the API, a staff member moves an order in
// their own browser (and is refused the Activity page), and the owner's Activity page names each
// person, the key and the application, and filters by who with its plain form.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "../../src/modules/api-keys/api-keys.service.ts";
import { useChromium } from "../helpers/chromium.ts";
import { pathOf, shot, signedInPage, WIDTHS } from "../helpers/chromium-dashboard.ts";
import { createMember, createVendor } from "../helpers/factories.ts";
import { authorizeCode, createClient, exchangeCode } from "../helpers/oauth.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";

const chromium = useChromium();

// Each width signs three people in and walks their pages (~15 s here, more beside the other
// worker's Chromium).
describe.skipIf(!chromium.available)(
  "labelled rows and the activity log in Chromium",
  { timeout: 120_000 },
  () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp();
    }, 60_000);
    afterAll(async () => {
      await t?.close();
    });

    describe.each(WIDTHS)("at %i px", (width) => {
      it("rows are entered, added and saved without JavaScript; the log names the owner, a staff member, the key and the app", async () => {
        const vendor = await createVendor(t.ctx, "Atelier Rows");
        const { key } = await createApiKey(t.ctx, { vendorId: vendor.id, name: "Counter POS" });
        const client = await createClient(t.ctx);
        const { context, page, dialogs } = await signedInPage(chromium.browser, t.url, vendor.email, width);

        // The new-customer form: three empty rows for each, named by their labels.
        await page.goto(`${t.url}/dashboard/customers/new`);
        await page.fill("#name", "Rosa Rows");
        for (const [i, [name, value]] of [
          ["bust", "86"],
          ["waist", "66"],
          ["hips", "92"],
        ].entries()) {
          await page.getByLabel(`Measurement ${i + 1} name`).fill(name as string);
          await page.getByLabel(`Measurement ${i + 1} value`).fill(value as string);
        }
        await shot(page, "customer-rows", width);
        // All three are used: "Add rows" posts the form back with more, keeping what was typed.
        await page.click('button[name="addRows"][value="measurements"]');
        await page.waitForSelector('[aria-label="Measurement 6 name"]');
        expect(await page.inputValue('[aria-label="Measurement 3 name"]')).toBe("hips");
        expect(await page.inputValue("#name")).toBe("Rosa Rows");
        await page.getByLabel("Measurement 4 name").fill("sleeve");
        await page.getByLabel("Measurement 4 value").fill("60.5");
        await page.getByLabel("Preference 1 name").fill("neckline");
        await page.getByLabel("Preference 1 value").fill("V, low");
        await shot(page, "customer-rows-added", width);
        // Enter in a field submits with the form's first button: Save ("Add customer"), not "Add rows".
        await page.getByLabel("Preference 1 value").press("Enter");
        await page.waitForURL((url) => /^\/dashboard\/customers\/[a-z0-9]{20,}$/.test(url.pathname));
        const customerId = pathOf(page).split("/").pop() as string;
        expect(await page.textContent(".flash")).toContain("Customer added.");
        expect(await page.locator("dl.facts >> nth=1").innerText()).toMatch(/bust\s+86/);
        const stored = await t.api.get(`/api/vendor/customers/${customerId}`, { key });
        expect(stored.body.measurements).toEqual({ bust: 86, waist: 66, hips: 92, sleeve: 60.5 });
        expect(stored.body.preferences).toEqual({ neckline: "V, low" });
        await shot(page, "customer-rows-saved", width);

        // The key and the application write through the API.
        const byKey = await t.api.post(
          "/api/vendor/orders",
          { customerName: "K", customerEmail: "k@example.test", type: "SUIT" },
          { key },
        );
        expect(byKey.status).toBe(201);
        const { code, verifier } = await authorizeCode(t, client, {
          email: vendor.email,
          scope: "orders:write",
        });
        const token = (await exchangeCode(t, client, code, verifier)).body.access_token as string;
        const byApp = await t.api.post(
          "/api/vendor/orders",
          { customerName: "A", customerEmail: "a@example.test", type: "SUIT" },
          { token },
        );
        expect(byApp.status).toBe(201);

        // A staff member, signed in in a browser of their own, moves that order along.
        const staff = await createMember(t.ctx, vendor.id, { name: "Sam Costura" });
        const theirs = await signedInPage(chromium.browser, t.url, staff.email, width);
        await theirs.page.goto(`${t.url}/dashboard/orders/${byApp.body.id}`);
        await theirs.page.selectOption("#status", "IN_PRODUCTION");
        await theirs.page.click('form[action$="/status"] button[type="submit"]');
        await theirs.page.waitForURL(`${t.url}/dashboard/orders/${byApp.body.id}`);
        // Staff see no Activity: no menu entry, and the page refuses them.
        expect(await theirs.page.locator('nav.main a[href="/dashboard/activity"]').count()).toBe(0);
        const refused = await theirs.page.goto(`${t.url}/dashboard/activity`);
        expect(refused?.status()).toBe(403);
        expect(theirs.dialogs).toEqual([]);
        await theirs.context.close();

        await page.click('nav.main >> text="Activity"');
        await page.waitForURL(`${t.url}/dashboard/activity`);
        const who = async () => (await page.locator("td.actor").allInnerTexts()).map((s) => s.trim());
        const everyone = await who();
        expect(everyone).toContain(vendor.email);
        expect(everyone).toContain("API key “Counter POS”");
        expect(everyone).toContain("Application “Bridal POS”");
        expect(everyone[0]).toBe("Sam Costura");
        expect(await page.locator('tr[data-action="order.status_changed"]').innerText()).toContain(
          "Ordered → In production",
        );
        expect(await page.locator('tr[data-action="customer.created"] td.actor').innerText()).toBe(
          vendor.email,
        );
        await shot(page, "activity", width);

        // The plain GET form filters by who.
        await page.selectOption("#actor", { label: "API key “Counter POS”" });
        await page.click('form.filter button[type="submit"]');
        await page.waitForURL((url) => url.searchParams.has("actor"));
        expect(await who()).toEqual(["API key “Counter POS”"]);
        await page.selectOption("#actor", { label: "Application “Bridal POS”" });
        await page.click('form.filter button[type="submit"]');
        await page.waitForURL((url) => url.searchParams.get("actor")?.startsWith("oauth_app:") ?? false);
        expect(await who()).toEqual(["Application “Bridal POS”"]);
        await page.selectOption("#actor", { label: "Sam Costura" });
        await page.click('form.filter button[type="submit"]');
        await page.waitForURL((url) => url.searchParams.get("actor") === `person:${staff.id}`);
        expect(await who()).toEqual(["Sam Costura"]);
        await shot(page, "activity-filtered", width);
        expect(dialogs).toEqual([]);
        await context.close();
      });
    });
  },
);
