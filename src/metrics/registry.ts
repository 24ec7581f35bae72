// Prometheus metrics (prom-client), one registry per process (per app in tests, so apps built
// side by side never share counters). What an operator watches: request latency by route and
// status, webhook attempts by outcome, how long a committed event takes to reach its receiver,
// the outbox backlog, mail held by shops' mail budgets, and the database pool.
import client from "prom-client";
import type { Database } from "../db/client.ts";
import { heldReasonText } from "../mail/budget.ts";
import { countHeldMail, countOutboxBacklog } from "./metrics.repository.ts";

export type AttemptOutcome = "succeeded" | "retrying" | "failed" | "skipped";

/** What the dispatcher reports; kept this small so the dispatcher needs one call per attempt. */
export interface DeliveryMetrics {
  attempt(outcome: AttemptOutcome, durationMs: number, eventCreatedAt?: Date, at?: Date): void;
}

export interface Metrics extends DeliveryMetrics {
  readonly registry: client.Registry;
  observeRequest(method: string, route: string, statusCode: number, seconds: number): void;
}

export function createMetrics(database: Database, options: { processMetrics?: boolean } = {}): Metrics {
  const registry = new client.Registry();
  if (options.processMetrics) client.collectDefaultMetrics({ register: registry, prefix: "vendor_api_" });

  const requestDuration = new client.Histogram({
    name: "vendor_api_http_request_duration_seconds",
    help: "HTTP request duration by method, route pattern and status code",
    labelNames: ["method", "route", "status_code"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const attempts = new client.Counter({
    name: "vendor_api_webhook_attempts_total",
    help: "Webhook delivery attempts by outcome (succeeded, retrying, failed, skipped)",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });
  const attemptDuration = new client.Histogram({
    name: "vendor_api_webhook_attempt_duration_seconds",
    help: "Duration of one webhook POST, by outcome",
    labelNames: ["outcome"] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const latency = new client.Histogram({
    name: "vendor_api_webhook_delivery_latency_seconds",
    help: "From the event's commit to its successful delivery (retries included)",
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 60, 300, 1800, 21600, 86400],
    registers: [registry],
  });
  new client.Gauge({
    name: "vendor_api_outbox_backlog",
    help: "Events not yet fanned out (stage=events) and deliveries waiting to be sent (stage=deliveries)",
    labelNames: ["stage"] as const,
    registers: [registry],
    async collect() {
      const backlog = await countOutboxBacklog(database.db);
      this.set({ stage: "events" }, backlog.events);
      this.set({ stage: "deliveries" }, backlog.deliveries);
    },
  });
  new client.Gauge({
    name: "vendor_api_mail_held",
    help: "Mails a shop's mail budget holds back now, by reason (unconfirmed, hour, day): shown, never refused",
    labelNames: ["reason"] as const,
    registers: [registry],
    async collect() {
      const held = new Map((await countHeldMail(database.db)).map((r) => [r.reason, r.count]));
      // Every reason, zero included, so a rate or an alert has a series from the start.
      for (const reason of Object.keys(heldReasonText)) this.set({ reason }, held.get(reason) ?? 0);
    },
  });
  new client.Gauge({
    name: "vendor_api_db_pool_connections",
    help: "Database connections by state (PGlite: one embedded connection)",
    labelNames: ["state"] as const,
    registers: [registry],
    collect() {
      const pool = database.pool;
      this.set({ state: "total" }, pool ? pool.totalCount : 1);
      this.set({ state: "idle" }, pool ? pool.idleCount : 0);
      this.set({ state: "waiting" }, pool ? pool.waitingCount : 0);
    },
  });

  return {
    registry,
    observeRequest(method, route, statusCode, seconds) {
      requestDuration.observe({ method, route, status_code: String(statusCode) }, seconds);
    },
    attempt(outcome, durationMs, eventCreatedAt, at) {
      attempts.inc({ outcome });
      if (outcome !== "skipped") attemptDuration.observe({ outcome }, durationMs / 1000);
      if (outcome === "succeeded" && eventCreatedAt && at) {
        latency.observe(Math.max(0, at.getTime() - eventCreatedAt.getTime()) / 1000);
      }
    },
  };
}
