// The events vendors can subscribe to (spec 6), with the read scope a subscriber needs (CONTRACT 7).
import type { Scope } from "../auth/scopes.ts";

export const eventCatalog = {
  "order.created": { scope: "orders:read", description: "A new order was created; data is the order" },
  "order.status_changed": {
    scope: "orders:read",
    description:
      "An order's status changed; data is { id, status, previousStatus, customerId, updatedAt, message, imageUrl }",
  },
  "inquiry.received": {
    scope: "inquiries:read",
    description: "A new inquiry was received; data is the inquiry",
  },
  "appointment.confirmed": {
    scope: "appointments:read",
    description: "An appointment was confirmed; data is the appointment",
  },
  "appointment.cancelled": {
    scope: "appointments:read",
    description: "An appointment was cancelled; data is the appointment",
  },
  "customer.created": {
    scope: "customers:read",
    description: "A new customer was created; data is the customer",
  },
} as const satisfies Record<string, { scope: Scope; description: string }>;

export type EventType = keyof typeof eventCatalog;
/** `webhook.test` is sent only to the one endpoint being tested, never fanned out. */
export type AnyEventType = EventType | "webhook.test";
export const eventTypes = Object.keys(eventCatalog) as EventType[];

export function isEventType(value: string): value is EventType {
  return Object.hasOwn(eventCatalog, value);
}
