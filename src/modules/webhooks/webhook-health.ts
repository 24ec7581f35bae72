// What a vendor checks about a webhook at a glance (the dashboard's list and Integrations page):
// when it last succeeded and how many deliveries failed since, and the payload a delivery carried.
import { sql } from "drizzle-orm";
import type { ServiceContext } from "../../context.ts";
import { queryRows } from "../../db/client.ts";
import { isoTimestamp } from "../../db/sql.ts";

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
  const rows = await queryRows<{
    id: string;
    lastSuccessAt: string | null;
    streak: number;
    givenUp: number;
    retrying: number;
  }>(
    ctx.db,
    sql`select w.id as "id", ${isoTimestamp(sql`w.last_success_at`)} as "lastSuccessAt",
          w.consecutive_failures as "streak",
          count(d.id) filter (where d.status = 'FAILED'
            and d.created_at > coalesce(w.last_success_at, 'epoch'::timestamptz))::int as "givenUp",
          count(d.id) filter (where d.status = 'PENDING' and d.attempt_count > 0)::int as "retrying"
        from webhooks w left join webhook_deliveries d on d.webhook_id = w.id and d.vendor_id = w.vendor_id
        where w.vendor_id = ${vendorId}
        group by w.id, w.last_success_at, w.consecutive_failures`,
  );
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
  const rows = await queryRows<{ id: string; data: unknown }>(
    ctx.db,
    sql`select id as "id", data as "data" from events
        where vendor_id = ${vendorId} and id in (${sql.join(
          eventIds.map((id) => sql`${id}`),
          sql`, `,
        )})`,
  );
  return new Map(rows.map((r) => [r.id, typeof r.data === "string" ? JSON.parse(r.data) : r.data]));
}
