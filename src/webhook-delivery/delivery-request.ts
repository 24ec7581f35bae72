// The request a delivery sends (CONTRACT 7), built in this one place: the body
// `{ id, event, data, timestamp }` and its headers, signed with the current secret and, during a
// rotation's overlap, the previous one too. deliver.ts adds only transport headers
// (content-type, content-length, user-agent).
import { signDelivery } from "./signing.ts";

export interface DeliveryToSend {
  /** The delivery id: the same on every retry, for de-duplication. */
  deliveryId: string;
  eventId: string;
  eventType: string;
  data: Record<string, unknown>;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
}

export interface DeliveryRequest {
  headers: Record<string, string>;
  body: string;
}

export function buildDeliveryRequest(delivery: DeliveryToSend, sentAt: Date): DeliveryRequest {
  const body = JSON.stringify({
    id: delivery.eventId,
    event: delivery.eventType,
    data: delivery.data,
    timestamp: sentAt.toISOString(),
  });
  const previous =
    delivery.previousSecret && delivery.previousSecretExpiresAt && delivery.previousSecretExpiresAt > sentAt
      ? delivery.previousSecret
      : undefined;
  const signed = signDelivery(
    { current: delivery.secret, previous },
    delivery.eventId,
    Math.floor(sentAt.getTime() / 1000),
    body,
  );
  return {
    headers: { ...signed, "x-service-event": delivery.eventType, "x-service-delivery": delivery.deliveryId },
    body,
  };
}
