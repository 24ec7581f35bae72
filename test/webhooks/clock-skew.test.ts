// Issue 25 item 6: a dispatcher whose host clock is wrong still schedules on the database's clock.
// A worker 5 minutes ahead used to retry after 1 s instead of 60 s (its retry was due 60 s after
// its own "now"), take other dispatchers' leases as ended (sending their deliveries twice, over
// the endpoint's cap), and leave leases 5 minutes too long. It also says so in its log.
import { sql } from "drizzle-orm";
import { afterEach, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.ts";
import {
  type Dispatcher,
  type DispatcherEvent,
  startDispatcher,
} from "../../src/webhook-delivery/dispatcher.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";
import { type Receiver, startReceiver } from "../helpers/webhook-receiver.ts";

const AHEAD_MS = 5 * 60_000;
const TIMEOUT_MS = 2_000;
/** The dispatcher's lease: two timeouts and 5 s (dispatcher.ts). */
const LEASE_MS = TIMEOUT_MS * 2 + 5_000;

const t = useTestApp({
  ownDatabase: true,
  env: {
    WEBHOOK_RETRY_DELAYS_MS: "60000",
    WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
    WEBHOOK_BREAKER_FAILURES: "1000",
  },
});
const dispatchers: Dispatcher[] = [];
const receivers: Receiver[] = [];
const gates: Array<() => void> = [];
afterEach(async () => {
  for (const open of gates.splice(0)) open();
  await Promise.all(dispatchers.splice(0).map((d) => d.stop(500)));
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

/** A dispatcher on `offsetMs` of skew, whose events and warnings the test can wait on. */
async function dispatcher(offsetMs: number) {
  const seen: DispatcherEvent[] = [];
  const waiters: Array<() => boolean> = [];
  const warnings: string[] = [];
  const d = await startDispatcher({
    config: t.config,
    database: t.database,
    now: () => new Date(Date.now() + offsetMs),
    log: {
      info() {},
      error() {},
      warn: (_o: unknown, message?: string) => void warnings.push(message ?? ""),
    },
    observe(event) {
      seen.push(event);
      for (const w of waiters.splice(0)) if (!w()) waiters.push(w);
    },
  });
  dispatchers.push(d);
  /** Resolves once an event after the `from`-th matches. */
  const next = (match: (e: DispatcherEvent) => boolean, from = seen.length) =>
    new Promise<DispatcherEvent>((resolve) => {
      const check = () => {
        const hit = seen.slice(from).find(match);
        if (hit) resolve(hit);
        return hit !== undefined;
      };
      if (!check()) waiters.push(check);
    });
  return { d, next, warnings, seen };
}

/** A webhook of a new vendor on `url`, and one order.created queued for it. */
async function oneDelivery(url: string) {
  const { vendor, key } = await createVendorWithKey(t.ctx, "Skew Bridal");
  const hook = await t.api.post("/api/vendor/webhooks", { url, events: ["order.created"] }, { key });
  expect(hook.status).toBe(201);
  expect((await t.api.post("/api/vendor/orders", { customerName: "S", type: "SUIT" }, { key })).status).toBe(
    201,
  );
  return { vendorId: vendor.id as string, webhookId: hook.body.id as string };
}

/** Seconds from the database's now to the delivery's due time (a retry, or a lease's end). */
async function dueInSeconds(webhookId: string): Promise<number> {
  const [row] = await queryRows<{ s: number }>(
    t.database.db,
    sql`select extract(epoch from next_attempt_at - clock_timestamp())::float8 as s
        from webhook_deliveries where webhook_id = ${webhookId}`,
  );
  return Number(row?.s);
}

it("a dispatcher 5 minutes ahead retries 60 s after the database's now, and says its clock is off", async () => {
  const receiver = await startReceiver(() => ({ status: 500 }));
  receivers.push(receiver);
  const { webhookId } = await oneDelivery(receiver.url);
  const { next, warnings } = await dispatcher(AHEAD_MS);
  await next((e) => e.type === "settled" && e.outcome === "retrying");
  // 60 s and up to 10% jitter, on the database's clock (not 5 minutes later).
  const due = await dueInSeconds(webhookId);
  expect(due).toBeGreaterThan(55);
  expect(due).toBeLessThan(67);
  expect(receiver.requests).toHaveLength(1);
  expect(warnings.some((w) => w.includes("clock differs from the database's"))).toBe(true);
});

it("a lease taken 5 minutes ahead ends one lease after the database's now, and no dispatcher takes a lease that has not ended", async () => {
  const receiver = await startReceiver(() => {
    let open: () => void = () => {};
    const until = new Promise<void>((r) => {
      open = r;
    });
    gates.push(open);
    return { status: 200, until };
  });
  receivers.push(receiver);
  const { webhookId } = await oneDelivery(receiver.url);
  // The skewed dispatcher claims and holds the POST open.
  const ahead = await dispatcher(AHEAD_MS);
  await ahead.next((e) => e.type === "claimed");
  await receiver.waitFor(1);
  const leaseLeft = await dueInSeconds(webhookId);
  expect(leaseLeft).toBeLessThan(LEASE_MS / 1000 + 1);
  // One behind the database by as much finds nothing to take while the POST is in flight.
  const behind = await dispatcher(-AHEAD_MS);
  await behind.next((e) => e.type === "idle");
  await behind.next((e) => e.type === "idle"); // a whole turn after its first look
  // And the other way round: the skewed one does not take a lease of a dispatcher on time.
  const { webhookId: second } = await oneDelivery(receiver.url);
  await receiver.waitFor(2);
  expect(await dueInSeconds(second)).toBeLessThan(LEASE_MS / 1000 + 1);
  const from = ahead.seen.length;
  ahead.d.wake();
  await ahead.next((e) => e.type === "idle", from);
  expect(receiver.requests).toHaveLength(2);
  expect(new Set(receiver.requests.map((r) => r.headers["x-service-delivery"])).size).toBe(2);
});
