// A webhook's health on the dashboard follows what the dispatcher really saw:
// after three deliveries in a row answered 500, the webhook's page and the Integrations overview
// say it is failing with three failures in a row, and a success clears the streak. A real
// dispatcher sends to a real receiver; retries wait an hour, so the three first attempts are all
// that happens while the test looks.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Dispatcher, startDispatcher } from "../../src/webhook-delivery/dispatcher.ts";
import { signedInBrowser } from "../helpers/dashboard.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";
import { eventually, type Receiver, startReceiver } from "../helpers/webhook-receiver.ts";

let dispatcher: Dispatcher;
let receiver: Receiver;
let status = 500;
const t = useTestApp({
  ownDatabase: true,
  env: {
    WEBHOOK_RETRY_DELAYS_MS: "3600000",
    WEBHOOK_TIMEOUT_MS: "2000",
    // The breaker stays closed: every delivery's first attempt reaches the receiver.
    WEBHOOK_BREAKER_FAILURES: "1000",
  },
});
beforeAll(async () => {
  dispatcher = await startDispatcher({ config: t.config, database: t.database });
  receiver = await startReceiver(() => ({ status }));
});
afterAll(async () => {
  await dispatcher?.stop(1_000);
  await receiver?.close();
});

describe("webhook health on the dashboard", () => {
  it("three deliveries answered 500 in a row: failing, 3 in a row, not 'All delivering'; a success clears it", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx);
    const hook = await t.api.post(
      "/api/vendor/webhooks",
      { url: `${receiver.url}/hook`, events: ["order.created"] },
      { key },
    );
    expect(hook.status).toBe(201);
    const browser = await signedInBrowser(t, vendor.email);
    const page = `/dashboard/integrations/webhooks/${hook.body.id}`;
    expect((await browser.get(page)).text).toContain('data-health="healthy"');

    for (const name of ["One", "Two", "Three"]) {
      const order = await t.api.post("/api/vendor/orders", { customerName: name, type: "SUIT" }, { key });
      expect(order.status).toBe(201);
    }
    // Each delivery's first attempt answered 500 and is recorded (the next waits an hour).
    await eventually(async () => {
      const res = await t.api.get(`/api/vendor/webhooks/${hook.body.id}/deliveries`, { key });
      const deliveries: { status: string; attemptCount: number }[] = res.body.deliveries;
      return (
        deliveries.length === 3 && deliveries.every((d) => d.status === "PENDING" && d.attemptCount === 1)
      );
    });
    expect(receiver.requests).toHaveLength(3);

    for (const path of [page, "/dashboard/integrations/webhooks"]) {
      const failing = await browser.get(path);
      expect(failing.text, path).toContain('data-health="failing"');
      expect(failing.text, path).toContain('data-failures="3"');
      expect(failing.text, path).toContain("Failures in a row: 3");
    }
    const overview = await browser.get("/dashboard/integrations");
    expect(overview.text).not.toContain("All delivering");
    expect(overview.text).toContain("1 failing");

    // The endpoint recovers: a test delivery succeeds and the streak is over.
    status = 200;
    const test = await t.api.post(`/api/vendor/webhooks/${hook.body.id}/test`, {}, { key });
    expect(test.status).toBe(202);
    await eventually(async () => (await browser.get(page)).text.includes('data-failures="0"'));
    const after = await browser.get(page);
    expect(after.text).not.toContain('data-health="failing"');
    // The three deliveries still wait for their retry.
    expect(after.text).toContain('data-health="retrying"');
    expect((await browser.get("/dashboard/integrations")).text).toContain("All delivering");
  });
});
