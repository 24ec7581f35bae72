import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, id, ts, updatedAt } from "./columns.ts";
import { events } from "./events.ts";
import { vendors } from "./vendors.ts";

export const webhooks = pgTable(
  "webhooks",
  {
    id: id(),
    vendorId: text("vendor_id")
      .notNull()
      .references(() => vendors.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    events: jsonb("events").$type<string[]>().notNull(),
    /** ACTIVE or DISABLED (CONTRACT 7). */
    status: text("status").notNull(),
    disabledReason: text("disabled_reason"),
    /**
     * The signing secret. It must be readable to sign (HMAC needs the key itself), so unlike API
     * keys it cannot be stored as a hash; it is never returned after registration or rotation.
     */
    secret: text("secret").notNull(),
    /** After rotate-secret, the old secret keeps signing until this instant (CONTRACT 7). */
    previousSecret: text("previous_secret"),
    previousSecretExpiresAt: ts("previous_secret_expires_at"),
    lastSuccessAt: ts("last_success_at"),
    /**
     * The circuit breaker (circuit-breaker.ts), kept here so every dispatcher agrees: failures in
     * a row, when the streak began, and until when no attempt is sent but one probe after.
     */
    consecutiveFailures: integer("consecutive_failures").notNull().default(0),
    failingSince: ts("failing_since"),
    circuitOpenUntil: ts("circuit_open_until"),
    /**
     * A dispatcher that found this endpoint's deliveries due and every slot held by others, and
     * until when it says so (a lease): meanwhile the others keep no reserve for it and refill only
     * up to half the cap, so a worker that joins gets slots (claim.repository.ts claimDue).
     */
    claimWaitingBy: text("claim_waiting_by"),
    claimWaitingUntil: ts("claim_waiting_until"),
    /**
     * When the shop's owners were mailed that this endpoint is failing (attempts.repository.ts,
     * CONTRACT 12); cleared, with a mail, when it recovers or the service disables it.
     */
    failingNotifiedAt: ts("failing_notified_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("webhooks_vendor_idx").on(t.vendorId, t.createdAt)],
);

/**
 * One event to one endpoint: PENDING until it succeeds or its attempts are exhausted (FAILED);
 * SKIPPED when the endpoint was DISABLED as the event happened (never sent; `recover` queues it).
 * At most one PENDING delivery per endpoint and event (webhooks.service.ts redeliver, recover).
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: id(),
    webhookId: text("webhook_id")
      .notNull()
      .references(() => webhooks.id, { onDelete: "cascade" }),
    vendorId: text("vendor_id").notNull(),
    eventId: text("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
    eventType: text("event_type").notNull(),
    /** PENDING, SUCCEEDED, FAILED or SKIPPED. */
    status: text("status").notNull(),
    /** Attempts made so far (recorded ones; at most 1 + the number of retry delays). */
    attemptCount: integer("attempt_count").notNull().default(0),
    /**
     * When the next attempt is due. A claim moves it forward by a lease longer than the timeout,
     * so no other dispatcher takes the row while its POST is in flight, and a dispatcher that
     * dies mid-attempt only delays the delivery until the lease ends.
     */
    nextAttemptAt: ts("next_attempt_at"),
    /** The token of the claim that owns the in-flight attempt; only that claim may record it. */
    claimToken: text("claim_token"),
    /**
     * The dispatcher holding the lease (each dispatcher names itself once at start), set with the
     * claim token and cleared with it: who is sending a delivery, or holds it in reserve.
     */
    leasedBy: text("leased_by"),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error"),
    /** Set on redelivery and recovery: the delivery this one repeats. */
    redeliveryOf: text("redelivery_of"),
    completedAt: ts("completed_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // Fair claims: each endpoint's due deliveries, its count in flight and its next due time, read
    // per endpoint. No index on next_attempt_at alone: see claim.repository.ts claimStatement.
    index("webhook_deliveries_endpoint_due_idx")
      .on(t.webhookId, t.nextAttemptAt)
      .where(sql`${t.status} = 'PENDING'`),
    // The leases (few: a dispatcher's attempts in flight and its reserve), so the ones that ended
    // unrecorded are found without reading the backlog (outbox.repository.ts requeueAbandoned).
    index("webhook_deliveries_leased_idx")
      .on(t.nextAttemptAt)
      .where(sql`${t.status} = 'PENDING' and ${t.claimToken} is not null`),
    index("webhook_deliveries_webhook_idx").on(t.webhookId, t.createdAt.desc(), t.id.desc()),
    index("webhook_deliveries_event_idx").on(t.eventId),
    // The delivery log filtered by status or by event type (GET …/deliveries?status=&event=),
    // newest first like the unfiltered page; by event id the event index above finds the few.
    index("webhook_deliveries_webhook_status_idx").on(t.webhookId, t.status, t.createdAt.desc(), t.id.desc()),
    index("webhook_deliveries_webhook_type_idx").on(
      t.webhookId,
      t.eventType,
      t.createdAt.desc(),
      t.id.desc(),
    ),
  ],
);

/** Every attempt of a delivery, as the delivery log shows it. */
export const webhookAttempts = pgTable(
  "webhook_attempts",
  {
    id: id(),
    deliveryId: text("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    attempt: integer("attempt").notNull(),
    statusCode: integer("status_code"),
    durationMs: integer("duration_ms").notNull(),
    error: text("error"),
    /** The first 1 KiB of the answer's body. */
    responseBody: text("response_body"),
    createdAt: createdAt(),
  },
  (t) => [index("webhook_attempts_delivery_idx").on(t.deliveryId, t.attempt)],
);
