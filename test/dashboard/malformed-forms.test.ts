// No form input reaches a 500: oversized, repeated, NUL-carrying or nonsense values on every
// integrations and account form answer a 303 with an error flash (or a 404 for unknown ids).
import { describe, expect, it } from "vitest";
import { listWebhooks } from "../../src/modules/webhooks/webhooks.service.ts";
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
          expect((await postFrom(browser, `${I}/api-keys`, action)).status).toBe(404);
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
});
