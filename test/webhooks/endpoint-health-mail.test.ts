// CONTRACT 12: the shop's owners are mailed once when an endpoint starts failing (a delivery fails
// its 4th attempt, or is given up sooner) and once when it recovers or the service disables it,
// never once per failed delivery, whichever of two dispatchers records the attempts. Real failing
// receivers, real SMTP (smtp-server), the mail read back with mailparser.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.ts";
import { type Dispatcher, startDispatcher } from "../../src/webhook-delivery/dispatcher.ts";
import { useDeliveryFixture } from "../helpers/delivery-fixture.ts";
import { deliveriesSettled } from "../helpers/events.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useMailSender } from "../helpers/smtp.ts";
import type { TestApp } from "../helpers/test-app.ts";

// Six attempts a delivery, a few milliseconds apart.
const fixture = useDeliveryFixture({ WEBHOOK_RETRY_DELAYS_MS: "20,20,20,20,20" });
const mail = useMailSender(() => fixture.t);
let t: TestApp;
let second: Dispatcher;
beforeAll(async () => {
  t = fixture.t;
  // A second worker sharing the queue: the mails must still go once.
  second = await startDispatcher({ config: t.config, database: t.database });
});
afterAll(async () => {
  await second?.stop(1_000);
});

async function mailKinds(vendorId: string): Promise<string[]> {
  const rows = await queryRows<{ kind: string }>(
    t.ctx.db,
    sql`select kind from mails where vendor_id = ${vendorId} and kind like 'webhook_%' order by created_at, kind`,
  );
  return rows.map((r) => r.kind);
}

describe("mail to the shop about a failing endpoint", () => {
  it("mails once when it starts failing, whatever the failed deliveries, and once when it recovers", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx, "Atelier Rosa");
    let healthy = false;
    const r = await fixture.receiver(() => ({ status: healthy ? 204 : 503 }));
    const hook = await fixture.register(key, r.url, ["order.created"]);
    for (let i = 0; i < 3; i++) expect((await fixture.createOrder(key, `Bride ${i}`)).status).toBe(201);
    await r.waitFor(18);
    await deliveriesSettled(t, vendor.id);
    const failed = await fixture.deliveries(key, hook.id);
    expect(failed.map((d) => d.status)).toEqual(["FAILED", "FAILED", "FAILED"]);
    // 18 failed attempts, three deliveries given up: one mail.
    expect(await mailKinds(vendor.id)).toEqual(["webhook_failing"]);
    const [failing] = await mail.sink.waitFor(vendor.email, 1);
    expect(failing?.parsed.subject).toBe(`Webhook failing: ${r.url}`);
    expect(failing?.parsed.text).toContain("The last answer: HTTP 503");
    expect(failing?.parsed.text).toContain(`/dashboard/integrations/webhooks/${hook.id}`);

    healthy = true;
    await fixture.createOrder(key, "Bride 3");
    await deliveriesSettled(t, vendor.id);
    await fixture.createOrder(key, "Bride 4");
    await r.waitFor(20);
    await deliveriesSettled(t, vendor.id);
    expect(await mailKinds(vendor.id)).toEqual(["webhook_failing", "webhook_recovered"]);
    const got = await mail.sink.waitFor(vendor.email, 2);
    expect(got[1]?.parsed.subject).toBe(`Webhook working again: ${r.url}`);

    // A later spell of failures is a new one: told again.
    healthy = false;
    await fixture.createOrder(key, "Bride 5");
    await r.waitFor(26);
    await deliveriesSettled(t, vendor.id);
    expect(await mailKinds(vendor.id)).toEqual(["webhook_failing", "webhook_recovered", "webhook_failing"]);
  });

  it("mails nobody for failures that end before a delivery's 4th attempt", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx);
    // Each delivery fails twice, then succeeds.
    const tries = new Map<string, number>();
    const r = await fixture.receiver((req) => {
      const n = (tries.get(req.body.id) ?? 0) + 1;
      tries.set(req.body.id, n);
      return { status: n <= 2 ? 500 : 200 };
    });
    await fixture.register(key, r.url, ["order.created"]);
    await fixture.createOrder(key);
    await fixture.createOrder(key);
    await r.waitFor(6);
    await deliveriesSettled(t, vendor.id);
    expect(await mailKinds(vendor.id)).toEqual([]);
  });

  it("mails the notification e-mail when the service disables the endpoint (410), and only that", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx, "Casa Nova");
    const notify = `owners-${vendor.id}@casa-nova.example`;
    await t.ctx.db.execute(sql`update vendors set notification_email = ${notify} where id = ${vendor.id}`);
    const r = await fixture.receiver(() => ({ status: 410 }));
    const hook = await fixture.register(key, r.url, ["order.created"]);
    await fixture.createOrder(key);
    await r.waitFor(1);
    await deliveriesSettled(t, vendor.id);
    expect((await t.api.get(`/api/vendor/webhooks/${hook.id}`, { key })).body.status).toBe("DISABLED");
    expect(await mailKinds(vendor.id)).toEqual(["webhook_disabled"]);
    const [disabled] = await mail.sink.waitFor(notify, 1);
    expect(disabled?.parsed.subject).toBe(`Webhook disabled: ${r.url}`);
    expect(disabled?.parsed.text).toContain("The receiver answered 410 Gone");
    expect(mail.sink.to(vendor.email)).toEqual([]);
  });

  it("a shop that disables its own endpoint is not mailed", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx);
    const r = await fixture.receiver();
    const hook = await fixture.register(key, r.url, ["order.created"]);
    const res = await t.api.patch(`/api/vendor/webhooks/${hook.id}`, { status: "DISABLED" }, { key });
    expect(res.status).toBe(200);
    await fixture.createOrder(key);
    await deliveriesSettled(t, vendor.id);
    expect(await mailKinds(vendor.id)).toEqual([]);
  });
});
