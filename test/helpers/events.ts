import { sql } from "drizzle-orm";
import { queryRows } from "../../src/db/client.ts";
import type { OrderSchema } from "../../src/modules/orders/orders.schemas.ts";
import type { TestApp } from "./test-app.ts";

/** Outbox events whose payload is about resource `id`, oldest first. */
export async function eventsAbout(t: TestApp, id: string) {
  return queryRows<{ type: string; data: Record<string, unknown> }>(
    t.ctx.db,
    sql`select type, data from events where data->>'id' = ${id} order by created_at, id`,
  );
}

/** A complete order.created payload for tests that write events directly (enqueueEvent is typed). */
export function sampleOrderPayload(id: string, at = new Date()): OrderSchema {
  const createdAt = at.toISOString();
  return {
    id,
    type: "BRIDAL_DRESS",
    status: "ORDERED",
    model: "Aurora",
    size: "38",
    color: "Ivory",
    description: null,
    specialRequests: null,
    customerId: "tz4a98xxat96iws9zmbrgj3a",
    customer: { name: "Maria Silva", email: "maria@example.com" },
    updates: [{ status: "ORDERED", message: "Order created", imageUrl: null, createdAt }],
    createdAt,
    updatedAt: createdAt,
  };
}

/**
 * Waits until the dispatcher has nothing left to do for the vendor: no delivery PENDING (every
 * event has its deliveries from the statement that wrote it). After that no further request can reach a receiver, so a test can count what
 * arrived ("exactly 4 attempts", "nothing for a DISABLED endpoint") without sleeping and hoping.
 */
export async function deliveriesSettled(t: TestApp, vendorId: string, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await queryRows<{ busy: boolean }>(
      t.ctx.db,
      sql`select exists (select 1 from webhook_deliveries where vendor_id = ${vendorId} and status = 'PENDING')
            as busy`,
    );
    if (!row?.busy) return;
    if (Date.now() > until) throw new Error("deliveries still pending");
    await new Promise((r) => setTimeout(r, 25));
  }
}
