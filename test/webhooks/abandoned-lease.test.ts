// A delivery whose dispatcher died with it leased goes back to its place in the queue when the
// lease ends, not behind every delivery queued meanwhile. The outside crash test's 16
// events, leased by a dispatcher it SIGKILLed, became due at the lease's end and were sent after
// the whole backlog to a slow endpoint that had built up since (minutes later): here an endpoint
// with one slot, three deliveries leased by a dispatcher that is gone, and ten queued after them.
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.ts";
import {
  LOCKED_HOLDER_PREFIX,
  releaseClaims,
  requeueAbandoned,
} from "../../src/webhook-delivery/outbox.repository.ts";
import { useDeliveryFixture } from "../helpers/delivery-fixture.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import type { TestApp } from "../helpers/test-app.ts";

const fixture = useDeliveryFixture({ WEBHOOK_ENDPOINT_CONCURRENCY: "1" });
const { receiver, register, createOrder } = fixture;
let t: TestApp;
beforeAll(() => {
  t = fixture.t;
});

describe("a lease that ends unrecorded (issue 31)", () => {
  it("sends the deliveries a dead dispatcher leased before the ones queued after them", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const r = await receiver(() => ({ status: 200, delayMs: 20 }));
    const hook = await register(key, r.url, ["order.created"]);
    // Nothing goes out while the queue is set up: the endpoint's circuit is open for a while.
    const closesAt = Date.now() + 3_000;
    await queryRows(
      t.ctx.db,
      sql`update webhooks set circuit_open_until = ${new Date(closesAt).toISOString()}::timestamptz
          where id = ${hook.id}`,
    );
    const orders: string[] = [];
    for (let i = 0; i < 13; i++) {
      const res = await createOrder(key, `Order ${i}`);
      expect(res.status).toBe(201);
      orders.push(res.body.id);
    }
    // The first three were claimed by a dispatcher that died: leased, unrecorded, their lease
    // ended just now, after the other ten were queued.
    await queryRows(
      t.ctx.db,
      sql`update webhook_deliveries set claim_token = 'dead-claim', leased_by = 'dead-dispatcher',
            next_attempt_at = now()
          where webhook_id = ${hook.id} and id in (
            select id from webhook_deliveries where webhook_id = ${hook.id} order by created_at limit 3)`,
    );
    expect(Date.now()).toBeLessThan(closesAt); // the setup took less than the circuit's spell

    const received = await r.waitFor(13, 20_000);
    const order = received.map((q) => q.body.data.id as string);
    // One slot: they arrive in the order they were queued, the three left by the dead dispatcher
    // first (before: last, due at their lease's end).
    expect(order.slice(0, 3)).toEqual(orders.slice(0, 3));
    expect(new Set(order)).toEqual(new Set(orders));
  });

  it("a reserve given back unsent is due at its place in the queue, not behind what came since", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const r = await receiver();
    const hook = await register(key, r.url, ["order.created"]);
    await queryRows(
      t.ctx.db,
      sql`update webhooks set circuit_open_until = now() + interval '1 hour' where id = ${hook.id}`,
    );
    expect((await createOrder(key, "Held in reserve")).status).toBe(201);
    // Leased in reserve by this test's "dispatcher", then given back a while later.
    const [row] = await queryRows<{ id: string }>(
      t.ctx.db,
      sql`update webhook_deliveries set claim_token = 'reserve-claim', leased_by = 'me',
            next_attempt_at = now() + interval '25 seconds'
          where webhook_id = ${hook.id} returning id`,
    );
    const later = new Date(Date.now() + 10_000);
    expect(await releaseClaims(t.ctx.db, [{ id: row?.id ?? "", claimToken: "reserve-claim" }], later)).toBe(
      1,
    );
    const [after] = await queryRows<{ due: boolean; claim_token: string | null }>(
      t.ctx.db,
      sql`select next_attempt_at = created_at as due, claim_token from webhook_deliveries
          where id = ${row?.id ?? ""}`,
    );
    expect(after).toEqual({ due: true, claim_token: null });
  });

  it("a dead dispatcher's leases are requeued once its lock is gone, not a lease later", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const r = await receiver();
    const hook = await register(key, r.url, ["order.created"]);
    // Nothing goes out while the leases are looked at: the endpoint's circuit is open.
    await queryRows(
      t.ctx.db,
      sql`update webhooks set circuit_open_until = now() + interval '1 hour' where id = ${hook.id}`,
    );
    const orders: string[] = [];
    for (const name of ["Leased by the dead", "Leased by the living"]) {
      const res = await createOrder(key, name);
      expect(res.status).toBe(201);
      orders.push(res.body.id);
    }
    // Both leased for another hour: one by a dispatcher whose process is gone (nobody holds its
    // lock), one by a dispatcher alive (this test holds its lock, as a live process does).
    const dead = `${LOCKED_HOLDER_PREFIX}the-dead`;
    const living = `${LOCKED_HOLDER_PREFIX}the-living`;
    const releaseLiving = await t.database.holdLock(living);
    await queryRows(
      t.ctx.db,
      sql`update webhook_deliveries d set claim_token = 'a-claim', next_attempt_at = now() + interval '1 hour',
            leased_by = case when d.id = (select id from webhook_deliveries where webhook_id = ${hook.id}
              order by created_at limit 1) then ${dead} else ${living} end
          where d.webhook_id = ${hook.id}`,
    );
    const leases = () =>
      queryRows<{ holder: string; due: boolean }>(
        t.ctx.db,
        sql`select leased_by as holder, next_attempt_at = created_at as due from webhook_deliveries
            where webhook_id = ${hook.id} order by created_at`,
      );

    // Requeued (by this call or the dispatcher's poll): the dead one's lease at once, due at its
    // place in the queue (before: an hour later, at its lease's end); the living one's left alone.
    await requeueAbandoned(t.ctx.db, new Date());
    expect(await leases()).toEqual([
      { holder: dead, due: true },
      { holder: living, due: false },
    ]);
    // Its lock given up (its process ended), the living one's is requeued too.
    await releaseLiving();
    await requeueAbandoned(t.ctx.db, new Date());
    expect(await leases()).toEqual([
      { holder: dead, due: true },
      { holder: living, due: true },
    ]);
    await queryRows(t.ctx.db, sql`update webhooks set circuit_open_until = null where id = ${hook.id}`);
    const received = await r.waitFor(2, 10_000);
    expect(received.map((q) => q.body.data.id)).toEqual(orders);
  });
});
