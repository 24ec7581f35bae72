// The webhooks pages against real local receivers, with the dispatcher running in this process.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listDeliveries, listWebhooks } from "../../src/modules/webhooks/webhooks.service.ts";
import { type Dispatcher, startDispatcher } from "../../src/webhook-delivery/dispatcher.ts";
import type { Browser } from "../helpers/browser.ts";
import {
  confirmThrough,
  flashOf,
  follow,
  postFrom,
  signedInVendor,
  XSS,
  XSS_ESCAPED,
} from "../helpers/dashboard.ts";
import { useTestApp } from "../helpers/test-app.ts";
import { eventually, type Receiver, type Responder, startReceiver } from "../helpers/webhook-receiver.ts";

let dispatcher: Dispatcher;
const receivers: Receiver[] = [];
const t = useTestApp({
  ownDatabase: true,
  // Two deliveries fail three times each in one test: six failures in a row would open the
  // circuit breaker (5) for its 10 s cooldown, which these pages' tests are not about.
  env: { WEBHOOK_RETRY_DELAYS_MS: "50,100", WEBHOOK_TIMEOUT_MS: "1000", WEBHOOK_BREAKER_FAILURES: "1000" },
});
beforeAll(async () => {
  dispatcher = await startDispatcher({ config: t.config, database: t.database });
});
afterAll(async () => {
  await dispatcher.stop(1_000);
  await Promise.all(receivers.map((r) => r.close()));
});

const HOOKS = "/dashboard/integrations/webhooks";

async function receiver(respond?: Responder) {
  const r = await startReceiver(respond);
  receivers.push(r);
  return r;
}

/** Registers through the page; returns the webhook's page (after the redirect) and its id. */
async function register(browser: Browser, url: string, events: string[] = ["order.created"]) {
  const res = await postFrom(browser, HOOKS, HOOKS, { url, events });
  const page = await follow(browser, res);
  const id = /\/webhooks\/([a-z0-9]+)$/.exec(res.location ?? "")?.[1];
  if (!id) throw new Error(`not registered: ${flashOf(page)?.text}`);
  return { page, id, here: `${HOOKS}/${id}` };
}

describe("dashboard: webhooks pages", () => {
  it("shows an empty state, registers a webhook whose secret is shown once, and lists it with its status", async () => {
    const { browser } = await signedInVendor(t);
    expect((await browser.get(HOOKS)).text).toContain("No webhooks yet");
    const r = await receiver();
    const { page, id, here } = await register(browser, r.url, ["order.created", "customer.created"]);
    const secret = flashOf(page)?.secret ?? "";
    expect(secret.length).toBeGreaterThan(20);
    expect(page.text).toContain(r.url);
    expect((await browser.get(here)).text).not.toContain(secret);
    const list = await browser.get(HOOKS);
    expect(list.text).not.toContain(secret);
    expect(list.text).toContain(`data-webhook-id="${id}"`);
    expect(list.text).toContain(`<span class="badge">ACTIVE</span>`);
    expect(list.text).toContain(`<span class="badge">customer.created</span>`);
  });

  it("refuses a webhook without events or with a bad URL, with an error flash, registering nothing", async () => {
    const { vendor, browser } = await signedInVendor(t);
    const r = await receiver();
    const none = await follow(browser, await postFrom(browser, HOOKS, HOOKS, { url: r.url }));
    expect(flashOf(none)?.text).toContain("events must list at least one event");
    const bad = await follow(
      browser,
      await postFrom(browser, HOOKS, HOOKS, { url: "ftp://x", events: "order.created" }),
    );
    expect(flashOf(bad)).toMatchObject({ kind: "error" });
    const unknown = await follow(
      browser,
      await postFrom(browser, HOOKS, HOOKS, { url: r.url, events: "nope" }),
    );
    expect(flashOf(unknown)?.text).toContain("unknown event nope");
    expect((await listWebhooks(t.ctx, vendor.id)).webhooks).toEqual([]);
  });

  it("sends a test event from the page and shows the attempt in the delivery log, the receiver's answer escaped", async () => {
    const { browser } = await signedInVendor(t);
    const r = await receiver(() => ({ status: 200, body: XSS }));
    const { here } = await register(browser, `${r.url}?q=${XSS}`);
    const queued = await follow(browser, await postFrom(browser, here, `${here}/test`));
    expect(flashOf(queued)?.text).toContain("Test event queued");
    await r.waitFor(1);
    // The delivery's own status, not the word: the log's status filter offers "SUCCEEDED" on
    // every page, so a page read before the attempt's record committed matched too.
    const log = await eventually(async () => {
      const page = await browser.get(here);
      return page.text.includes('data-status="SUCCEEDED"') ? page : undefined;
    });
    expect(log.text).toContain("<code>webhook.test</code>");
    expect(log.text).toMatch(/status 200 · \d+ ms/);
    expect(log.text).toContain(`<pre>${XSS_ESCAPED}</pre>`);
    expect(log.text).toContain(`?q=${XSS_ESCAPED}`);
    expect(log.text).not.toContain("<script>alert(1)");
    expect(log.text).not.toContain("<img src=x");
    expect((await browser.get(HOOKS)).text).toContain(`?q=${XSS_ESCAPED}`);
  });

  it("edits the URL and events, disables and enables, rotates the secret and deletes", async () => {
    const { vendor, browser } = await signedInVendor(t);
    const a = await receiver();
    const b = await receiver();
    const { id, here } = await register(browser, a.url);
    const edited = await follow(
      browser,
      await postFrom(browser, here, `${here}/edit`, {
        url: b.url,
        events: ["order.status_changed", "inquiry.received"],
      }),
    );
    expect(flashOf(edited)?.text).toContain("Webhook updated");
    expect(edited.text).toContain(b.url);
    expect(edited.text).toMatch(/value="inquiry.received" checked/);
    expect(edited.text).not.toMatch(/value="order.created" checked/);

    const disabled = await follow(
      browser,
      await postFrom(browser, here, `${here}/status`, { status: "DISABLED" }),
    );
    expect(flashOf(disabled)?.text).toContain("Webhook disabled");
    expect((await browser.get(HOOKS)).text).toContain("Disabled by the vendor");
    const enabled = await follow(
      browser,
      await postFrom(browser, here, `${here}/status`, { status: "ACTIVE" }),
    );
    expect(flashOf(enabled)?.text).toContain("Webhook enabled");
    expect((await listWebhooks(t.ctx, vendor.id)).webhooks[0]).toMatchObject({
      status: "ACTIVE",
      disabledReason: null,
    });

    const rotated = await follow(browser, await confirmThrough(browser, `${here}/rotate-secret`));
    expect(flashOf(rotated)?.text).toContain("New signing secret");
    expect(flashOf(rotated)?.secret?.length).toBeGreaterThan(20);
    expect((await browser.get(here)).text).not.toContain(flashOf(rotated)?.secret);

    const deleted = await follow(browser, await confirmThrough(browser, `${here}/delete`));
    expect(flashOf(deleted)?.text).toContain("Webhook deleted");
    expect(deleted.text).toContain("No webhooks yet");
    expect((await browser.get(`${HOOKS}/${id}`)).status).toBe(404);
  });

  it("redelivers a delivery and recovers failed deliveries since a date-time", async () => {
    const { vendor, browser } = await signedInVendor(t);
    let failing = true;
    const r = await receiver(() => ({ status: failing ? 500 : 204 }));
    const { id, here } = await register(browser, r.url);
    const since = new Date(Date.now() - 60_000).toISOString().slice(0, 16);
    await postFrom(browser, here, `${here}/test`);
    await postFrom(browser, here, `${here}/test`);
    const [failed] = await eventually(async () => {
      const { deliveries } = await listDeliveries(t.ctx, vendor.id, id, {});
      return deliveries.length === 2 && deliveries.every((d) => d.status === "FAILED")
        ? deliveries
        : undefined;
    });
    if (!failed) throw new Error("no failed delivery");
    const log = await browser.get(here);
    expect(log.text).toContain(`<span class="badge">FAILED</span>`);
    expect(log.text).toContain("3 attempts");
    failing = false;
    // One event is redelivered by hand; recovery then finds only the other one (CONTRACT 7: a
    // failed event with a pending or succeeded delivery is not queued twice).

    const redelivered = await follow(
      browser,
      await postFrom(browser, here, `${here}/deliveries/${failed.id}/redeliver`),
    );
    expect(flashOf(redelivered)?.text).toContain("queued again");
    const recovered = await follow(browser, await postFrom(browser, here, `${here}/recover`, { since }));
    expect(flashOf(recovered)?.text).toMatch(/^\s*1 failed delivery queued again/);
    await eventually(async () => {
      const { deliveries } = await listDeliveries(t.ctx, vendor.id, id, {});
      return deliveries.filter((d) => d.status === "SUCCEEDED").length === 2;
    });
    const bad = await follow(
      browser,
      await postFrom(browser, here, `${here}/recover`, { since: "yesterday" }),
    );
    expect(flashOf(bad)?.text).toContain("since must be a date and time");
  });

  it("another vendor's webhook or delivery id is a 404 page and nothing changes", async () => {
    const owner = await signedInVendor(t);
    const other = await signedInVendor(t);
    const r = await receiver();
    const { id, here } = await register(owner.browser, r.url);
    await postFrom(owner.browser, here, `${here}/test`);
    const delivery = await eventually(async () => {
      const { deliveries } = await listDeliveries(t.ctx, owner.vendor.id, id, {});
      return deliveries[0]?.status === "SUCCEEDED" ? deliveries[0] : undefined;
    });
    expect((await other.browser.get(here)).status).toBe(404);
    expect((await other.browser.get(`${HOOKS}/not-an-id`)).status).toBe(404);
    const forms: Array<[string, Record<string, string | string[]>]> = [
      ["edit", { url: "http://127.0.0.1:9/x", events: "order.created" }],
      ["status", { status: "DISABLED" }],
      ["rotate-secret", { confirmed: "yes" }],
      ["test", {}],
      ["recover", { since: "2020-01-01T00:00" }],
      [`deliveries/${delivery.id}/redeliver`, {}],
      ["delete", { confirmed: "yes" }],
    ];
    for (const page of ["rotate-secret", "delete"]) {
      expect((await other.browser.get(`${here}/${page}`)).status, page).toBe(404);
    }
    for (const [action, form] of forms) {
      const res = await postFrom(other.browser, HOOKS, `${here}/${action}`, form);
      expect(res.status, action).toBe(404);
    }
    // The owner's own webhook with a delivery id it does not have.
    const mine = await register(owner.browser, r.url);
    expect(
      (await postFrom(owner.browser, HOOKS, `${mine.here}/deliveries/${delivery.id}/redeliver`)).status,
    ).toBe(404);

    const { webhooks } = await listWebhooks(t.ctx, owner.vendor.id);
    expect(webhooks.find((w) => w.id === id)).toMatchObject({
      url: r.url,
      status: "ACTIVE",
      events: ["order.created"],
    });
    expect((await listDeliveries(t.ctx, owner.vendor.id, id, {})).deliveries).toHaveLength(1);
    expect(r.requests).toHaveLength(1);
  });
});
