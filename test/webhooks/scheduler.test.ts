// The scheduler's states and transitions (src/webhook-delivery/scheduler.ts, the table at its top
// and in the folder's README): reserved, posting, sent, and what leaves each. No database, no
// timers: a claim's result is built by hand, and the clock is a number the test moves.
import { describe, expect, it } from "vitest";
import type { ClaimedDelivery, ClaimResult } from "../../src/webhook-delivery/claim.repository.ts";
import { DeliveryScheduler } from "../../src/webhook-delivery/scheduler.ts";

const RESERVE_MS = 10_000;

function delivery(id: string, webhookId = "w1"): ClaimedDelivery {
  return {
    id,
    claimToken: `token-${id}`,
    attemptCount: 0,
    eventId: `e-${id}`,
    eventType: "order.created",
    data: {},
    webhookId,
    url: "https://receiver.example/hook",
    webhookStatus: "ACTIVE",
    secret: "whsec_x",
    previousSecret: null,
    previousSecretExpiresAt: null,
    eventCreatedAt: new Date(0),
    vendorId: "v1",
  };
}

function result(
  parts: Partial<Omit<ClaimResult, "allowed">> & { allowed: Record<string, number> },
): ClaimResult {
  return {
    claims: parts.claims ?? [],
    reserve: parts.reserve ?? [],
    allowed: new Map(Object.entries(parts.allowed)),
    nextDueAt: undefined,
    heldBack: parts.heldBack ?? false,
    contended: parts.contended ?? new Set(),
  };
}

function setup(concurrency = 4) {
  const clock = { ms: 1_000 };
  const scheduler = new DeliveryScheduler({ concurrency, reserveMs: RESERVE_MS, now: () => clock.ms });
  return { clock, scheduler };
}

const ids = (list: ClaimedDelivery[]) => list.map((d) => d.id);

describe("a delivery's life in one dispatcher", () => {
  it("claimed with a slot: posting; claimed beyond the free slots: reserved", () => {
    const { scheduler, clock } = setup();
    const actions = scheduler.claimed(
      result({ claims: [delivery("a"), delivery("b")], reserve: [delivery("c")], allowed: { w1: 2 } }),
      4,
      clock.ms,
    );
    expect(ids(actions.launch)).toEqual(["a", "b"]);
    expect(actions.giveBack).toEqual([]);
    expect(scheduler.counts()).toEqual({ reserved: 1, posting: 2, sent: 0, inFlight: 2 });
    expect(scheduler.free).toBe(2);
    expect(scheduler.reserveRoom).toBe(3);
  });

  it("posting, answered 2xx: sent, and the slot is handed to the oldest reserved delivery", () => {
    const { scheduler, clock } = setup();
    scheduler.claimed(
      result({ claims: [delivery("a")], reserve: [delivery("b"), delivery("c")], allowed: { w1: 1 } }),
      4,
      clock.ms,
    );
    const actions = scheduler.answered(delivery("a"), true);
    expect(ids(actions.launch)).toEqual(["b"]);
    expect(scheduler.counts()).toEqual({ reserved: 1, posting: 1, sent: 1, inFlight: 2 });
    // The claim is told, per endpoint: b is posting, c is reserved; a, sent, is in neither (it
    // no longer counts against the cap).
    expect(scheduler.claimPolicy().own).toEqual({ w1: { posting: 1, reserved: 1 } });
  });

  it("sent, settled as a success: no longer in flight, nothing given back", () => {
    const { scheduler, clock } = setup();
    scheduler.claimed(
      result({ claims: [delivery("a")], reserve: [delivery("b")], allowed: { w1: 1 } }),
      4,
      clock.ms,
    );
    scheduler.answered(delivery("a"), true);
    const done = scheduler.settled(delivery("a"), true);
    expect(done.giveBack).toEqual([]);
    expect(scheduler.counts()).toEqual({ reserved: 0, posting: 1, sent: 0, inFlight: 1 });
  });

  it("posting, settled without success: the endpoint's reserve is given back, and the loop looks again", () => {
    const { scheduler, clock } = setup();
    scheduler.claimed(
      result({ claims: [delivery("a")], reserve: [delivery("b"), delivery("c")], allowed: { w1: 1 } }),
      4,
      clock.ms,
    );
    const done = scheduler.settled(delivery("a"), false);
    expect(ids(done.giveBack)).toEqual(["b", "c"]);
    expect(done.launch).toEqual([]);
    expect(done.wake).toBe(true);
    expect(scheduler.counts()).toEqual({ reserved: 0, posting: 0, sent: 0, inFlight: 0 });
  });

  it("reserved too long: given back instead of handed a slot", () => {
    const { scheduler, clock } = setup();
    scheduler.claimed(
      result({ claims: [delivery("a")], reserve: [delivery("b")], allowed: { w1: 1 } }),
      4,
      clock.ms,
    );
    clock.ms += RESERVE_MS;
    const actions = scheduler.answered(delivery("a"), true);
    expect(actions.launch).toEqual([]);
    expect(ids(actions.giveBack)).toEqual(["b"]);
    expect(scheduler.counts().reserved).toBe(0);
  });

  it("a reserve with no POST of its own to the endpoint is given back at once", () => {
    const { scheduler, clock } = setup();
    // The claim allowed no POST (the endpoint's slots are all others'), yet leased a reserve.
    const actions = scheduler.claimed(result({ reserve: [delivery("r")], allowed: { w1: 0 } }), 4, clock.ms);
    expect(actions.launch).toEqual([]);
    expect(ids(actions.giveBack)).toEqual(["r"]);
  });

  it("contended (another dispatcher waits): the reserve goes back and no slot is handed on", () => {
    const { scheduler, clock } = setup();
    scheduler.claimed(
      result({ claims: [delivery("a"), delivery("b")], reserve: [delivery("c")], allowed: { w1: 2 } }),
      4,
      clock.ms,
    );
    // The next claim finds another dispatcher waiting on w1 and gives this one nothing there.
    const next = scheduler.claimed(result({ allowed: {}, contended: new Set(["w1"]) }), 2, clock.ms);
    expect(ids(next.giveBack)).toEqual(["c"]);
    const answered = scheduler.answered(delivery("a"), true);
    expect(answered.launch).toEqual([]);
  });

  it("a POST that ends while the claim ran is counted again: the endpoint gets only its allowed slots", () => {
    const { scheduler, clock } = setup();
    scheduler.claimed(result({ claims: [delivery("a")], allowed: { w1: 1 } }), 4, clock.ms);
    // The next claim saw a still posting and allowed 2 (a and one more); a fresh claim brings 2.
    const actions = scheduler.claimed(
      result({ claims: [delivery("b")], reserve: [delivery("c")], allowed: { w1: 2 } }),
      3,
      clock.ms,
    );
    expect(ids(actions.launch)).toEqual(["b"]);
    expect(scheduler.counts()).toEqual({ reserved: 1, posting: 2, sent: 0, inFlight: 2 });
  });

  it("stopping: the whole reserve is given back and nothing is handed on", () => {
    const { scheduler, clock } = setup();
    scheduler.claimed(
      result({
        claims: [delivery("a"), delivery("x", "w2")],
        reserve: [delivery("b"), delivery("y", "w2")],
        allowed: { w1: 1, w2: 1 },
      }),
      4,
      clock.ms,
    );
    expect(ids(scheduler.stopping().giveBack).sort()).toEqual(["b", "y"]);
    expect(scheduler.answered(delivery("a"), false).launch).toEqual([]);
  });

  it("capacity: a claim that took all the free capacity makes a settled success worth a claim", () => {
    const { scheduler, clock } = setup(2);
    scheduler.claimed(result({ claims: [delivery("a"), delivery("b")], allowed: { w1: 2 } }), 2, clock.ms);
    expect(scheduler.free).toBe(0);
    expect(scheduler.waitingWork).toBe(true);
    scheduler.answered(delivery("a"), true);
    expect(scheduler.settled(delivery("a"), true).wake).toBe(true);
    // A claim that took less than it could: a success alone is not worth another one.
    scheduler.claimed(result({ claims: [], allowed: {} }), 1, clock.ms);
    scheduler.answered(delivery("b"), true);
    expect(scheduler.settled(delivery("b"), true).wake).toBe(false);
    expect(scheduler.counts()).toEqual({ reserved: 0, posting: 0, sent: 0, inFlight: 0 });
  });
});

describe("the README's table", () => {
  it("names the scheduler's states, and only those", async () => {
    const { readFile } = await import("node:fs/promises");
    const readme = await readFile(new URL("../../src/webhook-delivery/README.md", import.meta.url), "utf8");
    const section = readme.split("## 5. A delivery's life in a dispatcher")[1]?.split("\n## ")[0] ?? "";
    const states = [...section.matchAll(/^\| (\w[\w ]*?) \|/gm)]
      .map((m) => m[1])
      .filter((s) => s !== "state");
    const { inFlight: _, ...counted } = setup().scheduler.counts();
    expect(states).toEqual(Object.keys(counted));
  });
});
