import { sql } from "drizzle-orm";
import type { Db } from "../../src/db/client.ts";
import { queryRows } from "../../src/db/query-rows.ts";
import { newId } from "../../src/lib/ids.ts";
import type { OrderSchema } from "../../src/modules/orders/orders.schemas.ts";
import { notifyDispatchers } from "../../src/outbox/enqueue.ts";
import { eventCtes } from "../../src/outbox/outbox-write.repository.ts";
import type { TestApp } from "./test-app.ts";

/** Outbox events whose payload is about resource `id`, oldest first. */
export async function eventsAbout(t: TestApp, id: string) {
  return queryRows<{ type: string; data: Record<string, unknown> }>(
    t.ctx.db,
    sql`select type, data from events where data->>'id' = ${id} order by created_at, id`,
  );
}

/**
 * Queues one `type` event per payload for a vendor in one statement, as a burst of writes would:
 * fanned out to the vendor's endpoints by the outbox's own statement (eventCtes, the one
 * enqueueEvent's callers use on hot paths), with the dispatchers' NOTIFY on commit. For tests that
 * need a backlog with payloads the event catalog does not type (`{ id: "queued-1" }`).
 */
export async function queueEvents(
  db: Db,
  vendorId: string,
  type: string,
  payloads: Array<Record<string, unknown>>,
  createdAt = new Date(),
): Promise<void> {
  const rows = payloads.map((data) => ({
    id: newId(),
    vendor_id: vendorId,
    type,
    data,
    created_at: createdAt.toISOString(),
  }));
  await db.transaction(async (tx) => {
    await tx.execute(
      sql`with ${eventCtes(
        sql`select id, vendor_id, type, data, created_at, null::text as target_webhook_id
            from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
              as x(id text, vendor_id text, type text, data jsonb, created_at timestamptz)`,
      )} select count(*) from d`,
    );
    await notifyDispatchers(tx);
  });
}

/** A complete order.created payload for tests that write events directly (enqueueEvent is typed). */
export function sampleOrderPayload(id: string, at = new Date()): OrderSchema {
  const createdAt = at.toISOString();
  return {
    id,
    number: 1001,
    type: "BRIDAL_DRESS",
    status: "ORDERED",
    model: "Aurora",
    size: "38",
    color: "Ivory",
    description: null,
    specialRequests: null,
    dueDate: null,
    pickupDate: null,
    dueBackDate: null,
    customerId: "tz4a98xxat96iws9zmbrgj3a",
    customer: { name: "Maria Silva", email: "maria@example.com" },
    externalId: null,
    metadata: {},
    updates: [{ status: "ORDERED", message: "Order created", imageUrl: null, photos: [], createdAt }],
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
