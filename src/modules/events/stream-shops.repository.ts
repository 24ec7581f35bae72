import { sql } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { eventStreamShops } from "../../db/schema/index.ts";

/**
 * Marks the shops as streamed for `seconds` from now (the database's now), or longer when another
 * process leased them further: their new events NOTIFY until then (migrations/0027).
 */
export async function leaseStreamShops(
  db: Executor,
  vendorIds: readonly string[],
  seconds: number,
): Promise<void> {
  if (vendorIds.length === 0) return;
  const until = sql`now() + make_interval(secs => ${seconds})`;
  await db
    .insert(eventStreamShops)
    .values(vendorIds.map((vendorId) => ({ vendorId, until })))
    .onConflictDoUpdate({
      target: eventStreamShops.vendorId,
      set: { until: sql`greatest(${eventStreamShops.until}, excluded.until)` },
    });
}
