// The one way to emit an event (STYLE principle 4): called inside the transaction that makes the
// change, so the event commits or rolls back with it. It also fans the event out there, in the
// same statement: one PENDING delivery per ACTIVE endpoint of the vendor subscribed to the type
// (`webhook.test`: its one target), and a NOTIFY only when a delivery was queued. An event nobody
// subscribes to thus costs the dispatchers nothing; the NOTIFY is delivered only on commit and
// wakes them at once, and they also poll, so a lost notification delays but never loses.
import { sql } from "drizzle-orm";
import type { Tx } from "../db/client.ts";
import { newId } from "../lib/ids.ts";

export const EVENTS_CHANNEL = "vendor_api_events";

/**
 * Event name → payload type. Empty here: the event catalog (src/modules/events/catalog.ts) fills it
 * in by declaration merging, so enqueueEvent accepts exactly the catalog's events and payloads
 * while this platform layer never imports the modules.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled in by declaration merging
export interface EventPayloadRegistry {}

export type EventName = keyof EventPayloadRegistry & string;

export type NewEvent = {
  [T in EventName]: {
    vendorId: string;
    type: T;
    /** Rendered by the resource's presenter now, not rebuilt at delivery time. */
    data: EventPayloadRegistry[T];
    createdAt: Date;
    /** Only for `webhook.test`: the one endpoint it goes to. */
    targetWebhookId?: string | undefined;
  };
}[EventName];

export async function enqueueEvent(tx: Tx, event: NewEvent): Promise<string> {
  const id = newId();
  const at = event.createdAt.toISOString();
  const target = event.targetWebhookId ?? null;
  // Delivery ids are made in SQL (the endpoints are found there): a letter and 24 random hex
  // digits, a valid CUID2 shape (CONTRACT 1) like every other id.
  await tx.execute(
    sql`with e as (
          insert into events (id, vendor_id, type, data, created_at, dispatched_at, target_webhook_id)
          values (${id}, ${event.vendorId}, ${event.type}, ${JSON.stringify(event.data)}::jsonb,
                  ${at}::timestamptz, ${at}::timestamptz, ${target})
          returning id
        ), d as (
          insert into webhook_deliveries
            (id, webhook_id, vendor_id, event_id, event_type, status, next_attempt_at, created_at, updated_at)
          select 'd' || substr(replace(gen_random_uuid()::text, '-', ''), 1, 24), w.id, ${event.vendorId},
                 e.id, ${event.type}, 'PENDING', ${at}::timestamptz, ${at}::timestamptz, ${at}::timestamptz
          from e join webhooks w on w.vendor_id = ${event.vendorId}
          where case when ${target}::text is null
                  then w.status = 'ACTIVE' and w.events @> jsonb_build_array(${event.type}::text)
                  else w.id = ${target}::text end
          returning 1
        )
        select pg_notify(${EVENTS_CHANNEL}, ${id}) from (select 1 from d limit 1) queued`,
  );
  return id;
}

/** Wakes dispatchers after commit when deliveries were queued directly (redeliver, recover, test). */
export async function notifyDispatchers(tx: Tx): Promise<void> {
  await tx.execute(sql`select pg_notify(${EVENTS_CHANNEL}, '')`);
}
