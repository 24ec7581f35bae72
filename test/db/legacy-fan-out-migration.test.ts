// Migration 0021 on events written before fan-out moved into enqueueEvent
// (dispatched_at null): each gets the deliveries the retired dispatcher fan-out gave it, once,
// and is marked dispatched, so no dispatcher needs to look for such events again.
import fs from "node:fs";
import { afterAll, expect, it } from "vitest";
import { isId } from "../../src/lib/ids.ts";
import { MIGRATIONS, migrationsBefore, openMigratingDatabase } from "../helpers/migrations.ts";

const cleanup: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c();
});

it("an event left undispatched gets one delivery per subscribed endpoint: PENDING when ACTIVE, SKIPPED when DISABLED, a test event its target", async () => {
  const db = await openMigratingDatabase(cleanup);
  const before = migrationsBefore("0021_fan_out_legacy_events");
  cleanup.push(() => fs.rmSync(before, { recursive: true, force: true }));
  await db.migrate(before);

  const at = "2026-01-02T03:04:05.000Z";
  await db.query(
    `insert into vendors (id, name, email, created_at, updated_at)
     values ('shopaaaaaaaaaaaaaaaaaaaa', 'Shop', 'shop@x.example', $1, $1),
            ('shopbbbbbbbbbbbbbbbbbbbb', 'Other', 'other@x.example', $1, $1)`,
    [at],
  );
  await db.query(
    `insert into webhooks (id, vendor_id, url, events, status, secret, created_at, updated_at) values
       ('hookactiveaaaaaaaaaaaaaa', 'shopaaaaaaaaaaaaaaaaaaaa', 'https://a.example/h', '["order.created"]', 'ACTIVE', 's', $1, $1),
       ('hookdisabledaaaaaaaaaaaa', 'shopaaaaaaaaaaaaaaaaaaaa', 'https://b.example/h', '["order.created","customer.created"]', 'DISABLED', 's', $1, $1),
       ('hookotheraaaaaaaaaaaaaaa', 'shopbbbbbbbbbbbbbbbbbbbb', 'https://c.example/h', '["order.created"]', 'ACTIVE', 's', $1, $1)`,
    [at],
  );
  await db.query(
    `insert into events (id, vendor_id, type, data, created_at, dispatched_at, target_webhook_id) values
       ('evorderaaaaaaaaaaaaaaaaa', 'shopaaaaaaaaaaaaaaaaaaaa', 'order.created', '{}', $1, null, null),
       ('evcustomeraaaaaaaaaaaaaa', 'shopaaaaaaaaaaaaaaaaaaaa', 'customer.created', '{}', $1, null, null),
       ('evtestaaaaaaaaaaaaaaaaaa', 'shopaaaaaaaaaaaaaaaaaaaa', 'webhook.test', '{}', $1, null, 'hookdisabledaaaaaaaaaaaa'),
       ('evunwantedaaaaaaaaaaaaaa', 'shopaaaaaaaaaaaaaaaaaaaa', 'appointment.created', '{}', $1, null, null),
       ('evdoneaaaaaaaaaaaaaaaaaa', 'shopaaaaaaaaaaaaaaaaaaaa', 'order.created', '{}', $1, $1, null)`,
    [at],
  );

  await db.migrate(MIGRATIONS);

  const deliveries = await db.query(
    `select id, event_id, webhook_id, vendor_id, event_type, status, next_attempt_at is not null as due
     from webhook_deliveries order by event_id, webhook_id`,
  );
  expect(deliveries.map(({ id: _, ...d }) => d)).toEqual([
    {
      event_id: "evcustomeraaaaaaaaaaaaaa",
      webhook_id: "hookdisabledaaaaaaaaaaaa",
      vendor_id: "shopaaaaaaaaaaaaaaaaaaaa",
      event_type: "customer.created",
      status: "SKIPPED",
      due: false,
    },
    {
      event_id: "evorderaaaaaaaaaaaaaaaaa",
      webhook_id: "hookactiveaaaaaaaaaaaaaa",
      vendor_id: "shopaaaaaaaaaaaaaaaaaaaa",
      event_type: "order.created",
      status: "PENDING",
      due: true,
    },
    {
      event_id: "evorderaaaaaaaaaaaaaaaaa",
      webhook_id: "hookdisabledaaaaaaaaaaaa",
      vendor_id: "shopaaaaaaaaaaaaaaaaaaaa",
      event_type: "order.created",
      status: "SKIPPED",
      due: false,
    },
    {
      event_id: "evtestaaaaaaaaaaaaaaaaaa",
      webhook_id: "hookdisabledaaaaaaaaaaaa",
      vendor_id: "shopaaaaaaaaaaaaaaaaaaaa",
      event_type: "webhook.test",
      status: "PENDING",
      due: true,
    },
  ]);
  for (const d of deliveries) expect(isId(String(d.id))).toBe(true);
  const undispatched = await db.query("select id from events where dispatched_at is null");
  expect(undispatched).toEqual([]);
}, 120_000);
