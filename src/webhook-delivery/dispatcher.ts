// The webhook dispatcher's loop: it wakes, ticks, sleeps and stops; what one delivery attempt does
// is attempt.ts, and the journey of an event is told in README.md beside this file.
// It fans events out into deliveries and delivers them. It wakes on a NOTIFY
// from enqueueEvent (after commit), when an attempt finishes, when the next retry falls due, and
// on a polling fallback. Any number run side by side on PostgreSQL: fan-out and claims use
// FOR UPDATE SKIP LOCKED, and a claimed delivery is leased past the timeout, so no attempt is
// sent twice. Deliveries in flight when it stops finish up to the grace period; any it abandons
// are taken again when their lease ends (at-least-once, CONTRACT 7).
import type { Logger } from "pino";
import type { Config } from "../config.ts";
import type { Database } from "../db/client.ts";
import { databaseClock } from "../db/database-clock.ts";
import { newId } from "../lib/ids.ts";

import type { DeliveryMetrics } from "../observability/metrics.ts";
import { type AttemptReport, runAttempt } from "./attempt.ts";
import { recordAttempt } from "./attempts.repository.ts";
import { type AutoDisableRule, DEFAULT_AUTO_DISABLE } from "./auto-disable.ts";
import { createBatchRecorder } from "./batch-recorder.ts";
import { createDeliverer, type Deliverer } from "./deliver.ts";
import { EVENTS_CHANNEL } from "./enqueue.ts";
import {
  type ClaimedDelivery,
  claimDue,
  endWaits,
  fanOutEvents,
  nextDueAt,
  pruneOlderThan,
  releaseClaims,
} from "./outbox.repository.ts";
import { type Resolver, systemResolver } from "./url-guard.ts";

export const EVENT_RETENTION_MS = 30 * 86_400_000;
const FAN_OUT_BATCH = 200;
const FAN_OUT_BATCHES_PER_TURN = 5;
const POLL_MS = 1_000;
const CLOCK_SYNC_MS = 30_000;
const PRUNE_EVERY_MS = 3_600_000;

export interface DispatcherDeps {
  config: Config;
  database: Database;
  log?: Pick<Logger, "info" | "warn" | "error">;
  resolver?: Resolver;
  /** The process clock (tests skew it); the dispatcher corrects it to the database's. */
  now?: () => Date;
  /** Told what each turn did, so tests wait on facts rather than time (see DispatcherEvent). */
  observe?: (event: DispatcherEvent) => void;
  /** Deliveries in flight at once (default 32). */
  concurrency?: number;
  autoDisable?: AutoDisableRule;
  /** Counts attempts by outcome and the commit→delivery latency (GET /metrics). */
  metrics?: DeliveryMetrics;
}

/**
 * What the dispatcher did: a claim that leased deliveries (`sent` now, the rest in reserve), a turn
 * that found nothing to send and sleeps, an attempt whose record committed (or was stale).
 */
export type DispatcherEvent =
  | { type: "claimed"; sent: number; reserved: number }
  | { type: "idle" }
  | { type: "settled"; deliveryId: string; outcome: AttemptReport["outcome"] };

export interface Dispatcher {
  /** Resolves once in-flight deliveries finished, or after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
  wake(): void;
}

export async function startDispatcher(deps: DispatcherDeps): Promise<Dispatcher> {
  const { config, database } = deps;
  const db = database.db;
  const log = deps.log;
  // Every due time, lease and retry on the database's clock (issue 25 item 6): `now` is the
  // process clock corrected by the offset measured at start and every CLOCK_SYNC_MS.
  const clock = databaseClock(db, { local: deps.now, log });
  await clock.sync();
  let lastClockSync = Date.now();
  const now = clock.now;
  const concurrency = deps.concurrency ?? 32;
  // Longer than any attempt can take, so a lease never ends while its POST is in flight.
  const leaseMs = config.webhookTimeoutMs * 2 + 5_000;
  // A delivery held in reserve goes out only while its lease leaves a whole attempt and a second
  // to spare; past that it goes back to the queue instead.
  const reserveMs = leaseMs - config.webhookTimeoutMs - 1_000;
  const deliverer: Deliverer = createDeliverer({
    timeoutMs: config.webhookTimeoutMs,
    allowPrivate: config.webhookAllowPrivateUrls,
    resolver: deps.resolver ?? systemResolver,
    userAgent: config.webhookUserAgent,
  });

  const breaker = { failures: config.webhookBreakerFailures, cooldownMs: config.webhookBreakerCooldownMs };
  const autoDisable = deps.autoDisable ?? DEFAULT_AUTO_DISABLE;
  const attemptDeps = {
    db,
    deliverer,
    retryDelaysMs: config.webhookRetryDelaysMs,
    autoDisable,
    breaker,
    now,
    recorder: createBatchRecorder(db, { recordOne: (r) => recordAttempt(db, r, autoDisable) }),
    sent(claim: ClaimedDelivery) {
      // A success's endpoint slot is free from here (claimDue's `sent`). It goes straight to the
      // endpoint's next delivery in reserve, if any; a claim then tops the reserve up, worth it
      // if the last one left deliveries due.
      sentUnrecorded.add(claim.id);
      sending.get(claim.webhookId)?.delete(claim.id);
      const next = running && !contended.has(claim.webhookId) ? fromReserve(claim.webhookId) : undefined;
      if (next) launch(next);
      if (heldBack) wake();
    },
    report(claim: ClaimedDelivery, r: AttemptReport) {
      deps.metrics?.attempt(r.outcome, r.durationMs, claim.eventCreatedAt, r.at);
      // One line per attempt: who, which endpoint, what happened (never the secret or the body).
      log?.[r.outcome === "succeeded" || r.outcome === "skipped" ? "info" : "warn"](
        {
          deliveryId: claim.id,
          eventId: claim.eventId,
          eventType: claim.eventType,
          webhookId: claim.webhookId,
          vendorId: claim.vendorId,
          attempt: r.attempt,
          outcome: r.outcome,
          statusCode: r.statusCode,
          durationMs: r.durationMs,
          error: r.error,
          nextAttemptAt: r.nextAttemptAt?.toISOString(),
        },
        "webhook delivery attempt",
      );
    },
  };

  let running = true;
  /** Attempts claimed and not yet recorded: the POST in flight, or over and its record to come. */
  const inFlight = new Set<Promise<void>>();
  /** The deliveries of `inFlight` whose POST is over (see ClaimPolicy.sent). */
  const sentUnrecorded = new Set<string>();
  let wakeUp: (() => void) | undefined;
  let pendingWake = false;
  const wake = () => {
    pendingWake = true;
    wakeUp?.();
  };
  const unlisten = await database.listen(EVENTS_CHANNEL, wake);
  let lastPrune = 0;
  let lastFanOut = 0;
  let legacyLeft = false;
  /** This dispatcher's name on the leases it holds (`leased_by`). */
  const holder = newId();

  /**
   * Deliveries leased in reserve (claimDue's `reserve`), per endpoint, oldest first, with the time
   * of their claim. One goes out when a POST to its endpoint succeeds (the slot is handed on, so
   * the endpoint's cap holds without a claim between the two POSTs); a POST that does not succeed,
   * or the dispatcher's stop, gives the endpoint's reserve back to the queue. So a reserve is only
   * kept for an endpoint this dispatcher is sending to: a POST of its own will end and settle it.
   */
  const reserves = new Map<string, { claim: ClaimedDelivery; claimedAt: number }[]>();
  let reservedCount = 0;
  /** Endpoints where another dispatcher waits for a slot, as the last claim saw (claimDue). */
  let contended = new Set<string>();
  /** Per endpoint, this dispatcher's attempts whose POST has not ended in a success yet. */
  const sending = new Map<string, Set<string>>();

  /** What claimDue needs to know of the reserve: per endpoint being sent to, how much it holds. */
  function reserveHeld(): Record<string, number> {
    const held: Record<string, number> = {};
    for (const [webhookId, ids] of sending) if (ids.size > 0) held[webhookId] = 0;
    for (const [webhookId, queue] of reserves) held[webhookId] = queue.length;
    return held;
  }

  function hold(claim: ClaimedDelivery, claimedAt: number) {
    const queue = reserves.get(claim.webhookId) ?? [];
    queue.push({ claim, claimedAt });
    reserves.set(claim.webhookId, queue);
    reservedCount += 1;
  }

  /** The endpoint's oldest delivery in reserve whose lease leaves room for an attempt. */
  function fromReserve(webhookId: string): ClaimedDelivery | undefined {
    const queue = reserves.get(webhookId);
    if (!queue) return undefined;
    const expired: ClaimedDelivery[] = [];
    let next: ClaimedDelivery | undefined;
    while (!next && queue.length > 0) {
      const held = queue.shift() as { claim: ClaimedDelivery; claimedAt: number };
      reservedCount -= 1;
      if (now().getTime() - held.claimedAt < reserveMs) next = held.claim;
      else expired.push(held.claim);
    }
    if (queue.length === 0) reserves.delete(webhookId);
    giveBack(expired);
    return next;
  }

  /** Gives an endpoint's whole reserve (or every endpoint's) back to the queue. */
  function releaseReserve(webhookId?: string): Promise<void> {
    const ids = webhookId === undefined ? [...reserves.keys()] : [webhookId];
    const claims = ids.flatMap((id) => (reserves.get(id) ?? []).map((h) => h.claim));
    for (const id of ids) reserves.delete(id);
    reservedCount -= claims.length;
    return giveBack(claims);
  }

  /**
   * Puts a claim's deliveries for one endpoint to work. The claim worked out that this dispatcher
   * may have `allowed` POSTs in flight to it; since it asked, some of its POSTs may have ended and
   * some reserve been handed on, so what is POSTing now is counted again, and the endpoint gets up
   * to `allowed` in flight, its oldest deliveries first (the reserve it held, then the claim's:
   * `fresh`, its slots before its reserve); the rest waits in reserve. A reserve with no POST of
   * this dispatcher's own in flight to hand it a slot goes back to the queue.
   */
  function settle(webhookId: string, allowed: number, fresh: ClaimedDelivery[], claimedAt: number) {
    let room = allowed - (sending.get(webhookId)?.size ?? 0);
    for (const claim of fresh) hold(claim, claimedAt);
    for (; room > 0; room--) {
      const next = fromReserve(webhookId);
      if (!next) break;
      launch(next);
    }
    const idle = (sending.get(webhookId)?.size ?? 0) === 0;
    if (reserves.has(webhookId) && (idle || contended.has(webhookId))) void releaseReserve(webhookId);
  }

  function giveBack(claims: ClaimedDelivery[]): Promise<void> {
    if (claims.length === 0) return Promise.resolve();
    // If this fails the rows stay leased and come back when their leases end (at-least-once).
    return releaseClaims(db, claims, now())
      .then(() => {})
      .catch((err: unknown) => log?.error({ err }, "giving reserved deliveries back to the queue failed"));
  }

  function launch(claim: ClaimedDelivery) {
    let succeeded = false;
    let outcome: AttemptReport["outcome"] | undefined;
    const ids = sending.get(claim.webhookId) ?? new Set<string>();
    sending.set(claim.webhookId, ids.add(claim.id));
    const p = runAttempt(attemptDeps, claim)
      .then((r) => {
        outcome = r.outcome;
        succeeded = r.outcome === "succeeded";
      })
      .catch((err: unknown) =>
        log?.error({ err, deliveryId: claim.id }, "recording a delivery attempt failed"),
      )
      // Recorded, so a failure's effect on the breaker is on the webhook row for the next claim.
      .finally(() => (succeeded ? undefined : releaseReserve(claim.webhookId)))
      .finally(() => {
        ids.delete(claim.id);
        if (ids.size === 0 && sending.get(claim.webhookId) === ids) sending.delete(claim.webhookId);
        inFlight.delete(p);
        sentUnrecorded.delete(claim.id);
        if (outcome) deps.observe?.({ type: "settled", deliveryId: claim.id, outcome });
        // A recorded success frees this dispatcher's capacity (its endpoint slot was freed when
        // the POST succeeded): worth a claim only if that capacity was what stopped the last claim.
        // Any other outcome may have scheduled a retry or changed the breaker: the loop looks again.
        if (!succeeded || !running || capacityBound) wake();
      });
    inFlight.add(p);
  }

  /** The earliest future due time read by this turn's claim (null: none), undefined if unread. */
  let nextDue: Date | null | undefined;
  /** Whether the last claim left deliveries due unclaimed (see claimDue). */
  let heldBack = true;
  /** Whether the last claim took all this dispatcher's free capacity (`concurrency`). */
  let capacityBound = true;

  async function tick(): Promise<boolean> {
    let worked = false;
    nextDue = undefined;
    // Events written without their deliveries (before fan-out moved into enqueueEvent, or by
    // hand) are rare: looked for once per poll interval, and on every turn while some are left.
    // A few batches per turn, so a large backlog of events does not hold up deliveries already due.
    if (legacyLeft || Date.now() - lastFanOut >= POLL_MS) {
      lastFanOut = Date.now();
      legacyLeft = false;
      for (let i = 0; running && i < FAN_OUT_BATCHES_PER_TURN; i++) {
        const n = await fanOutEvents(db, now(), FAN_OUT_BATCH);
        if (n === 0) break;
        worked = true;
        legacyLeft = n === FAN_OUT_BATCH;
      }
    }
    if (Date.now() - lastClockSync >= CLOCK_SYNC_MS) {
      lastClockSync = Date.now();
      await clock.sync();
    }
    // Handed-on slots may take a dispatcher past its capacity for a moment (the attempt whose
    // POST ended counts until its record commits): then it only tops its reserve up.
    const free = concurrency - inFlight.size;
    const reserveRoom = concurrency - reservedCount;
    if (running && (free > 0 || reserveRoom > 0)) {
      // One statement: the endpoints with deliveries due, their slots, the fair share of `free`
      // between them, a reserve for each endpoint in good health, and the claim
      // (outbox.repository.ts claimDue). Each claimed delivery goes out at once.
      const claimedAt = now();
      const claimed = await claimDue(db, claimedAt, leaseMs, {
        holder,
        limit: free,
        endpointConcurrency: config.webhookEndpointConcurrency,
        breakerFailures: breaker.failures,
        sent: [...sentUnrecorded],
        posting: [...sending.values()].flatMap((ids) => [...ids]),
        reserveLimit: reserveRoom,
        reserved: [...reserves.values()].flatMap((queue) => queue.map((h) => h.claim)),
        reserveHeld: reserveHeld(),
      });
      if (claimed.claims.length + claimed.reserve.length > 0) {
        deps.observe?.({ type: "claimed", sent: claimed.claims.length, reserved: claimed.reserve.length });
      }
      capacityBound = claimed.claims.length >= free;
      contended = claimed.contended;
      // Another dispatcher waits for a slot where this one holds a reserve: it goes back now, and
      // the slots of this one's POSTs that end are not handed on (issue 25 item 4).
      for (const webhookId of contended) if (!claimed.allowed.has(webhookId)) void releaseReserve(webhookId);
      heldBack = claimed.heldBack || capacityBound;
      const fresh = new Map<string, ClaimedDelivery[]>();
      for (const claim of [...claimed.claims, ...claimed.reserve]) {
        const list = fresh.get(claim.webhookId);
        if (list) list.push(claim);
        else fresh.set(claim.webhookId, [claim]);
      }
      for (const [webhookId, allowed] of claimed.allowed) {
        settle(webhookId, allowed, fresh.get(webhookId) ?? [], claimedAt.getTime());
      }
      // Fewer than asked: all that could be claimed was (the rest is capped, leased or not due),
      // so the loop sleeps, until the earliest future due time read in the same statement.
      if (free > 0 && claimed.claims.length === free) worked = true;
      else nextDue = claimed.nextDueAt ?? null;
    }
    if (running && now().getTime() - lastPrune > PRUNE_EVERY_MS) {
      lastPrune = now().getTime();
      const pruned = await pruneOlderThan(db, new Date(now().getTime() - EVENT_RETENTION_MS));
      if (pruned > 0) log?.info({ pruned }, "pruned events older than 30 days");
    }
    return worked;
  }

  async function sleep() {
    let ms = POLL_MS;
    if (inFlight.size < concurrency) {
      const due = nextDue === undefined ? await nextDueAt(db, now()) : (nextDue ?? undefined);
      if (due) ms = Math.max(0, Math.min(ms, due.getTime() - now().getTime()));
    }
    if (pendingWake || ms === 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    wakeUp = undefined;
  }

  const loop = (async () => {
    while (running) {
      pendingWake = false;
      try {
        const worked = await tick();
        if (!worked) {
          deps.observe?.({ type: "idle" });
          await sleep();
        }
      } catch (err) {
        log?.error({ err }, "dispatcher iteration failed; retrying after the poll interval");
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
    }
  })();

  return {
    wake,
    async stop(graceMs = config.shutdownGraceMs) {
      running = false;
      wake();
      await unlisten();
      await loop;
      // Nothing new goes out from here: the reserve is due again at once, for any dispatcher, and
      // the endpoints it waited for are the others' to fill.
      await releaseReserve();
      await endWaits(db, holder).catch((err: unknown) =>
        log?.error({ err }, "ending the waits for slots failed"),
      );
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...inFlight]),
        new Promise<void>((r) => {
          timer = setTimeout(r, graceMs);
        }),
      ]);
      clearTimeout(timer);
      deliverer.close();
    },
  };
}
