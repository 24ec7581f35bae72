// The statements the metrics registry (registry.ts) runs when it is scraped.
import { sql } from "drizzle-orm";
import { type Executor, queryRows } from "../db/client.ts";

/** Events not yet fanned out and deliveries waiting to be sent, counted now. */
export async function countOutboxBacklog(db: Executor): Promise<{ events: number; deliveries: number }> {
  const [row] = await queryRows<{ events: number | string; deliveries: number | string }>(
    db,
    sql`select (select count(*) from events where dispatched_at is null) as events,
                   (select count(*) from webhook_deliveries where status = 'PENDING') as deliveries`,
  );
  return { events: Number(row?.events ?? 0), deliveries: Number(row?.deliveries ?? 0) };
}
