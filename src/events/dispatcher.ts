// The webhook dispatcher: fans events out into deliveries and delivers them. It wakes on a NOTIFY
// from enqueueEvent (after commit), when an attempt finishes, when the next retry falls due, and
// on a polling fallback. Any number run side by side on PostgreSQL: fan-out and claims use
// FOR UPDATE SKIP LOCKED, and a claimed delivery is leased past the timeout, so no attempt is
// sent twice. Deliveries in flight when it stops finish up to the grace period; any it abandons
// are taken again when their lease ends (at-least-once, CONTRACT 7).
import type { Logger } from "pino";
import type { Config } from "../config.ts";
import type { Database } from "../db/client.ts";
import { type AutoDisableRule, recordAttempt } from "./attempts.repository.ts";
import { createDeliverer, type Deliverer } from "./deliver.ts";
import { EVENTS_CHANNEL } from "./enqueue.ts";
import {
  type ClaimedDelivery,
  claimDueDeliveries,
  fanOutEvents,
  nextDueAt,
  pruneOlderThan,
} from "./outbox.repository.ts";
import { nextRetryDelay, parseRetryAfter } from "./retry-policy.ts";
import { signDelivery } from "./signing.ts";
import { type Resolver, systemResolver } from "./url-guard.ts";

export const EVENT_RETENTION_MS = 30 * 86_400_000;
const FAN_OUT_BATCH = 200;
const FAN_OUT_BATCHES_PER_TURN = 5;
const POLL_MS = 1_000;
const PRUNE_EVERY_MS = 3_600_000;

export interface DispatcherDeps {
  config: Config;
  database: Database;
  log?: Pick<Logger, "info" | "warn" | "error">;
  resolver?: Resolver;
  now?: () => Date;
  /** Deliveries in flight at once (default 32). */
  concurrency?: number;
  autoDisable?: AutoDisableRule;
}

export interface Dispatcher {
  /** Resolves once in-flight deliveries finished, or after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
  wake(): void;
}

export async function startDispatcher(deps: DispatcherDeps): Promise<Dispatcher> {
  const { config, database } = deps;
  const db = database.db;
  const now = deps.now ?? (() => new Date());
  const log = deps.log;
  const concurrency = deps.concurrency ?? 32;
  const autoDisable = deps.autoDisable ?? { quietMs: 5 * 86_400_000, exhausted: 10 };
  // Longer than any attempt can take, so a lease never ends while its POST is in flight.
  const leaseMs = config.webhookTimeoutMs * 2 + 5_000;
  const deliverer: Deliverer = createDeliverer({
    timeoutMs: config.webhookTimeoutMs,
    allowPrivate: config.webhookAllowPrivateUrls,
    resolver: deps.resolver ?? systemResolver,
    userAgent: `vendor-api-webhooks/1.0 (+${config.publicUrl})`,
  });

  let running = true;
  const inFlight = new Set<Promise<void>>();
  let wakeUp: (() => void) | undefined;
  let pendingWake = false;
  const wake = () => {
    pendingWake = true;
    wakeUp?.();
  };
  const unlisten = await database.listen(EVENTS_CHANNEL, wake);
  let lastPrune = 0;

  async function attempt(claim: ClaimedDelivery): Promise<void> {
    const attemptNo = claim.attemptCount + 1;
    const base = {
      deliveryId: claim.id,
      claimToken: claim.claimToken,
      webhookId: claim.webhookId,
      attempt: attemptNo,
    };
    if (claim.webhookStatus !== "ACTIVE" && claim.eventType !== "webhook.test") {
      // DISABLED endpoints get nothing; what was queued for them is closed unsent.
      await recordAttempt(
        db,
        {
          ...base,
          at: now(),
          statusCode: undefined,
          durationMs: 0,
          error: "webhook disabled",
          responseBody: undefined,
          outcome: { status: "FAILED" },
          skipped: true,
        },
        autoDisable,
      );
      return;
    }
    const sentAt = now();
    const body = JSON.stringify({
      id: claim.eventId,
      event: claim.eventType,
      data: claim.data,
      timestamp: sentAt.toISOString(),
    });
    const previous =
      claim.previousSecret && claim.previousSecretExpiresAt && claim.previousSecretExpiresAt > sentAt
        ? claim.previousSecret
        : undefined;
    const signed = signDelivery(
      { current: claim.secret, previous },
      claim.eventId,
      Math.floor(sentAt.getTime() / 1000),
      body,
    );
    const result = await deliverer.post(
      claim.url,
      { ...signed, "x-service-event": claim.eventType, "x-service-delivery": claim.id },
      body,
    );
    const at = now();
    let outcome: { status: "PENDING"; nextAttemptAt: Date } | { status: "SUCCEEDED" | "FAILED" };
    let disableReason: string | undefined;
    if (result.ok) {
      outcome = { status: "SUCCEEDED" };
    } else if (result.statusCode === 410) {
      // 410 Gone: the receiver says the endpoint is gone for good (RFC 9110 15.5.11).
      outcome = { status: "FAILED" };
      disableReason = "The receiver answered 410 Gone";
    } else {
      const delay = nextRetryDelay(
        config.webhookRetryDelaysMs,
        attemptNo,
        parseRetryAfter(result.retryAfter, at),
      );
      outcome =
        delay === undefined
          ? { status: "FAILED" }
          : { status: "PENDING", nextAttemptAt: new Date(at.getTime() + delay) };
    }
    await recordAttempt(
      db,
      {
        ...base,
        at,
        statusCode: result.statusCode,
        durationMs: result.durationMs,
        error: result.error,
        responseBody: result.responseBody,
        outcome,
        disableReason,
      },
      autoDisable,
    );
  }

  function launch(claim: ClaimedDelivery) {
    const p = attempt(claim)
      .catch((err: unknown) =>
        log?.error({ err, deliveryId: claim.id }, "recording a delivery attempt failed"),
      )
      .finally(() => {
        inFlight.delete(p);
        wake();
      });
    inFlight.add(p);
  }

  async function tick(): Promise<boolean> {
    let worked = false;
    // A few batches per turn, so a large backlog of events does not hold up deliveries already due.
    for (let i = 0; running && i < FAN_OUT_BATCHES_PER_TURN; i++) {
      if ((await fanOutEvents(db, now(), FAN_OUT_BATCH)) === 0) break;
      worked = true;
    }
    const free = concurrency - inFlight.size;
    if (running && free > 0) {
      const claims = await claimDueDeliveries(db, now(), leaseMs, free);
      for (const claim of claims) launch(claim);
      if (claims.length > 0) worked = true;
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
      const due = await nextDueAt(db);
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
        if (!worked) await sleep();
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
