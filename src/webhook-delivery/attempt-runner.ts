// Carries out what the scheduler decides (scheduler.ts): POSTs the deliveries it puts in `posting`
// (each an attempt, attempt.ts), gives back the ones it lets go, and tells it when each POST has
// answered 2xx and when each attempt is over. The one place a dispatcher does delivery I/O.
import type { Logger } from "pino";
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import type { DeliveryMetrics } from "../metrics/registry.ts";
import { type AttemptDeps, type AttemptReport, runAttempt } from "./attempt.ts";
import { recordAttempt } from "./attempts.repository.ts";
import { type AutoDisableRule, DEFAULT_AUTO_DISABLE } from "./auto-disable.ts";
import { createBatchRecorder } from "./batch-recorder.ts";
import type { ClaimedDelivery } from "./claim.repository.ts";
import { createDeliverer } from "./deliver.ts";
import { releaseClaims } from "./outbox.repository.ts";
import type { DeliveryScheduler, SchedulerActions } from "./scheduler.ts";
import { type Resolver, systemResolver } from "./url-guard.ts";

export interface AttemptRunnerDeps {
  config: Config;
  db: Db;
  now: () => Date;
  scheduler: DeliveryScheduler;
  /** Asks the dispatcher's loop for another turn. */
  wake: () => void;
  /** False once the dispatcher stops: no slot is handed on from then. */
  isRunning: () => boolean;
  log?: Pick<Logger, "info" | "warn" | "error"> | undefined;
  resolver?: Resolver | undefined;
  autoDisable?: AutoDisableRule | undefined;
  metrics?: DeliveryMetrics | undefined;
  observe?:
    | ((event: { type: "settled"; deliveryId: string; outcome: AttemptReport["outcome"] }) => void)
    | undefined;
}

export interface AttemptRunner {
  /** Does what the scheduler decided: POSTs some deliveries, gives others back. */
  act(actions: SchedulerActions): Promise<void>;
  /** Waits for the attempts in flight, up to `graceMs`, then closes the connections. */
  settle(graceMs: number): Promise<void>;
}

export function createAttemptRunner(deps: AttemptRunnerDeps): AttemptRunner {
  const { config, db, now, scheduler, log } = deps;
  const autoDisable = deps.autoDisable ?? DEFAULT_AUTO_DISABLE;
  const deliverer = createDeliverer({
    timeoutMs: config.webhookTimeoutMs,
    allowPrivate: config.webhookAllowPrivateUrls,
    resolver: deps.resolver ?? systemResolver,
    userAgent: config.webhookUserAgent,
  });
  /** Attempts launched and not yet settled. */
  const inFlight = new Set<Promise<void>>();
  const attemptDeps: AttemptDeps = {
    db,
    deliverer,
    retryDelaysMs: config.webhookRetryDelaysMs,
    autoDisable,
    breaker: { failures: config.webhookBreakerFailures, cooldownMs: config.webhookBreakerCooldownMs },
    now,
    recorder: createBatchRecorder(db, { recordOne: (r) => recordAttempt(db, r, autoDisable) }),
    sent(claim) {
      // The slot is free from here (a sent delivery is not among ClaimPolicy.own's POSTs), handed
      // on to the endpoint's reserve; a claim then tops the reserve up, worth it if the last one
      // left deliveries due.
      void act(scheduler.answered(claim, deps.isRunning()));
      if (scheduler.waitingWork) deps.wake();
    },
    report: (claim, r) => reportAttempt(deps, claim, r),
  };

  function act(actions: SchedulerActions): Promise<void> {
    for (const claim of actions.launch) launch(claim);
    if (actions.giveBack.length === 0) return Promise.resolve();
    // If this fails the rows stay leased and come back when their leases end (at-least-once).
    return releaseClaims(db, actions.giveBack, now())
      .then(() => {})
      .catch((err: unknown) => log?.error({ err }, "giving reserved deliveries back to the queue failed"));
  }

  /** Runs one attempt the scheduler put in `posting`, and tells it when the attempt is over. */
  function launch(claim: ClaimedDelivery) {
    const p = runAttempt(attemptDeps, claim)
      .then(
        (r) => r.outcome,
        (err: unknown) => {
          log?.error({ err, deliveryId: claim.id }, "recording a delivery attempt failed");
          return undefined;
        },
      )
      .then(async (outcome) => {
        // Recorded, so a failure's effect on the breaker is on the webhook row for the next claim.
        const { wake, ...actions } = scheduler.settled(claim, outcome === "succeeded");
        await act(actions);
        inFlight.delete(p);
        if (outcome) deps.observe?.({ type: "settled", deliveryId: claim.id, outcome });
        if (wake || !deps.isRunning()) deps.wake();
      });
    inFlight.add(p);
  }

  return {
    act,
    async settle(graceMs) {
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

/** One log line per attempt: who, which endpoint, what happened (never the secret or the body). */
function reportAttempt(deps: AttemptRunnerDeps, claim: ClaimedDelivery, r: AttemptReport) {
  deps.metrics?.attempt(r.outcome, r.durationMs, claim.eventCreatedAt, r.at);
  deps.log?.[r.outcome === "succeeded" || r.outcome === "skipped" ? "info" : "warn"](
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
}
