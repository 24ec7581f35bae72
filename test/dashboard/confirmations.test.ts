// Nothing irreversible in one click: each irreversible action's form post without
// the confirmation step lands on the confirmation page and changes nothing; the confirmation page
// (a GET) changes nothing either; its form (no JavaScript) acts. The status form preselects no
// status, so a message alone never moves an order.
import { describe, expect, it } from "vitest";
import { createApiKey, listApiKeysOfVendor } from "../../src/modules/api-keys/api-keys.service.ts";
import { listApplications } from "../../src/modules/applications/applications.service.ts";
import { listWebhooks } from "../../src/modules/webhooks/webhooks.service.ts";
import {
  confirmThrough,
  flashOf,
  follow,
  formFields,
  postFrom,
  signedInBrowser,
  submitForm,
} from "../helpers/dashboard.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp({ config: { webhookAllowPrivateUrls: true } });
const I = "/dashboard/integrations";

async function shop() {
  const { vendor, key } = await createVendorWithKey(t.ctx, "Confirm Bridal");
  const browser = await signedInBrowser(t, vendor.email);
  const customer = await t.api.post("/api/vendor/customers", { name: "Nora Bride" }, { key });
  const appointment = await t.api.post(
    "/api/vendor/appointments",
    { customerId: customer.body.id, type: "FITTING", date: "2030-01-01T10:00:00Z" },
    { key },
  );
  const webhook = await t.api.post(
    "/api/vendor/webhooks",
    { url: "http://127.0.0.1:9/hook", events: ["order.created"] },
    { key },
  );
  const spare = await createApiKey(t.ctx, { vendorId: vendor.id, name: "Spare key" });
  return {
    vendor,
    key,
    browser,
    customerId: customer.body.id as string,
    appointmentId: appointment.body.id as string,
    webhookId: webhook.body.id as string,
    spareKeyId: spare.row.id,
  };
}

describe("irreversible actions ask first", () => {
  it("each one-click post lands on its confirmation page, the page changes nothing, its form acts", async () => {
    const s = await shop();
    const app = await follow(
      s.browser,
      await postFrom(s.browser, `${I}/applications`, `${I}/applications`, {
        name: "Fitting app",
        redirectUris: "https://app.example/cb",
      }),
    );
    const appId = /data-application-id="([a-z0-9]+)"/.exec(app.text)?.[1] ?? "";
    const secretHash = async () => (await listApplications(t.ctx, s.vendor.id))[0]?.clientSecretHash;
    const hookSecret = async () => (await listWebhooks(t.ctx, s.vendor.id)).webhooks.length;
    const before = {
      appointment: (await t.api.get(`/api/vendor/appointments/${s.appointmentId}`, { key: s.key })).body
        .status,
      secret: await secretHash(),
    };

    const actions = [
      `/dashboard/appointments/${s.appointmentId}/cancel`,
      `${I}/webhooks/${s.webhookId}/rotate-secret`,
      `${I}/webhooks/${s.webhookId}/delete`,
      `${I}/api-keys/${s.spareKeyId}/revoke`,
      `${I}/applications/${appId}/rotate-secret`,
      `${I}/applications/${appId}/delete`,
      `/dashboard/customers/${s.customerId}/erase`,
    ];
    for (const action of actions) {
      const oneClick = await postFrom(s.browser, "/dashboard/account", action);
      expect(oneClick.status, action).toBe(303);
      expect(oneClick.location, action).toBe(action);
      const page = await s.browser.get(action);
      expect(page.status, action).toBe(200);
      expect(page.text, action).toContain("This cannot be undone.");
      expect(formFields(page, action).confirmed, action).toBe("yes");
    }
    // Nothing happened.
    expect((await t.api.get(`/api/vendor/appointments/${s.appointmentId}`, { key: s.key })).body.status).toBe(
      before.appointment,
    );
    expect(await hookSecret()).toBe(1);
    expect((await listApiKeysOfVendor(t.ctx, s.vendor.id)).every((k) => k.revokedAt === null)).toBe(true);
    expect(await secretHash()).toBe(before.secret);
    expect((await t.api.get(`/api/vendor/customers/${s.customerId}`, { key: s.key })).status).toBe(200);

    // Confirmed, each acts (the erasure last: it takes the customer's appointment with it).
    const flashes: Array<string | undefined> = [];
    for (const action of actions) {
      flashes.push(flashOf(await follow(s.browser, await confirmThrough(s.browser, action)))?.kind);
      if (action.endsWith("/cancel")) {
        expect(
          (await t.api.get(`/api/vendor/appointments/${s.appointmentId}`, { key: s.key })).body.status,
        ).toBe("CANCELLED");
      }
    }
    expect(flashes).toEqual(Array(actions.length).fill("success"));
    expect(await hookSecret()).toBe(0);
    expect(
      (await listApiKeysOfVendor(t.ctx, s.vendor.id)).find((k) => k.id === s.spareKeyId)?.revokedAt,
    ).not.toBeNull();
    expect(await listApplications(t.ctx, s.vendor.id)).toEqual([]);
    expect((await t.api.get(`/api/vendor/customers/${s.customerId}`, { key: s.key })).status).toBe(404);
  });

  it("the status form preselects nothing; a message without a status moves nothing", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx, "Status Bridal");
    const order = await t.api.post(
      "/api/vendor/orders",
      { customerName: "Ida Bride", type: "BRIDAL_DRESS" },
      { key },
    );
    const browser = await signedInBrowser(t, vendor.email);
    const path = `/dashboard/orders/${order.body.id}`;
    const page = await browser.get(path);
    const select =
      /<select id="status" name="status" required>([\s\S]*?)<\/select>/.exec(page.text)?.[1] ?? "";
    expect(select).toMatch(/^\s*<option value="" selected>/);
    expect(select.match(/ selected/g)).toHaveLength(1);
    const res = await submitForm(browser, page, `${path}/status`, {
      status: "",
      message: "Fitting on Monday",
    });
    expect(flashOf(await follow(browser, res))?.kind).toBe("error");
    const after = (await t.api.get(`/api/vendor/orders/${order.body.id}`, { key })).body;
    expect(after.status).toBe("ORDERED");
    expect(after.updates).toHaveLength(1);
  });
});
