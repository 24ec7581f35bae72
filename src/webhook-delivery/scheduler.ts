// What one dispatcher knows of the deliveries it holds, and what it decides about them: which to
// POST now, which to keep in reserve, which to give back to the queue. No database, no timers, no
// I/O: the dispatcher (dispatcher.ts) asks it, does what it says, and tells it what happened, so
// every rule below is unit-tested without either (test/webhooks/scheduler.test.ts).
//
// A delivery this dispatcher holds is in one of three states (README.md, "A delivery's life in a
// dispatcher"; the row is PENDING and leased by this dispatcher in all three):
//
//   state      | enters when                                    | leaves when
//   -----------|------------------------------------------------|--------------------------------------
//   reserved   | a claim leases it beyond the endpoint's free   | a POST to its endpoint answers 2xx and
//              | slots (`ClaimResult.reserve`)                  | hands its slot on -> posting; the
//              |                                                | endpoint's POST fails, the endpoint is
//              |                                                | idle or contended here, its lease is too
//              |                                                | near its end, or the dispatcher stops
//              |                                                | -> given back (queued again)
//   posting    | a claim gives it a slot, or a slot is handed   | its POST answers 2xx -> sent; any other
//              | on to it from the reserve                      | end -> settled (its record is written)
//   sent       | its POST answered 2xx (the slot is free: it    | its record commits (SUCCEEDED; nothing
//              | no longer counts against the endpoint's cap)   | if its lease went stale) -> settled
//
// `posting` and `sent` together are the attempts in flight: they count against this dispatcher's
// capacity (`concurrency`) until settled. Only an attempt's own record settles a delivery as
// SUCCEEDED, and only when it read a 2xx for that delivery under the claim token that leased it
// (attempt.ts, attempts*.repository.ts); nothing here writes a delivery's outcome.
import type { ClaimedDelivery, ClaimPolicy, ClaimResult, OwnAtEndpoint } from "./claim.repository.ts";

/** What the dispatcher must do after telling the scheduler something. */
export interface SchedulerActions {
  /** POST these now: each is `posting` already. */
  launch: ClaimedDelivery[];
  /** Give these back to the queue (releaseClaims): they left the reserve unsent. */
  giveBack: ClaimedDelivery[];
}

export interface SchedulerOptions {
  /** Attempts in flight at once, across endpoints (the dispatcher's capacity). */
  concurrency: number;
  /**
   * How long after its claim a reserved delivery may still go out: its lease must leave a whole
   * attempt and a second to spare. Past that it is given back instead.
   */
  reserveMs: number;
  /** Milliseconds on the clock claims are leased by (the database's). */
  now: () => number;
}

interface Held {
  claim: ClaimedDelivery;
  claimedAt: number;
}

const none = (): SchedulerActions => ({ launch: [], giveBack: [] });

export class DeliveryScheduler {
  /** Per endpoint, the deliveries in reserve, oldest first, with the time of their claim. */
  private readonly reserves = new Map<string, Held[]>();
  private reservedCount = 0;
  /** Per endpoint, the deliveries `posting` (their POST has not answered 2xx yet). */
  private readonly posting = new Map<string, Set<string>>();
  /** Deliveries `sent`: their POST answered 2xx, their record is to come. */
  private readonly sent = new Set<string>();
  /** Attempts in flight: `posting` and `sent`, until settled. */
  private inFlight = 0;
  /** Endpoints where another dispatcher waits for a slot, as the last claim saw. */
  private contended = new Set<string>();
  /** Whether the last claim took all the free capacity: a settled success is then worth a claim. */
  private capacityBound = true;
  /** Whether the last claim left deliveries due unclaimed: a slot freed is then worth a claim. */
  private heldBack = true;

  constructor(private readonly options: SchedulerOptions) {}

  /** Attempts this dispatcher may still start. */
  get free(): number {
    return this.options.concurrency - this.inFlight;
  }

  /** Deliveries it may still lease in reserve. */
  get reserveRoom(): number {
    return this.options.concurrency - this.reservedCount;
  }

  /** Whether a claim could take anything now. */
  get wantsClaim(): boolean {
    return this.free > 0 || this.reserveRoom > 0;
  }

  /** Whether the last claim left work due that a freed slot could take (see `sent`). */
  get waitingWork(): boolean {
    return this.heldBack;
  }

  /** What the next claim must be told of this dispatcher's deliveries (ClaimPolicy). */
  claimPolicy(): Pick<ClaimPolicy, "limit" | "own" | "reserveLimit"> {
    // Per endpoint this dispatcher POSTs to or holds a reserve for: its POSTs in flight there (the
    // claim counts its leases by these; `sent` ones are no longer in flight) and its reserve (an
    // endpoint it POSTs to may get a reserve even if it holds none yet).
    const own: Record<string, OwnAtEndpoint> = {};
    for (const [webhookId, ids] of this.posting) {
      if (ids.size > 0) own[webhookId] = { posting: ids.size, reserved: 0 };
    }
    for (const [webhookId, queue] of this.reserves) {
      own[webhookId] = { posting: own[webhookId]?.posting ?? 0, reserved: queue.length };
    }
    return { limit: this.free, own, reserveLimit: this.reserveRoom };
  }

  /**
   * A claim's result. Per endpoint it returned deliveries for, the claim worked out how many POSTs
   * this dispatcher may have in flight there (`allowed`); since it asked, some POSTs may have ended
   * and some reserve been handed on, so what is posting now is counted again, and the endpoint
   * gets up to `allowed` in flight, oldest first (the reserve it held, then the claim's: its slots
   * before its reserve); the rest waits in reserve. A reserve with no POST of this dispatcher's
   * own in flight to hand it a slot, or where another dispatcher waits, goes back to the queue.
   */
  claimed(result: ClaimResult, limit: number, claimedAt: number): SchedulerActions {
    const actions = none();
    this.capacityBound = result.claims.length >= limit;
    this.heldBack = result.heldBack || this.capacityBound;
    this.contended = result.contended;
    // Another dispatcher waits for a slot where this one holds a reserve: it goes back now, and
    // the slots of this one's POSTs that end are not handed on (docs/decisions/0008).
    for (const webhookId of this.contended) {
      if (!result.allowed.has(webhookId)) this.releaseReserve(webhookId, actions);
    }
    const fresh = new Map<string, ClaimedDelivery[]>();
    for (const claim of [...result.claims, ...result.reserve]) {
      const list = fresh.get(claim.webhookId);
      if (list) list.push(claim);
      else fresh.set(claim.webhookId, [claim]);
    }
    for (const [webhookId, allowed] of result.allowed) {
      let room = allowed - (this.posting.get(webhookId)?.size ?? 0);
      for (const claim of fresh.get(webhookId) ?? []) this.hold(claim, claimedAt);
      for (; room > 0; room--) {
        const next = this.fromReserve(webhookId, actions);
        if (!next) break;
        this.launch(next, actions);
      }
      const idle = (this.posting.get(webhookId)?.size ?? 0) === 0;
      if (this.reserves.has(webhookId) && (idle || this.contended.has(webhookId))) {
        this.releaseReserve(webhookId, actions);
      }
    }
    return actions;
  }

  /**
   * A POST answered 2xx (its record is to come): its endpoint slot is free, and goes straight to
   * the endpoint's oldest delivery in reserve, unless another dispatcher waits for it there or
   * this one is stopping (`handOn` false).
   */
  answered(claim: ClaimedDelivery, handOn: boolean): SchedulerActions {
    const actions = none();
    this.sent.add(claim.id);
    this.removePosting(claim);
    if (handOn && !this.contended.has(claim.webhookId)) {
      const next = this.fromReserve(claim.webhookId, actions);
      if (next) this.launch(next, actions);
    }
    return actions;
  }

  /**
   * An attempt is over and its record written (or failed to be). One that did not succeed gives
   * its endpoint's reserve back: nothing is handed on after a failure, whose record may have
   * opened the circuit. Returns whether the dispatcher should look for work again: after anything
   * but a success (a retry may be scheduled, the breaker changed), when stopping, or when the last
   * claim was bound by this dispatcher's capacity, which a settled attempt frees.
   */
  settled(claim: ClaimedDelivery, succeeded: boolean): SchedulerActions & { wake: boolean } {
    const actions = none();
    if (!succeeded) this.releaseReserve(claim.webhookId, actions);
    this.removePosting(claim);
    this.sent.delete(claim.id);
    this.inFlight -= 1;
    return { ...actions, wake: !succeeded || this.capacityBound };
  }

  /** The dispatcher stops: its whole reserve goes back, due at once for any dispatcher. */
  stopping(): SchedulerActions {
    const actions = none();
    for (const webhookId of [...this.reserves.keys()]) this.releaseReserve(webhookId, actions);
    return actions;
  }

  /** How many deliveries are in each state (for tests and the README's table). */
  counts(): { reserved: number; posting: number; sent: number; inFlight: number } {
    let posting = 0;
    for (const ids of this.posting.values()) posting += ids.size;
    return { reserved: this.reservedCount, posting, sent: this.sent.size, inFlight: this.inFlight };
  }

  private hold(claim: ClaimedDelivery, claimedAt: number) {
    const queue = this.reserves.get(claim.webhookId) ?? [];
    queue.push({ claim, claimedAt });
    this.reserves.set(claim.webhookId, queue);
    this.reservedCount += 1;
  }

  private launch(claim: ClaimedDelivery, actions: SchedulerActions) {
    const ids = this.posting.get(claim.webhookId) ?? new Set<string>();
    this.posting.set(claim.webhookId, ids.add(claim.id));
    this.inFlight += 1;
    actions.launch.push(claim);
  }

  private removePosting(claim: ClaimedDelivery) {
    const ids = this.posting.get(claim.webhookId);
    if (!ids) return;
    ids.delete(claim.id);
    if (ids.size === 0) this.posting.delete(claim.webhookId);
  }

  /** The endpoint's oldest delivery in reserve whose lease leaves room for an attempt. */
  private fromReserve(webhookId: string, actions: SchedulerActions): ClaimedDelivery | undefined {
    const queue = this.reserves.get(webhookId);
    if (!queue) return undefined;
    let next: ClaimedDelivery | undefined;
    while (!next && queue.length > 0) {
      const held = queue.shift() as Held;
      this.reservedCount -= 1;
      if (this.options.now() - held.claimedAt < this.options.reserveMs) next = held.claim;
      else actions.giveBack.push(held.claim);
    }
    if (queue.length === 0) this.reserves.delete(webhookId);
    return next;
  }

  private releaseReserve(webhookId: string, actions: SchedulerActions) {
    const queue = this.reserves.get(webhookId);
    if (!queue) return;
    this.reserves.delete(webhookId);
    this.reservedCount -= queue.length;
    for (const held of queue) actions.giveBack.push(held.claim);
  }
}
