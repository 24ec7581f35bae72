// The dashboard's delivery log (CONTRACT 12): the same filters as the API (status, event type,
// event id) in a form that the pager's links keep, "attempt n of N" and the next attempt's time
// on a delivery waiting for a retry, and "All events" (`*`) on create; its text in the member's
// language (page.t), as on every dashboard page. Real local receivers, the dispatcher in this process.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getWebhook } from "../../src/modules/webhooks/webhooks.service.ts";
import { type Dispatcher, startDispatcher } from "../../src/webhook-delivery/dispatcher.ts";
import type { Browser } from "../helpers/browser.ts";
import { follow, postFrom, signedInVendor } from "../helpers/dashboard.ts";
import { createKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";
import { eventually, type Receiver, startReceiver } from "../helpers/webhook-receiver.ts";

let dispatcher: Dispatcher;
const receivers: Receiver[] = [];
// Two retries a minute apart: a failed delivery waits, PENDING, for its 2nd attempt of 3.
const t = useTestApp({
  ownDatabase: true,
  env: { WEBHOOK_RETRY_DELAYS_MS: "60000,60000", WEBHOOK_BREAKER_FAILURES: "1000" },
});
beforeAll(async () => {
  dispatcher = await startDispatcher({ config: t.config, database: t.database });
});
afterAll(async () => {
  await dispatcher.stop(1_000);
  await Promise.all(receivers.map((r) => r.close()));
});

const HOOKS = "/dashboard/integrations/webhooks";
const amp = (s: string) => s.replaceAll("&", "&amp;");

/** Orders fail, test events succeed. */
async function shopWithLog(tests: number) {
  const { vendor, browser } = await signedInVendor(t);
  const r = await startReceiver((req) => ({ status: req.body.event === "order.created" ? 500 : 204 }));
  receivers.push(r);
  const res = await postFrom(browser, HOOKS, HOOKS, { url: r.url, events: "*" });
  const id = /\/webhooks\/([a-z0-9]+)$/.exec(res.location ?? "")?.[1] as string;
  expect(id).toBeTruthy();
  const key = await createKey(t.ctx, vendor.id);
  const order = await t.api.post("/api/vendor/orders", { customerName: "Lia Costa", type: "SUIT" }, { key });
  expect(order.status).toBe(201);
  for (let i = 0; i < tests; i++) await t.api.post(`/api/vendor/webhooks/${id}/test`, {}, { key });
  await r.waitFor(tests + 1);
  const here = `${HOOKS}/${id}`;
  // Settled: the order's first attempt recorded (PENDING, due again), the test events SUCCEEDED.
  await eventually(async () => {
    const log = await t.api.get(`/api/vendor/webhooks/${id}/deliveries`, { key });
    const all = log.body.deliveries as Array<{ status: string; attemptCount: number; event: string }>;
    const waiting = all.filter((d) => d.status === "PENDING" && d.attemptCount === 1).length;
    // "*" also gets the customer the order created (customer.created), which succeeds too.
    const succeeded = all.filter((d) => d.status === "SUCCEEDED" && d.event === "webhook.test").length;
    return waiting === 1 && succeeded === tests;
  }, 20_000);
  return { vendor, browser, id, here, key };
}

async function page(browser: Browser, path: string) {
  const res = await browser.get(path);
  expect(res.status).toBe(200);
  return res.text;
}

describe("dashboard: the delivery log", () => {
  it('registers "All events" as *, shown as All events', async () => {
    const { vendor, browser, id } = await shopWithLog(0);
    expect((await getWebhook(t.ctx, vendor.id, id)).events).toEqual(["*"]);
    const list = await page(browser, HOOKS);
    expect(list).toContain('<span class="badge" data-events="all">All events</span>');
    const detail = await page(browser, `${HOOKS}/${id}`);
    expect(detail).toMatch(/<input type="checkbox" name="events" value="\*" checked>/);
    // Ticked beside others, it subscribes to everything alone.
    await follow(
      browser,
      await postFrom(browser, `${HOOKS}/${id}`, `${HOOKS}/${id}/edit`, {
        url: (await getWebhook(t.ctx, vendor.id, id)).url,
        events: ["order.created", "*"],
      }),
    );
    expect((await getWebhook(t.ctx, vendor.id, id)).events).toEqual(["*"]);
  });

  it("shows attempt n of N and the next attempt's time on a delivery waiting for a retry", async () => {
    const { browser, here } = await shopWithLog(1);
    const text = await page(browser, here);
    const waiting =
      /<p class="muted next-attempt" data-attempt="2" data-of="3">Attempt 2 of 3 is due <time datetime="([^"]+)">/.exec(
        text,
      );
    expect(waiting).not.toBeNull();
    const due = Date.parse(waiting?.[1] as string);
    expect(due).toBeGreaterThan(Date.now() + 30_000);
    expect(due).toBeLessThan(Date.now() + 70_000);
  });

  it("filters by status, event type and event id, and the pager keeps the filters", async () => {
    const { browser, here, key, id } = await shopWithLog(21);
    const pending = await page(browser, `${here}?status=PENDING`);
    expect(pending.match(/data-status="PENDING"/g)).toHaveLength(1);
    expect(pending).not.toContain('data-status="SUCCEEDED"');
    expect(pending).toContain('<option value="PENDING" selected>Pending</option>');

    const tests = await page(browser, `${here}?event=webhook.test`);
    expect(tests.match(/data-status="SUCCEEDED"/g)).toHaveLength(20);
    expect(tests).toContain('<option value="webhook.test" selected>webhook.test</option>');
    const next = /<a class="button" href="([^"]+)">Next page/.exec(tests)?.[1] as string;
    expect(next).toContain("event=webhook.test");
    expect(next).toContain("cursor=");
    const second = await page(browser, next.replaceAll("&amp;", "&"));
    expect(second.match(/data-status="SUCCEEDED"/g)).toHaveLength(1);
    expect(second).not.toContain('data-status="PENDING"');

    // The first page's link keeps the filter too.
    const paged = await page(browser, `${here}?event=webhook.test&status=SUCCEEDED`);
    expect(paged).toContain(`<a href="${here}?${amp("status=SUCCEEDED&event=webhook.test")}">First page</a>`);

    const log = await t.api.get(`/api/vendor/webhooks/${id}/deliveries?event=order.created`, { key });
    const eventId = log.body.deliveries[0].eventId as string;
    const one = await page(browser, `${here}?eventId=${eventId}`);
    expect(one.match(/data-delivery-id=/g)).toHaveLength(1);
    expect(one).toContain(`value="${eventId}"`);

    const bad = await page(browser, `${here}?eventId=${encodeURIComponent("<b>nope</b>")}`);
    expect(bad).toContain("This is not an event id.");
    expect(bad).toContain('value="&lt;b&gt;nope&lt;/b&gt;"');
    expect(bad).not.toContain("data-delivery-id=");
    expect(bad).toContain("No deliveries match these filters.");
  });

  it("speaks the member's language, like every dashboard page, whatever the browser asks for", async () => {
    const { browser, here } = await shopWithLog(0);
    const saved = await postFrom(browser, "/dashboard/account", "/dashboard/account/language", {
      language: "de",
    });
    expect(saved.status).toBe(303);
    const cookie = [...browser.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    const res = await fetch(`${t.url}${here}`, { headers: { cookie, "accept-language": "fr-FR,fr;q=0.9" } });
    const text = await res.text();
    expect(text).toContain('<html lang="de">');
    expect(text).toContain("<h2>Zustellprotokoll</h2>");
    expect(text).toContain("Versuch 2 von 3 ist fällig");
    expect(text).toContain("Alle Ereignisse");
    expect(text).toContain('<option value="FAILED">Fehlgeschlagen</option>');
  });
});
