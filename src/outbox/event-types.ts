// What an event is (the payload registry the event catalog fills in) and where dispatchers are
// woken: shared by the write side's functions (enqueue.ts) and its statements
// (outbox-write.repository.ts), which must not import each other in a circle.
export const EVENTS_CHANNEL = "vendor_api_events";

/** How long events (and with them their deliveries and attempts) are kept: CONTRACT 7's 30 days. */
export const EVENT_RETENTION_MS = 30 * 86_400_000;

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
