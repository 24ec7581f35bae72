// The outbox's write side: what services call (the worker side, which empties it, is
// src/webhook-delivery/; the statements are in outbox-write.repository.ts). The one way to emit an
// event (STYLE principle 4): `enqueueEvent` called inside the transaction that makes the change,
// or `eventCtes` inside the very statement that makes it (a hot write path in one round trip), so
// the event commits or rolls back with it. It also fans the event out there, in the same
// statement: one PENDING delivery per ACTIVE endpoint of the vendor subscribed to the type
// (`webhook.test`: its one target), one SKIPPED delivery per DISABLED one (kept for `recover` once
// it is enabled again; the dispatchers never look at it), and a NOTIFY only when a delivery was
// queued to send. An event nobody subscribes to thus costs the dispatchers nothing; the NOTIFY is
// delivered only on commit and wakes them at once, and they also poll, so a lost notification
// delays but never loses.
import type { Tx } from "../db/client.ts";
import { newId } from "../lib/ids.ts";
import type { NewEvent } from "./event-types.ts";
import { insertEventWithDeliveries, notifyEventsChannel } from "./outbox-write.repository.ts";

export async function enqueueEvent(tx: Tx, event: NewEvent): Promise<string> {
  const id = newId();
  await insertEventWithDeliveries(tx, {
    id,
    vendorId: event.vendorId,
    type: event.type,
    data: JSON.stringify(event.data),
    at: event.createdAt.toISOString(),
    targetWebhookId: event.targetWebhookId ?? null,
  });
  return id;
}

/** Wakes dispatchers after commit when deliveries were queued directly (redeliver, recover, test). */
export async function notifyDispatchers(tx: Tx): Promise<void> {
  await notifyEventsChannel(tx);
}
