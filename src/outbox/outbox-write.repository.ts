// The statements of the outbox's write side (enqueue.ts says what it guarantees): an event's row
// and its deliveries written in one statement, as a whole (`insertEventWithDeliveries`) or as CTEs
// inside another module's statement (`eventCtes`, `eventRow`, `notifyWhenQueued`), and the NOTIFY
// that wakes the dispatchers.
import { type SQL, sql } from "drizzle-orm";
import type { Tx } from "../db/client.ts";
import { EVENTS_CHANNEL, type EventName } from "./event-types.ts";

/**
 * Writes one event, its fan-out and the NOTIFY in one statement (see `eventCtes`). `data` is the
 * payload's JSON text.
 */
export async function insertEventWithDeliveries(
  tx: Tx,
  event: {
    id: string;
    vendorId: string;
    type: EventName;
    data: string;
    at: string;
    targetWebhookId: string | null;
  },
): Promise<void> {
  const { id, at } = event;
  await tx.execute(
    sql`with ${eventCtes(
      sql`select ${id}::text as id, ${event.vendorId}::text as vendor_id, ${event.type}::text as type,
                 ${event.data}::jsonb as data, ${at}::timestamptz as created_at,
                 ${event.targetWebhookId}::text as target_webhook_id`,
    )}
    select ${notifyWhenQueued}`,
  );
}

/**
 * For a statement that makes a change and its events at once (a create that also creates a
 * customer, a status move): the CTEs `ev`, which inserts the events `source` selects, and `d`,
 * their deliveries; the statement's select list then carries `notifyWhenQueued`. `source` selects
 * id, vendor_id, type, data (jsonb), created_at and target_webhook_id, any number of rows (build
 * each with `eventRow`). It must be the only writer of events and deliveries in its statement.
 */
export function eventCtes(source: SQL): SQL {
  // Delivery ids are made in SQL (the endpoints are found there): a letter and 24 random hex
  // digits, a valid CUID2 shape (CONTRACT 1) like every other id. Due at once on the database's
  // clock, which dispatchers go by (db/database-clock.ts): a writer whose clock runs ahead would
  // otherwise queue its deliveries in the future.
  return sql`ev as (
      insert into events (id, vendor_id, type, data, created_at, dispatched_at, target_webhook_id)
      select s.id, s.vendor_id, s.type, s.data, s.created_at, s.created_at, s.target_webhook_id
      from (${source}) s
      returning id, vendor_id, type, created_at, target_webhook_id
    ), d as (
      insert into webhook_deliveries
        (id, webhook_id, vendor_id, event_id, event_type, status, next_attempt_at, created_at, updated_at)
      select 'd' || substr(replace(gen_random_uuid()::text, '-', ''), 1, 24), w.id, ev.vendor_id,
             ev.id, ev.type, x.status, case when x.status = 'PENDING' then least(ev.created_at, now()) end,
             ev.created_at, ev.created_at
      from ev join webhooks w on w.vendor_id = ev.vendor_id
      cross join lateral (
        select case when ev.target_webhook_id is not null or w.status = 'ACTIVE' then 'PENDING'
                    else 'SKIPPED' end as status
      ) x
      -- A webhook subscribes to the event by its name, or to every event with "*" (CONTRACT 12).
      where case when ev.target_webhook_id is null
              then w.events @> jsonb_build_array(ev.type) or w.events @> '["*"]'::jsonb
              else w.id = ev.target_webhook_id end
      returning event_id, status
    )`;
}

/** One event row for `eventCtes`: its payload (jsonb) and vendor are SQL over `from`'s rows. */
export function eventRow<T extends EventName>(
  type: T,
  row: { id: SQL | string; vendorId: SQL | string; data: SQL; createdAt: SQL | Date; from?: SQL },
): SQL {
  const at = row.createdAt instanceof Date ? sql`${row.createdAt.toISOString()}::timestamptz` : row.createdAt;
  return sql`select ${row.id}::text as id, ${row.vendorId}::text as vendor_id, ${type}::text as type,
                    ${row.data} as data, ${at} as created_at, null::text as target_webhook_id
             ${row.from ?? sql``}`;
}

/**
 * A select-list item that NOTIFYs the dispatchers once (delivered at commit), and only when the
 * CTE `rows` returned a row; `payload` may read that first row as `q`.
 */
export function notifyWhenAny(rows: string, payload: SQL = sql`''`): SQL {
  return sql`(select pg_notify(${EVENTS_CHANNEL}, ${payload}) from (select * from ${sql.raw(rows)} limit 1) q) as notified`;
}

/**
 * The select-list item that NOTIFYs the dispatchers once, and only when a delivery was queued to
 * send (a SKIPPED one, kept for a DISABLED endpoint, gives them nothing to do).
 */
export const notifyWhenQueued = sql`(select pg_notify(${EVENTS_CHANNEL}, q.event_id)
  from (select d.event_id from d where d.status = 'PENDING' limit 1) q) as notified`;

/** NOTIFYs the dispatchers (delivered at commit). */
export async function notifyEventsChannel(tx: Tx): Promise<void> {
  await tx.execute(sql`select pg_notify(${EVENTS_CHANNEL}, '')`);
}
