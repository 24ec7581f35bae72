// Batched attempt records and the one-statement claim (CONTRACT 7: at-least-once, no attempt sent
// twice, fair claims, the circuit breaker), driven straight through the repository functions with
// explicit clocks, so every case is deterministic. Deliveries are due in the year 2000, before
// anything another test file may have left pending in a shared database, and each test removes
// its webhooks (and by cascade their deliveries) afterwards.
import { eq, inArray, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import type { Db } from "../../src/db/client.ts";
import * as schema from "../../src/db/schema/index.ts";
import { events, webhookAttempts, webhookDeliveries, webhooks } from "../../src/db/schema/index.ts";
import { newId } from "../../src/lib/ids.ts";
import { type AttemptRecord, recordAttempt } from "../../src/webhook-delivery/attempts.repository.ts";
import { recordAttemptBatch } from "../../src/webhook-delivery/attempts-batch.repository.ts";
import { DEFAULT_AUTO_DISABLE } from "../../src/webhook-delivery/auto-disable.ts";
import { createBatchRecorder } from "../../src/webhook-delivery/batch-recorder.ts";
import { endpointSlots } from "../../src/webhook-delivery/circuit-breaker.ts";
import { type ClaimedDelivery, claimDue } from "../../src/webhook-delivery/claim.repository.ts";
import { shareClaims } from "../../src/webhook-delivery/fair-claims.ts";
import { createVendor } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp({ ownDatabase: true });
const T0 = new Date(Date.UTC(2000, 0, 1));
const at = (ms: number) => new Date(T0.getTime() + ms);
const LEASE_MS = 25_000;
const policy = { limit: 100, endpointConcurrency: 16, breakerFailures: 5 };
const created: string[] = [];

afterEach(async () => {
  if (created.length > 0) await t.ctx.db.delete(webhooks).where(inArray(webhooks.id, created.splice(0)));
});

/**
 * A webhook with `n` deliveries due at T0 (oldest first), and `inFlight` more that an earlier
 * claim holds (leased: due when the lease ends, with a claim token), written straight to the tables.
 */
async function endpointWithDue(
  vendorId: string,
  n: number,
  state: Partial<typeof webhooks.$inferInsert> = {},
  inFlight = 0,
) {
  const webhookId = newId();
  created.push(webhookId);
  await t.ctx.db.insert(webhooks).values({
    id: webhookId,
    vendorId,
    url: "https://receiver.example/hooks",
    events: ["customer.created"],
    status: "ACTIVE",
    secret: "whsec_test",
    createdAt: T0,
    updatedAt: T0,
    ...state,
  });
  const rows = Array.from({ length: n + inFlight }, (_, i) => ({ eventId: newId(), id: newId(), i }));
  if (rows.length === 0) return { webhookId, deliveryIds: [] };
  await t.ctx.db.insert(events).values(
    rows.map(({ eventId, i }) => ({
      id: eventId,
      vendorId,
      type: "customer.created",
      data: { i },
      createdAt: T0,
      dispatchedAt: T0,
    })),
  );
  await t.ctx.db.insert(webhookDeliveries).values(
    rows.map(({ eventId, id, i }) => ({
      id,
      webhookId,
      vendorId,
      eventId,
      eventType: "customer.created",
      status: "PENDING" as const,
      ...(i < n
        ? { nextAttemptAt: at(-n + i) }
        : { nextAttemptAt: at(LEASE_MS), claimToken: "an-earlier-claim" }),
      createdAt: T0,
      updatedAt: T0,
    })),
  );
  return { webhookId, deliveryIds: rows.slice(0, n).map((r) => r.id) };
}

function success(claim: ClaimedDelivery, when: Date): AttemptRecord {
  return {
    vendorId: claim.vendorId,
    deliveryId: claim.id,
    claimToken: claim.claimToken,
    webhookId: claim.webhookId,
    attempt: claim.attemptCount + 1,
    at: when,
    statusCode: 204,
    durationMs: 3,
    error: undefined,
    responseBody: "",
    outcome: { status: "SUCCEEDED" },
    health: "ok",
  };
}

async function delivery(id: string) {
  const [row] = await t.ctx.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id));
  const attempts = await t.ctx.db.select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, id));
  return { ...row, attempts };
}

describe("batched attempt records", () => {
  it("a batch with a stale claim among fresh ones writes only the fresh ones", async () => {
    const vendor = await createVendor(t.ctx);
    const { deliveryIds } = await endpointWithDue(vendor.id, 3);
    const { claims } = await claimDue(t.ctx.db, at(0), LEASE_MS, policy);
    expect(claims.map((c) => c.id).sort()).toEqual([...deliveryIds].sort());
    // The second delivery's lease ended and another claim took it: this claim is stale.
    const stale = claims[1] as ClaimedDelivery;
    await t.ctx.db
      .update(webhookDeliveries)
      .set({ claimToken: "another-claim" })
      .where(eq(webhookDeliveries.id, stale.id));
    const retry: AttemptRecord = {
      ...success(claims[2] as ClaimedDelivery, at(10)),
      statusCode: 404,
      error: "HTTP 404",
      outcome: { status: "PENDING", nextAttemptAt: at(60_000) },
      health: "neutral",
    };
    const written = await recordAttemptBatch(t.ctx.db, [
      success(claims[0] as ClaimedDelivery, at(10)),
      success(stale, at(10)),
      retry,
    ]);
    expect([...written].sort()).toEqual([claims[0]?.id, claims[2]?.id].sort());
    const first = await delivery(claims[0]?.id as string);
    expect(first).toMatchObject({
      status: "SUCCEEDED",
      attemptCount: 1,
      claimToken: null,
      lastStatusCode: 204,
    });
    expect(first.completedAt).toEqual(at(10));
    expect(first.attempts).toHaveLength(1);
    const untouched = await delivery(stale.id);
    expect(untouched).toMatchObject({ status: "PENDING", attemptCount: 0, claimToken: "another-claim" });
    expect(untouched.attempts).toHaveLength(0);
    const third = await delivery(claims[2]?.id as string);
    expect(third).toMatchObject({
      status: "PENDING",
      attemptCount: 1,
      claimToken: null,
      lastStatusCode: 404,
    });
    expect(third.nextAttemptAt).toEqual(at(60_000));
    expect(third.attempts.map((a) => a.statusCode)).toEqual([404]);
  });

  it("a success that was never recorded (a crash after the POST) is claimed and sent again once the lease ends; the old claim then writes nothing", async () => {
    const vendor = await createVendor(t.ctx);
    const { deliveryIds } = await endpointWithDue(vendor.id, 1);
    const [first] = (await claimDue(t.ctx.db, at(0), LEASE_MS, policy)).claims;
    expect(first?.id).toBe(deliveryIds[0]);
    // The dispatcher POSTed and died before its batch was written. While the lease runs no one
    // else takes the delivery ...
    expect((await claimDue(t.ctx.db, at(LEASE_MS - 1), LEASE_MS, policy)).claims).toEqual([]);
    // ... and once it ends the delivery is claimed again (at-least-once).
    const [again] = (await claimDue(t.ctx.db, at(LEASE_MS + 1), LEASE_MS, policy)).claims;
    expect(again?.id).toBe(first?.id);
    expect(again?.claimToken).not.toBe(first?.claimToken);
    expect(again?.attemptCount).toBe(0);
    // A batch carrying the first claim's outcome arrives late: it writes nothing.
    expect(await recordAttemptBatch(t.ctx.db, [success(first as ClaimedDelivery, at(LEASE_MS + 2))])).toEqual(
      new Set(),
    );
    expect(await delivery(first?.id as string)).toMatchObject({ status: "PENDING", attempts: [] });
    expect(await recordAttemptBatch(t.ctx.db, [success(again as ClaimedDelivery, at(LEASE_MS + 3))])).toEqual(
      new Set([first?.id]),
    );
    const done = await delivery(first?.id as string);
    expect(done).toMatchObject({ status: "SUCCEEDED", attemptCount: 1 });
    expect(done.attempts).toHaveLength(1);
  });

  it("a success ends the endpoint's failure streak and moves last_success_at, in the batch's statement", async () => {
    const vendor = await createVendor(t.ctx);
    const { webhookId } = await endpointWithDue(vendor.id, 2, {
      consecutiveFailures: 3,
      failingSince: at(-60_000),
    });
    const { claims } = await claimDue(t.ctx.db, at(0), LEASE_MS, policy);
    expect(claims).toHaveLength(2);
    await recordAttemptBatch(
      t.ctx.db,
      claims.map((c) => success(c, at(5))),
    );
    const [hook] = await t.ctx.db.select().from(webhooks).where(eq(webhooks.id, webhookId));
    expect(hook).toMatchObject({ consecutiveFailures: 0, failingSince: null, circuitOpenUntil: null });
    expect(hook?.lastSuccessAt).toEqual(at(5));
  });

  it("the recorder writes records that finish together in one statement; a record the database refuses fails alone", async () => {
    const vendor = await createVendor(t.ctx);
    await endpointWithDue(vendor.id, 6);
    const { claims } = await claimDue(t.ctx.db, at(0), LEASE_MS, policy);
    expect(claims).toHaveLength(6);
    const recorder = createBatchRecorder(t.ctx.db, {
      recordOne: (r) => recordAttempt(t.ctx.db, r, DEFAULT_AUTO_DISABLE),
    });
    const before = t.database.queryCount();
    const together = await Promise.all(claims.slice(0, 3).map((c) => recorder.record(success(c, at(5)))));
    expect(together).toEqual([{ recorded: true }, { recorded: true }, { recorded: true }]);
    expect(t.database.queryCount() - before).toBe(1);
    // A duration that is not an integer: PostgreSQL refuses the row, in the batch and alone.
    const [bad, ...good] = claims.slice(3);
    const outcomes = await Promise.allSettled([
      recorder.record({ ...success(bad as ClaimedDelivery, at(6)), durationMs: 1.5 }),
      ...good.map((c) => recorder.record(success(c, at(6)))),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(["rejected", "fulfilled", "fulfilled"]);
    expect(outcomes.slice(1).map((o) => (o as PromiseFulfilledResult<unknown>).value)).toEqual([
      { recorded: true },
      { recorded: true },
    ]);
    expect(await delivery((bad as ClaimedDelivery).id)).toMatchObject({ status: "PENDING", attempts: [] });
  });
});

describe("the one-statement claim", () => {
  it("deals capacity round by round between endpoints, oldest due first within each", async () => {
    const vendor = await createVendor(t.ctx);
    const a = await endpointWithDue(vendor.id, 10);
    const b = await endpointWithDue(vendor.id, 10);
    const c = await endpointWithDue(vendor.id, 1);
    const { claims } = await claimDue(t.ctx.db, at(0), LEASE_MS, { ...policy, limit: 5 });
    const per = (w: string) => claims.filter((x) => x.webhookId === w).map((x) => x.id);
    // c has one; a and b share the other four: two each, their two oldest.
    expect(per(c.webhookId)).toEqual(c.deliveryIds);
    expect(per(a.webhookId).sort()).toEqual(a.deliveryIds.slice(0, 2).sort());
    expect(per(b.webhookId).sort()).toEqual(b.deliveryIds.slice(0, 2).sort());
  });

  it("honours each endpoint's cap across claims, none while its circuit is open, one probe when half-open", async () => {
    const vendor = await createVendor(t.ctx);
    const capped = await endpointWithDue(vendor.id, 10);
    const open = await endpointWithDue(vendor.id, 3, { consecutiveFailures: 5, circuitOpenUntil: at(1_000) });
    const halfOpen = await endpointWithDue(vendor.id, 3, {
      consecutiveFailures: 5,
      circuitOpenUntil: at(-1),
    });
    const capPolicy = { ...policy, endpointConcurrency: 4 };
    const first = (await claimDue(t.ctx.db, at(0), LEASE_MS, capPolicy)).claims;
    const count = (claims: ClaimedDelivery[], w: string) => claims.filter((x) => x.webhookId === w).length;
    expect(count(first, capped.webhookId)).toBe(4);
    expect(count(first, open.webhookId)).toBe(0);
    expect(count(first, halfOpen.webhookId)).toBe(1);
    // The same dispatcher or another: the attempts in flight still count against the caps.
    const second = (await claimDue(t.ctx.db, at(1), LEASE_MS, capPolicy)).claims;
    expect(second).toEqual([]);
  });

  it("frees an endpoint's slot when its POST ends, before the attempt is recorded, without taking the delivery again", async () => {
    const vendor = await createVendor(t.ctx);
    const capped = await endpointWithDue(vendor.id, 10);
    const capPolicy = { ...policy, endpointConcurrency: 4, holder: "dispatcher-a" };
    const first = (await claimDue(t.ctx.db, at(0), LEASE_MS, capPolicy)).claims.map((c) => c.id);
    expect(first.sort()).toEqual(capped.deliveryIds.slice(0, 4).sort());
    // All four POSTs in flight: the cap is reached.
    const posting = (n: number) => ({ own: { [capped.webhookId]: { posting: n, reserved: 0 } } });
    expect((await claimDue(t.ctx.db, at(1), LEASE_MS, { ...capPolicy, ...posting(4) })).claims).toEqual([]);
    // Two of them answered; their records are still to come (the rows stay leased by it).
    const next = (await claimDue(t.ctx.db, at(2), LEASE_MS, { ...capPolicy, ...posting(2) })).claims;
    expect(next.map((c) => c.id).sort()).toEqual(capped.deliveryIds.slice(4, 6).sort());
    // Another dispatcher counts all of its leases: to it, four (the most it counts) are in flight.
    const other = { ...capPolicy, holder: "dispatcher-b" };
    expect((await claimDue(t.ctx.db, at(3), LEASE_MS, other)).claims).toEqual([]);
  });

  it("counts another holder's leases (its reserve too) and a lease without a holder in full, its own by what it says it POSTs", async () => {
    const vendor = await createVendor(t.ctx);
    // One lease of an earlier claim that named no holder (written before leases named theirs).
    const capped = await endpointWithDue(vendor.id, 10, {}, 1);
    const a = { ...policy, endpointConcurrency: 4, holder: "dispatcher-a" };
    const b = { ...a, holder: "dispatcher-b" };
    const own = (posting: number, reserved: number) => ({ [capped.webhookId]: { posting, reserved } });
    // a: one slot taken by the unnamed lease, so three to send and, with a reserve, four more.
    const first = await claimDue(t.ctx.db, at(0), LEASE_MS, { ...a, reserveLimit: 100 });
    expect([first.claims.length, first.reserve.length]).toEqual([3, 4]);
    expect(first.allowed.get(capped.webhookId)).toBe(3);
    // To a, its reserve is not in flight: with one POST of its three ended, it gets that slot back.
    const again = await claimDue(t.ctx.db, at(1), LEASE_MS, { ...a, own: own(2, 4) });
    expect(again.claims).toHaveLength(1);
    expect(again.allowed.get(capped.webhookId)).toBe(3);
    // To b, a's POSTs, a's reserve and the unnamed lease are all in flight: nothing is free.
    const other = await claimDue(t.ctx.db, at(2), LEASE_MS, b);
    expect(other.claims).toEqual([]);
    expect(other.allowed.size).toBe(0);
  });

  it("commits a claim without waiting for the WAL, and leaves the connection's next transactions durable", async () => {
    const vendor = await createVendor(t.ctx);
    await endpointWithDue(vendor.id, 2);
    const setting = async (db: Pick<typeof t.ctx.db, "execute">) => {
      const result = (await db.execute(
        sql`select current_setting('synchronous_commit') as s`,
      )) as unknown as {
        rows: { s: string }[];
      };
      return result.rows[0]?.s;
    };
    // Inside the claim's own transaction the commit is asynchronous...
    await t.ctx.db.transaction(async (tx) => {
      expect((await claimDue(tx, at(0), LEASE_MS, { ...policy, limit: 1 })).claims).toHaveLength(1);
      expect(await setting(tx)).toBe("off");
    });
    // ...and on the connection that ran it, the next statement is durable again.
    const client = await t.database.pool?.connect();
    const db = client ? (drizzle({ client, schema }) as unknown as Db) : t.ctx.db;
    try {
      expect((await claimDue(db, at(0), LEASE_MS, { ...policy, limit: 1 })).claims).toHaveLength(1);
      expect(await setting(db)).toBe("on");
    } finally {
      client?.release();
    }
  });

  it("concurrent claims never take the same delivery", async () => {
    const vendor = await createVendor(t.ctx);
    for (let i = 0; i < 4; i++) await endpointWithDue(vendor.id, 12);
    const results = await Promise.all(
      Array.from({ length: 4 }, () => claimDue(t.ctx.db, at(0), LEASE_MS, { ...policy, limit: 20 })),
    );
    const ids = results.flatMap((r) => r.claims.map((c) => c.id));
    expect(new Set(ids).size).toBe(ids.length);
    const [row] = await t.ctx.db
      .select({ n: sql<number>`count(*)::int` })
      .from(webhookDeliveries)
      .where(inArray(webhookDeliveries.webhookId, created));
    expect(ids.length).toBeLessThanOrEqual(row?.n ?? 0);
  });

  it("reads the earliest future due time in the same statement, for the dispatcher's sleep", async () => {
    const vendor = await createVendor(t.ctx);
    await endpointWithDue(vendor.id, 1);
    const claimed = await claimDue(t.ctx.db, at(0), LEASE_MS, policy);
    expect(claimed.claims).toHaveLength(1);
    // Nothing else is due: the next thing due is that claim's lease ending.
    const idle = await claimDue(t.ctx.db, at(1), LEASE_MS, policy);
    expect(idle.claims).toEqual([]);
    expect(idle.nextDueAt).toEqual(at(LEASE_MS));
  });

  // circuit-breaker.ts (endpointSlots) and fair-claims.ts (shareClaims) write the rules out; the
  // statement applies them in SQL. Generated endpoints, each in some breaker state with some
  // attempts in flight and some deliveries due, must get what the written rules deal them. Which
  // endpoints get one more when capacity runs out mid-round is random on both sides, so what is
  // compared is each endpoint's count to within that one, and the multiset of counts exactly.
  it("deals what endpointSlots and shareClaims deal, for generated endpoints, limits and breaker states", async () => {
    const vendor = await createVendor(t.ctx);
    const endpoint = fc.record({
      due: fc.integer({ min: 0, max: 8 }),
      // Mostly healthy endpoints with free slots, where the dealing between them shows.
      inFlight: fc.constantFrom(0, 0, 0, 1, 2, 6),
      consecutiveFailures: fc.constantFrom(0, 0, 0, 4, 5, 9),
      circuit: fc.constantFrom("none", "none", "none", "open", "waited"),
    });
    const cases = fc.record({
      endpoints: fc.array(endpoint, { minLength: 1, maxLength: 6 }),
      limit: fc.integer({ min: 1, max: 12 }),
      cap: fc.integer({ min: 1, max: 6 }),
    });
    await fc.assert(
      fc.asyncProperty(cases, async ({ endpoints, limit, cap }) => {
        const now = at(0);
        const made: { webhookId: string; free: number }[] = [];
        for (const e of endpoints) {
          const circuitOpenUntil = { none: null, open: at(1_000), waited: at(-1) }[e.circuit];
          const { webhookId } = await endpointWithDue(
            vendor.id,
            e.due,
            { consecutiveFailures: e.consecutiveFailures, circuitOpenUntil },
            e.inFlight,
          );
          const slots = endpointSlots({
            consecutiveFailures: e.consecutiveFailures,
            circuitOpenUntil,
            now,
            policy: { failures: policy.breakerFailures, cooldownMs: 10_000 },
            endpointConcurrency: cap,
          });
          made.push({ webhookId, free: Math.min(slots - e.inFlight, e.due) });
        }
        const written = new Map(shareClaims(made, limit).map((q) => [q.webhookId, q.n]));
        const { claims } = await claimDue(t.ctx.db, now, LEASE_MS, {
          limit,
          endpointConcurrency: cap,
          breakerFailures: policy.breakerFailures,
        });
        const dealt = new Map<string, number>();
        for (const c of claims) dealt.set(c.webhookId, (dealt.get(c.webhookId) ?? 0) + 1);
        for (const { webhookId, free } of made) {
          const n = dealt.get(webhookId) ?? 0;
          expect(n).toBeLessThanOrEqual(Math.max(0, free));
          expect(Math.abs(n - (written.get(webhookId) ?? 0))).toBeLessThanOrEqual(1);
        }
        const counts = (m: Map<string, number>) =>
          made.map((e) => m.get(e.webhookId) ?? 0).sort((a, b) => a - b);
        expect(counts(dealt)).toEqual(counts(written));
        await t.ctx.db.delete(webhooks).where(inArray(webhooks.id, created.splice(0)));
      }),
      { numRuns: 40, seed: 20261126 },
    );
  });
});
