import type { AttemptRow, DeliveryRow, WebhookRow } from "./webhooks.repository.ts";

/** The one place a webhook row becomes JSON; the secret never leaves through it. */
export function presentWebhook(row: WebhookRow) {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    status: row.status as "ACTIVE" | "DISABLED",
    disabledReason: row.disabledReason,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function presentAttempt(row: AttemptRow) {
  return {
    attempt: row.attempt,
    createdAt: row.createdAt.toISOString(),
    statusCode: row.statusCode,
    durationMs: row.durationMs,
    error: row.error,
    responseBody: row.responseBody,
  };
}

export function presentDelivery(row: DeliveryRow, attempts: AttemptRow[]) {
  return {
    id: row.id,
    webhookId: row.webhookId,
    eventId: row.eventId,
    event: row.eventType,
    status: row.status as "PENDING" | "SUCCEEDED" | "FAILED" | "SKIPPED",
    attemptCount: row.attemptCount,
    nextAttemptAt: row.status === "PENDING" ? (row.nextAttemptAt?.toISOString() ?? null) : null,
    redeliveryOf: row.redeliveryOf,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    attempts: attempts.map(presentAttempt),
  };
}
