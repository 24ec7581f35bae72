// The webhook sender: the outbox loop's sender (src/outbox-worker/) for webhook deliveries. Each
// turn is a claim (and now and then a clock sync and the prune); what it holds
// and decides is the scheduler's (scheduler.ts), what one attempt does is attempt.ts (run by
// attempt-runner.ts), and the journey of an event is told in README.md beside this file. The loop
// wakes it on a NOTIFY from enqueueEvent (after commit) or from a record that frees a slot another
// dispatcher waits for, when an attempt of its own settles, when the next retry or lease end falls
// due, and on the poll. Any number run side by side on PostgreSQL: fan-out and claims use FOR
// UPDATE SKIP LOCKED, and a claimed delivery is leased past the timeout, so no attempt is sent
// twice. Deliveries in flight when it stops finish up to the grace period; any it abandons are
// taken again at the others' next poll, as are a killed dispatcher's once PostgreSQL has ended its
// session (its lock is gone), or else when their lease ends (at-least-once, CONTRACT 7).
import type { Logger } from "pino";
import type { Config } from "../config.ts";
import type { Database } from "../db/client.ts";
import { type DatabaseClock, databaseClock } from "../db/database-clock.ts";
import { newId } from "../lib/ids.ts";
import type { DeliveryMetrics } from "../metrics/registry.ts";
import { EVENT_RETENTION_MS, EVENTS_CHANNEL } from "../outbox/event-types.ts";
import { OutboxLoop, type OutboxSender, POLL_MS, type SenderLoop } from "../outbox-worker/loop.ts";
import type { AttemptReport } from "./attempt.ts";
import { type AttemptRunner, createAttemptRunner } from "./attempt-runner.ts";
import type { AutoDisableRule } from "./auto-disable.ts";
import { claimDue } from "./claim.repository.ts";
import {
  endWaits,
  LOCKED_HOLDER_PREFIX,
  nextDueAt,
  pruneOlderThan,
  requeueAbandoned,
} from "./outbox.repository.ts";
import { DeliveryScheduler } from "./scheduler.ts";
import type { Resolver } from "./url-guard.ts";

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
  // Every due time, lease and retry on the database's clock (README.md, "One clock"): `now` is the
  // process clock corrected by the offset measured at start and every CLOCK_SYNC_MS.
  // The first turn measures the clock before it claims: a database that stops answering just
  // after the process started fails that turn (retried after the poll), not the process.
  const clock = databaseClock(deps.database.db, { local: deps.now, log: deps.log });
  // The lock named for the holder is its proof of life to the other dispatchers, taken before its
  // first claim: once it is gone (the process died), its leases are requeued at their next poll
  // (outbox.repository.ts requeueAbandoned).
  const holder = `${LOCKED_HOLDER_PREFIX}${newId()}`;
  const releaseLock = await deps.database.holdLock(holder);
  const loop = new OutboxLoop(deps.database, (l) => new WebhookSender(deps, clock, l, holder), deps.log);
  await loop.start();
  return {
    wake: () => loop.wake(),
    async stop(graceMs = deps.config.shutdownGraceMs) {
      await loop.stop(graceMs);
      // What it abandoned (POSTs past the grace period) is the others' to take at once.
      await releaseLock();
    },
  };
}

class WebhookSender implements OutboxSender {
  readonly channel = EVENTS_CHANNEL;
  readonly name = "webhook dispatcher";
  private readonly db: Database["db"];
  private readonly now: () => Date;
  /** Longer than any attempt can take, so a lease never ends while its POST is in flight. */
  private readonly leaseMs: number;
  private readonly scheduler: DeliveryScheduler;
  private readonly runner: AttemptRunner;
  /** When the clock was last measured (never yet: the first turn measures it). */
  private lastClockSync = 0;
  private lastPrune = 0;
  private lastRequeue = 0;
  /** The earliest future due time read by this turn's claim (null: none), undefined if unread. */
  private nextDue: Date | null | undefined;

  constructor(
    private readonly deps: DispatcherDeps,
    private readonly clock: DatabaseClock,
    private readonly loop: SenderLoop,
    /** This dispatcher's name on the leases it holds (`leased_by`), and its lock's. */
    private readonly holder: string,
  ) {
    this.db = deps.database.db;
    this.now = clock.now;
    const { config } = deps;
    this.leaseMs = config.webhookTimeoutMs * 2 + 5_000;
    this.scheduler = new DeliveryScheduler({
      concurrency: deps.concurrency ?? 32,
      // A delivery held in reserve goes out only while its lease leaves a whole attempt and a
      // second to spare; past that it goes back to the queue instead.
      reserveMs: this.leaseMs - config.webhookTimeoutMs - 1_000,
      now: () => this.now().getTime(),
    });
    this.runner = createAttemptRunner({
      ...deps,
      db: this.db,
      now: this.now,
      scheduler: this.scheduler,
      wake: () => loop.wake(),
      isRunning: () => loop.running,
    });
  }

  idle(): void {
    this.deps.observe?.({ type: "idle" });
  }

  /** A turn: a clock sync now and then, ended leases requeued, a claim, the prune now and then. */
  async work(): Promise<boolean> {
    let worked = false;
    this.nextDue = undefined;
    // No claim on a clock not measured: a failed sync fails the turn, and the next one measures.
    if (Date.now() - this.lastClockSync >= CLOCK_SYNC_MS) {
      await this.clock.sync();
      this.lastClockSync = Date.now();
    }
    // Leases of a dispatcher that died (its lock gone, or the lease ended unrecorded) go back to
    // their place in the queue before a claim reads it (CONTRACT 7: a crash loses no event),
    // looked for once per poll interval, a read of leases only.
    if (Date.now() - this.lastRequeue >= POLL_MS) {
      this.lastRequeue = Date.now();
      await requeueAbandoned(this.db, this.now());
    }
    // Handed-on slots may take a dispatcher past its capacity for a moment (the attempt whose
    // POST ended counts until its record commits): then it only tops its reserve up.
    if (this.loop.running && this.scheduler.wantsClaim && (await this.claim())) worked = true;
    if (this.loop.running && this.now().getTime() - this.lastPrune > PRUNE_EVERY_MS) {
      this.lastPrune = this.now().getTime();
      const before = new Date(this.now().getTime() - EVENT_RETENTION_MS);
      const pruned = await pruneOlderThan(this.db, before);
      if (pruned > 0) this.deps.log?.info({ pruned }, "pruned events older than 30 days");
    }
    return worked;
  }

  /**
   * One claim: what the scheduler may take, one statement (the endpoints with deliveries due,
   * their slots, the fair share of the free capacity, a reserve for each endpoint in good health:
   * claim.repository.ts claimDue), and what the scheduler decides. True when it took all it asked.
   */
  private async claim(): Promise<boolean> {
    const policy = this.scheduler.claimPolicy();
    const claimedAt = this.now();
    const result = await claimDue(this.db, claimedAt, this.leaseMs, {
      ...policy,
      holder: this.holder,
      endpointConcurrency: this.deps.config.webhookEndpointConcurrency,
      breakerFailures: this.deps.config.webhookBreakerFailures,
    });
    if (result.claims.length + result.reserve.length > 0) {
      this.deps.observe?.({ type: "claimed", sent: result.claims.length, reserved: result.reserve.length });
    }
    void this.runner.act(this.scheduler.claimed(result, policy.limit, claimedAt.getTime()));
    if (policy.limit > 0 && result.claims.length === policy.limit) return true;
    // Fewer than asked: all that could be claimed was (the rest is capped, leased or not due), so
    // the loop sleeps, until the earliest future due time read in the same statement.
    this.nextDue = result.nextDueAt ?? null;
    return false;
  }

  /** Until the earliest due time this turn's claim read (or, if it read none, one read now). */
  async nextDueInMs(): Promise<number | undefined> {
    if (this.scheduler.free <= 0) return undefined;
    const due =
      this.nextDue === undefined ? await nextDueAt(this.db, this.now()) : (this.nextDue ?? undefined);
    return due ? due.getTime() - this.now().getTime() : undefined;
  }

  /** After the loop's last turn: hands the reserve back, ends its waits, lets attempts finish. */
  async drain(graceMs: number): Promise<void> {
    // Nothing new goes out from here: the reserve is due again at once, for any dispatcher, and
    // the endpoints it waited for are the others' to fill.
    await this.runner.act(this.scheduler.stopping());
    await endWaits(this.db, this.holder).catch((err: unknown) =>
      this.deps.log?.error({ err }, "ending the waits for slots failed"),
    );
    await this.runner.settle(graceMs);
  }
}
