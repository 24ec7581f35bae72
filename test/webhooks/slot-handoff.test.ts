// CONTRACT 7 under a backlog: an endpoint never has more than its cap of attempts in flight
// (WEBHOOK_ENDPOINT_CONCURRENCY, across dispatchers), and a slot freed by a successful POST goes
// straight to the next delivery, which the dispatcher's claim leased in reserve, without waiting
// for another claim. A POST that fails, and a dispatcher that stops, give the reserve back to the
// queue at once. Real receivers, real dispatchers, PGlite or the PostgreSQL of TEST_DATABASE_URL.
//
// The receivers hold POSTs open until the test answers them, so no time bound of the dispatcher's
// may end first: a 30 s WEBHOOK_TIMEOUT_MS (a lease of 65 s, a reserve that may go out up to 34 s
// after its claim), and a stopping dispatcher's grace of 20 s. With 5 s of each, a 5 s stall of a
// loaded machine (CI's PostgreSQL run once) timed the held POSTs out before the test's answers
// arrived: none SUCCEEDED. What these tests assert is order and counts, never speed.
import { and, eq, isNotNull } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import type { Config } from "../../src/config.ts";
import { webhookDeliveries } from "../../src/db/schema/index.ts";
import { type Dispatcher, startDispatcher } from "../../src/webhook-delivery/dispatcher.ts";
import { type DispatcherEvents, dispatcherEvents } from "../helpers/dispatcher-events.ts";
import { queueEvents } from "../helpers/events.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";
import {
  eventually,
  type ReceivedRequest,
  type Receiver,
  sleep,
  startReceiver,
} from "../helpers/webhook-receiver.ts";

const t = useTestApp({
  ownDatabase: true,
  env: { WEBHOOK_RETRY_DELAYS_MS: "60000", WEBHOOK_TIMEOUT_MS: "30000" },
});
const receivers: Receiver[] = [];
const dispatchers: Dispatcher[] = [];
const gates: Array<() => void> = [];

// Each test's dispatchers stop with it, so none takes the next test's deliveries.
afterEach(async () => {
  for (const open of gates.splice(0)) open();
  await Promise.all(dispatchers.splice(0).map((d) => d.stop(500)));
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

/** A receiver that holds every request until the test answers it: `answer(i)` lets the i-th go. */
async function heldReceiver(status: (index: number) => number = () => 200) {
  const held: Array<() => void> = [];
  const r = await startReceiver((_req, index) => {
    let release: () => void = () => {};
    const until = new Promise<void>((resolve) => {
      release = resolve;
    });
    held[index] = release;
    gates.push(release);
    return { status: status(index), until };
  });
  receivers.push(r);
  return { receiver: r, answer: (index: number) => held[index]?.() };
}

/** A dispatcher, and what it did (claimed, idle, settled), for the test to wait on. */
async function dispatcher(overrides: Partial<Config>): Promise<Dispatcher & { events: DispatcherEvents }> {
  const events = dispatcherEvents();
  const d = await startDispatcher({
    config: { ...t.config, ...overrides },
    database: t.database,
    observe: events.observe,
  });
  dispatchers.push(d);
  return Object.assign(d, { events });
}

/** A vendor with one webhook on `url` and `n` order.created events queued for it. */
async function backlog(url: string, n: number) {
  const { vendor, key } = await createVendorWithKey(t.ctx, "Backlog Bridal");
  const res = await t.api.post("/api/vendor/webhooks", { url, events: ["order.created"] }, { key });
  expect(res.status).toBe(201);
  await queueEvents(
    t.database.db,
    vendor.id,
    "order.created",
    Array.from({ length: n }, (_, i) => ({ id: `queued-${i}` })),
  );
  return (res.body as { id: string }).id;
}

async function deliveries(webhookId: string) {
  return t.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, webhookId));
}

async function leased(webhookId: string) {
  return t.database.db
    .select()
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.webhookId, webhookId),
        eq(webhookDeliveries.status, "PENDING"),
        isNotNull(webhookDeliveries.claimToken),
      ),
    );
}

const deliveryIdOf = (r: ReceivedRequest) => r.headers["x-service-delivery"] as string;

async function tokenOf(deliveryId: string) {
  const [row] = await t.database.db
    .select({ token: webhookDeliveries.claimToken })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.id, deliveryId));
  return row?.token;
}

describe("an endpoint's slots under a backlog", () => {
  it("a success hands its slot to a delivery its claim leased in reserve: the cap holds, and no claim comes between the two POSTs", async () => {
    const { receiver, answer } = await heldReceiver();
    const hook = await backlog(receiver.url, 6);
    const d = await dispatcher({ webhookEndpointConcurrency: 2 });

    await receiver.waitFor(2);
    // The claim leased two deliveries to send and two more in reserve, and sent only two: a turn
    // after it sends nothing more.
    await eventually(async () => (await leased(hook)).length === 4);
    await d.events.aWholeTurn(d);
    expect(d.events.sent()).toBe(2);
    expect(receiver.requests).toHaveLength(2);

    const first = receiver.requests[0] as ReceivedRequest;
    const firstToken = await tokenOf(deliveryIdOf(first));
    answer(0);
    const [, , third] = await receiver.waitFor(3);
    // The third POST is a delivery of the same claim as the first: it was already leased, and no
    // claim sent it (nor anything else, a turn after the first one's record).
    expect(await tokenOf(deliveryIdOf(third as ReceivedRequest))).toBe(firstToken);
    await d.events.next((e) => e.type === "settled" && e.deliveryId === deliveryIdOf(first), 0);
    await d.events.aWholeTurn(d);
    expect(d.events.sent()).toBe(2);
    expect(receiver.requests).toHaveLength(3);

    for (let i = 1; i < 6; i++) {
      answer(i);
      await receiver.waitFor(Math.min(6, i + 3));
    }
    await eventually(async () => (await deliveries(hook)).every((d) => d.status === "SUCCEEDED"), 10_000);
    expect(new Set(receiver.requests.map(deliveryIdOf)).size).toBe(6);
    expect(receiver.requests).toHaveLength(6);
  }, 30_000);

  it("a POST that fails sends nothing in its place, and gives the endpoint's reserve back to the queue", async () => {
    // The first answer is a 503; one failure opens the circuit for a minute.
    const { receiver, answer } = await heldReceiver((i) => (i === 0 ? 503 : 200));
    const hook = await backlog(receiver.url, 6);
    const d = await dispatcher({
      webhookEndpointConcurrency: 2,
      webhookBreakerFailures: 1,
      webhookBreakerCooldownMs: 60_000,
    });
    await receiver.waitFor(2);
    await eventually(async () => (await leased(hook)).length === 4);
    const firstClaim = await tokenOf(deliveryIdOf(receiver.requests[0] as ReceivedRequest));

    answer(0);
    // Back in the queue, due now; only the second POST still holds a lease.
    await eventually(async () => {
      const rows = await leased(hook);
      return rows.length === 1 && rows[0]?.id === deliveryIdOf(receiver.requests[1] as ReceivedRequest);
    });
    // The failed one waits for its retry (a minute); the four in reserve are due now.
    const failed = deliveryIdOf(receiver.requests[0] as ReceivedRequest);
    const queued = (await deliveries(hook)).filter(
      (d) => d.status === "PENDING" && d.claimToken === null && d.id !== failed,
    );
    expect(queued).toHaveLength(4);
    for (const d of queued) expect(d.nextAttemptAt?.getTime()).toBeLessThanOrEqual(Date.now());
    // The second POST succeeds, and nothing is held in reserve to take its slot. (Its success
    // closes the circuit again, so a later claim may send the queued deliveries: each under a
    // claim token of its own, never the first claim's.)
    const second = deliveryIdOf(receiver.requests[1] as ReceivedRequest);
    answer(1);
    await eventually(async () =>
      (await deliveries(hook)).some((d) => d.id === second && d.status === "SUCCEEDED"),
    );
    // A turn after that success, every POST the dispatcher's claims started has arrived (the
    // receiver holds them all, so none hands its slot on).
    await d.events.aWholeTurn(d);
    await receiver.waitFor(d.events.sent());
    for (const later of receiver.requests.slice(2)) {
      expect(deliveryIdOf(later)).not.toBe(failed);
      expect(await tokenOf(deliveryIdOf(later))).not.toBe(firstClaim);
    }
  }, 30_000);

  it("a dispatcher that stops gives its reserve back at once, instead of leaving it leased", async () => {
    const { receiver, answer } = await heldReceiver();
    const hook = await backlog(receiver.url, 6);
    const d = await dispatcher({ webhookEndpointConcurrency: 2 });
    dispatchers.splice(dispatchers.indexOf(d), 1);
    await receiver.waitFor(2);
    await eventually(async () => (await leased(hook)).length === 4);

    const stopped = d.stop(20_000);
    // The POSTs are answered once the stopping dispatcher has given its reserve back.
    await eventually(async () => (await leased(hook)).length === 2);
    answer(0);
    answer(1);
    await stopped;
    const rows = await deliveries(hook);
    expect(rows.filter((r) => r.status === "SUCCEEDED")).toHaveLength(2);
    const queued = rows.filter((r) => r.status === "PENDING");
    expect(queued).toHaveLength(4);
    for (const r of queued) {
      expect(r.claimToken).toBeNull();
      expect(r.nextAttemptAt?.getTime()).toBeLessThanOrEqual(Date.now());
    }
    expect(receiver.requests).toHaveLength(2);
  }, 30_000);

  it("two dispatchers draining one endpoint never have more than its cap in flight, and send each delivery once", async () => {
    // The receiver counts the requests it holds open (each for 50 ms: long enough that the cap is
    // reached even on a loaded machine, where two claims rarely overlap a 15 ms answer) and the
    // most at once.
    let open = 0;
    let most = 0;
    const receiver = await startReceiver(() => {
      open += 1;
      most = Math.max(most, open);
      return {
        status: 204,
        until: sleep(50).then(() => {
          open -= 1;
        }),
      };
    });
    receivers.push(receiver);
    const hook = await backlog(receiver.url, 150);
    // Once each holds while every lease outlives its attempt: a lease that ends unrecorded is sent
    // again by design (CONTRACT 7, at least once). With a 5 s timeout a lease was 15 s, and a
    // reserve could go out 9 s after its claim, leaving 6 s for its POST and record, which a
    // machine at load 13 once overran (151 requests). This file's 30 s timeout makes every lease
    // 65 s, longer than the drain may take before this test fails anyway.
    const cap = { webhookEndpointConcurrency: 3 };
    await Promise.all([dispatcher(cap), dispatcher(cap)]);
    // What is asserted is the cap and once each, not speed: the bound only stops a hung run.
    await receiver.waitFor(150, 45_000);
    await eventually(async () => (await deliveries(hook)).every((d) => d.status === "SUCCEEDED"), 10_000);
    expect(new Set(receiver.requests.map(deliveryIdOf)).size).toBe(150);
    expect(receiver.requests).toHaveLength(150);
    expect(most).toBe(3);
  }, 90_000);
});
