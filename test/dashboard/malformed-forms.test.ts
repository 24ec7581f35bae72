// No form input reaches a 500: oversized, repeated, NUL-carrying or nonsense values on every
// integrations and account form answer a 303 with an error flash (or a 404 for unknown ids).
import { describe, expect, it } from "vitest";
import { listApiKeysOfVendor } from "../../src/modules/api-keys/api-keys.service.ts";
import { listCustomers } from "../../src/modules/customers/customers.service.ts";
import { getOrder } from "../../src/modules/orders/orders.service.ts";
import { listWebhooks } from "../../src/modules/webhooks/webhooks.service.ts";
import { decodeEntities } from "../helpers/browser.ts";
import { flashOf, follow, postFrom, signedInVendor } from "../helpers/dashboard.ts";
import { useTestApp } from "../helpers/test-app.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";

const t = useTestApp();

const I = "/dashboard/integrations";
const long = "x".repeat(5000);
const nasty: Array<string | string[]> = [long, "a\u0000b", ["one", "two"], "", "\u202e\ud800", "%00", "{}"];

describe("dashboard: malformed form input", () => {
  it("every form answers 303 or 404 whatever its fields hold, never a 500", async () => {
    const { vendor, browser } = await signedInVendor(t);
    const r = await startReceiver();
    try {
      const hook = await postFrom(browser, `${I}/webhooks`, `${I}/webhooks`, {
        url: r.url,
        events: "order.created",
      });
      const here = hook.location ?? "";
      const forms: Array<[string, string[]]> = [
        [`${I}/api-keys`, ["name", "scopes"]],
        [`${I}/applications`, ["name", "redirectUris"]],
        [`${I}/webhooks`, ["url", "events"]],
        [`${here}/edit`, ["url", "events"]],
        [`${here}/status`, ["status"]],
        [`${here}/recover`, ["since"]],
        ["/dashboard/account/password", ["currentPassword", "newPassword", "confirmPassword"]],
      ];
      for (const [action, names] of forms) {
        for (const value of nasty) {
          const form = Object.fromEntries(names.map((n) => [n, value]));
          const res = await postFrom(browser, `${I}/api-keys`, action, form);
          expect([303, 404], `${action} ${JSON.stringify(value).slice(0, 40)}`).toContain(res.status);
        }
      }
      for (const id of [long.slice(0, 300), "%00", "..", "a".repeat(33)]) {
        for (const action of [
          `${I}/api-keys/${id}/revoke`,
          `${I}/applications/${id}/delete`,
          `${here}/deliveries/${id}/redeliver`,
        ]) {
          expect((await postFrom(browser, `${I}/api-keys`, action, { confirmed: "yes" })).status).toBe(404);
        }
      }
      expect((await browser.get(`${here}?cursor=${long.slice(0, 500)}`)).status).toBe(303);
      // The webhook survived every refused edit.
      expect((await listWebhooks(t.ctx, vendor.id)).webhooks[0]).toMatchObject({
        url: r.url,
        status: "ACTIVE",
      });
      const page = await follow(
        browser,
        await postFrom(browser, here, `${here}/status`, { status: "PAUSED" }),
      );
      expect(flashOf(page)?.kind).toBe("error");
    } finally {
      await r.close();
    }
  });

  it("every form reads fields one way: a NUL is refused (flash or 400 page), a repeated field counts once", async () => {
    const { vendor, browser } = await signedInVendor(t);
    const NUL = "must not contain the NUL character";
    // A form that redirects (integrations): the refusal is its error flash; nothing is stored.
    const keys = `${I}/api-keys`;
    const nulKey = await postFrom(browser, keys, keys, { name: "a\u0000b" });
    expect(nulKey.status).toBe(303);
    expect(flashOf(await follow(browser, nulKey))?.text).toContain(`name ${NUL}`);
    expect(await listApiKeysOfVendor(t.ctx, vendor.id)).toEqual([]);
    expect((await postFrom(browser, keys, keys, { name: ["First key", "Second key"] })).status).toBe(303);
    expect((await listApiKeysOfVendor(t.ctx, vendor.id)).map((k) => k.name)).toEqual(["First key"]);

    // A form shown again with its errors (data pages): the refusal is a 400 page, never a 500.
    const from = "/dashboard/customers/new";
    for (const [action, form] of [
      ["/dashboard/customers", { name: "a\u0000b" }],
      ["/dashboard/orders", { customerName: "a\u0000b", type: "SUIT" }],
      ["/dashboard/appointments", { notes: "a\u0000b" }],
    ] as const) {
      const res = await postFrom(browser, from, action, form);
      expect(res.status, action).toBe(400);
      expect(decodeEntities(res.text)).toContain(NUL);
    }
    expect((await listCustomers(t.ctx, vendor.id, { limit: 10 })).customers).toEqual([]);
    expect((await postFrom(browser, from, "/dashboard/customers", { name: ["Ana", "Bob"] })).status).toBe(
      303,
    );
    expect((await listCustomers(t.ctx, vendor.id, { limit: 10 })).customers.map((c) => c.name)).toEqual([
      "Ana",
    ]);

    // A data page's form that redirects (order status): the same refusal, as a flash.
    const created = await postFrom(browser, "/dashboard/orders/new", "/dashboard/orders", {
      customerName: "Ana",
      type: "SUIT",
    });
    const orderPage = created.location ?? "";
    const orderId = orderPage.split("/").at(-1) ?? "";
    const status = `${orderPage}/status`;
    const nulMove = await postFrom(browser, orderPage, status, {
      status: "IN_PRODUCTION",
      message: "a\u0000b",
    });
    expect(flashOf(await follow(browser, nulMove))?.text).toContain(`message ${NUL}`);
    const statusOf = async () => JSON.parse(await getOrder(t.ctx, vendor.id, orderId)).status;
    expect(await statusOf()).toBe("ORDERED");
    const twice = await postFrom(browser, orderPage, status, { status: ["IN_PRODUCTION", "CANCELLED"] });
    expect(flashOf(await follow(browser, twice))?.text).toContain("Status set to In production");
    expect(await statusOf()).toBe("IN_PRODUCTION");
  });
});
