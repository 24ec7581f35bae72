// The one way to emit an event (STYLE principle 4): called inside the transaction that makes the
// change, so the event commits or rolls back with it. The NOTIFY is delivered only on commit and
// wakes dispatchers at once; they also poll, so a lost notification delays but never loses.
import { sql } from "drizzle-orm";
import type { Tx } from "../db/client.ts";
import { events } from "../db/schema/index.ts";
import { newId } from "../lib/ids.ts";
import type { AnyEventType } from "./catalog.ts";

export const EVENTS_CHANNEL = "vendor_api_events";

export interface NewEvent {
  vendorId: string;
  type: AnyEventType;
  /** Rendered by the resource's presenter now, not rebuilt at delivery time. */
  data: Record<string, unknown>;
  createdAt: Date;
  /** Only for `webhook.test`: the one endpoint it goes to. */
  targetWebhookId?: string | undefined;
}

export async function enqueueEvent(tx: Tx, event: NewEvent): Promise<string> {
  const id = newId();
  await tx.insert(events).values({ id, ...event });
  await tx.execute(sql`select pg_notify(${EVENTS_CHANNEL}, ${id})`);
  return id;
}

/** Wakes dispatchers after commit when deliveries were queued directly (redeliver, recover, test). */
export async function notifyDispatchers(tx: Tx): Promise<void> {
  await tx.execute(sql`select pg_notify(${EVENTS_CHANNEL}, '')`);
}
