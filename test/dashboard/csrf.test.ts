// Every POST form of the integrations and account pages refuses a missing or wrong CSRF token
// with 403 and changes nothing. The list of forms is read from the pages themselves, so a new
// form without a test here fails the first test.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listApiKeysOfVendor } from "../../src/modules/api-keys/api-keys.service.ts";
import { listApplications } from "../../src/modules/applications/applications.service.ts";
import { listConnectedApplications } from "../../src/modules/connections/connections.service.ts";
import { findVendor } from "../../src/modules/use-cases/vendor-accounts.service.ts";
import { listDeliveries, listWebhooks } from "../../src/modules/webhooks/webhooks.service.ts";
import { type Dispatcher, startDispatcher } from "../../src/webhook-delivery/dispatcher.ts";
import { decodeEntities } from "../helpers/browser.ts";
import { csrfOf, flashOf, follow, postFrom, signedInVendor } from "../helpers/dashboard.ts";
import { TEST_PASSWORD } from "../helpers/factories.ts";
import { createClient, obtainTokens, signedInBrowser } from "../helpers/oauth.ts";
import { useTestApp } from "../helpers/test-app.ts";
import { eventually, type Receiver, startReceiver } from "../helpers/webhook-receiver.ts";

let dispatcher: Dispatcher;
let r: Receiver;
const t = useTestApp({ ownDatabase: true });
beforeAll(async () => {
  dispatcher = await startDispatcher({ config: t.config, database: t.database });
  r = await startReceiver();
});
afterAll(async () => {
  await dispatcher.stop(1_000);
  await r.close();
});

const I = "/dashboard/integrations";
const PAGES = [
  `${I}/api-keys`,
  `${I}/applications`,
  `${I}/connected-apps`,
  `${I}/webhooks`,
  "/dashboard/account",
];

/** The confirmation pages an irreversible action's button leads to. */
function confirmationLinks(text: string): string[] {
  return [...text.matchAll(/<a class="button danger" href="([^"]+)"/g)].map((m) =>
    decodeEntities(m[1] ?? ""),
  );
}

function postActions(text: string): string[] {
  return [...text.matchAll(/<form[^>]*method="post" action="([^"]+)"/g)].map((m) =>
    decodeEntities(m[1] ?? ""),
  );
}

describe("dashboard: CSRF protection of every integrations and account form", () => {
  it("refuses each POST without or with a wrong _csrf (403) and changes nothing", async () => {
    // A vendor with one of everything: a key, an application, a connection, a webhook with a delivery.
    const client = await createClient(t.ctx);
    const tokens = await obtainTokens(t, client);
    const browser = await signedInBrowser(t, tokens.email);
    const vendorId = (await findVendor(t.ctx, tokens.email))?.id;
    if (!vendorId) throw new Error("vendor");
    const key = flashOf(
      await follow(browser, await postFrom(browser, `${I}/api-keys`, `${I}/api-keys`, { name: "k" })),
    )?.secret;
    await follow(
      browser,
      await postFrom(browser, `${I}/applications`, `${I}/applications`, {
        name: "a",
        redirectUris: "https://a.example/cb",
      }),
    );
    const hookRes = await postFrom(browser, `${I}/webhooks`, `${I}/webhooks`, {
      url: r.url,
      events: "order.created",
    });
    const hookPage = hookRes.location ?? "";
    await postFrom(browser, hookPage, `${hookPage}/test`);
    await r.waitFor(1);
    const webhookId = hookPage.split("/").at(-1) ?? "";
    const [delivery] = await eventually(async () => {
      const { deliveries } = await listDeliveries(t.ctx, vendorId, webhookId, {});
      return deliveries[0]?.status === "SUCCEEDED" ? deliveries : undefined;
    });

    const snapshot = async () => ({
      keys: await listApiKeysOfVendor(t.ctx, vendorId),
      apps: await listApplications(t.ctx, vendorId),
      connected: await listConnectedApplications(t.ctx, vendorId),
      webhooks: await listWebhooks(t.ctx, vendorId),
      deliveries: (await listDeliveries(t.ctx, vendorId, webhookId, {})).deliveries.length,
    });
    const before = await snapshot();

    // Every form on every page and on the confirmation pages their irreversible actions lead to
    // (the sign-out form aside, covered by the sign-in tests).
    const actions = new Set<string>();
    const confirmations = new Set<string>();
    for (const path of [...PAGES, hookPage]) {
      const text = (await browser.get(path)).text;
      for (const a of postActions(text)) if (a !== "/logout") actions.add(a);
      for (const link of confirmationLinks(text)) confirmations.add(link);
    }
    for (const path of confirmations) {
      for (const a of postActions((await browser.get(path)).text)) if (a !== "/logout") actions.add(a);
    }
    const fields: Record<string, Record<string, string>> = {
      [`${I}/api-keys`]: { name: "csrf" },
      [`${I}/applications`]: { name: "csrf", redirectUris: "https://b.example/cb" },
      [`${I}/webhooks`]: { url: r.url, events: "order.created" },
      [`${hookPage}/edit`]: { url: `${r.url}?edited`, events: "customer.created" },
      [`${hookPage}/status`]: { status: "DISABLED" },
      [`${hookPage}/recover`]: { since: "2020-01-01T00:00" },
      "/dashboard/account/name": { name: "Forged Name" },
      "/dashboard/account/password": {
        currentPassword: TEST_PASSWORD,
        newPassword: "x".repeat(12),
        confirmPassword: "x".repeat(12),
      },
    };
    const expected = [
      `${I}/api-keys`,
      `${I}/api-keys/${before.keys[0]?.id}/revoke`,
      `${I}/applications`,
      `${I}/applications/${before.apps[0]?.id}/rotate-secret`,
      `${I}/applications/${before.apps[0]?.id}/delete`,
      `${I}/applications/${before.apps[0]?.id}/make-public`,
      `${I}/connected-apps/${client.application.id}/revoke`,
      `${I}/webhooks`,
      `${hookPage}/test`,
      `${hookPage}/status`,
      `${hookPage}/rotate-secret`,
      `${hookPage}/delete`,
      `${hookPage}/deliveries/${delivery?.id}/redeliver`,
      `${hookPage}/recover`,
      `${hookPage}/edit`,
      "/dashboard/account/name",
      "/dashboard/account/language",
      "/dashboard/account/password",
    ];
    expect([...actions].sort()).toEqual([...expected].sort());

    const otherToken = csrfOf(await (await signedInVendor(t)).browser.get(`${I}/api-keys`));
    for (const action of expected) {
      // Confirmed, as the confirmation page posts it: only the token is missing or wrong.
      const form = { ...(fields[action] ?? {}), ...(confirmations.has(action) ? { confirmed: "yes" } : {}) };
      const missing = await browser.post(action, form);
      expect(missing.status, `${action} without _csrf`).toBe(403);
      expect(missing.text).toContain("Form expired");
      for (const wrong of ["forged", otherToken]) {
        const res = await browser.post(action, { ...form, _csrf: wrong });
        expect(res.status, `${action} with a wrong _csrf`).toBe(403);
      }
    }

    expect(await snapshot()).toEqual(before);
    expect((await t.api.get("/api/vendor/orders", { key })).status).toBe(200);
    expect((await t.api.get("/api/vendor/orders", { token: tokens.access_token })).status).toBe(200);
    const account = await browser.get("/dashboard/account");
    expect(account.status).toBe(200);
    expect(account.text).not.toContain("Forged Name");
    await signedInBrowser(t, tokens.email, TEST_PASSWORD);
    expect(r.requests).toHaveLength(1);
  });
});
