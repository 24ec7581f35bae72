// The statements the metrics registry (registry.ts) runs when it is scraped.
import { sql } from "drizzle-orm";
import type { Executor } from "../db/client.ts";
import { queryRows } from "../db/query-rows.ts";

/** Events not yet fanned out and deliveries waiting to be sent, counted now. */
export async function countOutboxBacklog(db: Executor): Promise<{ events: number; deliveries: number }> {
  const [row] = await queryRows<{ events: number | string; deliveries: number | string }>(
    db,
    sql`select (select count(*) from events where dispatched_at is null) as events,
                   (select count(*) from webhook_deliveries where status = 'PENDING') as deliveries`,
  );
  return { events: Number(row?.events ?? 0), deliveries: Number(row?.deliveries ?? 0) };
}

/** Mails held by shops' mail budgets now (src/mail/budget.ts), by reason. */
export async function countHeldMail(db: Executor): Promise<Array<{ reason: string; count: number }>> {
  const rows = await queryRows<{ reason: string; count: number | string }>(
    db,
    sql`select held_reason as reason, count(*) as count from mails
        where status = 'HELD' group by held_reason`,
  );
  return rows.map((r) => ({ reason: r.reason, count: Number(r.count) }));
}
