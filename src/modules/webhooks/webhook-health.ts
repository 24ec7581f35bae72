// What a vendor checks about a webhook at a glance (the dashboard's list and Integrations page):
// when it last succeeded and how many deliveries failed since, and the payload a delivery carried.
import type { ServiceContext } from "../../context.ts";
import { listEventPayloadRows, listWebhookHealthRows } from "./webhooks.repository.ts";

export interface WebhookHealth {
  lastSuccessAt: string | null;
  /**
   * Attempts in a row the endpoint failed (no answer, 5xx or 429) since its last success: the
   * dispatcher's own count (webhooks.consecutive_failures, what opens the circuit breaker), so
   * the first failed attempt shows, not only deliveries whose retries ran out.
   */
  failuresInARow: number;
  /** Deliveries given up (attempts exhausted, FAILED) since the last success. */
  givenUp: number;
  /** Deliveries still being retried. */
  retrying: number;
}

/** Whether a webhook is failing as a vendor reads it: a failure since its last success. */
export const isFailing = (health: WebhookHealth | undefined): boolean =>
  (health?.failuresInARow ?? 0) > 0 || (health?.givenUp ?? 0) > 0;

/** Webhook id → its health, for every webhook of the vendor (one grouped query). */
export async function webhookHealth(
  ctx: ServiceContext,
  vendorId: string,
): Promise<Map<string, WebhookHealth>> {
  const rows = await listWebhookHealthRows(ctx.db, vendorId);
  return new Map(
    rows.map((r) => [
      r.id,
      {
        lastSuccessAt: r.lastSuccessAt,
        failuresInARow: Number(r.streak),
        givenUp: Number(r.givenUp),
        retrying: Number(r.retrying),
      },
    ]),
  );
}

/** Event id → the event's payload (`data`) for the vendor's own events among `eventIds`. */
export async function eventPayloads(
  ctx: ServiceContext,
  vendorId: string,
  eventIds: string[],
): Promise<Map<string, unknown>> {
  if (eventIds.length === 0) return new Map();
  const rows = await listEventPayloadRows(ctx.db, vendorId, eventIds);
  return new Map(rows.map((r) => [r.id, typeof r.data === "string" ? JSON.parse(r.data) : r.data]));
}
