// The event catalog (spec 6, CONTRACT 7): one entry per event holding the read scope a subscriber
// needs, a description and the TypeBox schema of its payload. Everything else derives from it: the
// payload types enqueueEvent accepts (a wrong payload does not compile), the names a webhook may
// subscribe to, the events API's filter and the OpenAPI `webhooks` section.

import { type Static, type TSchema, Type } from "@sinclair/typebox";
import type { Scope } from "../../auth/scopes.ts";
import { Id } from "../../http/common-schemas.ts";
import { namedObject } from "../../http/schema-names.ts";
import { AppointmentSchema } from "../appointments/appointments.schemas.ts";
import { CustomerSchema } from "../customers/customers.schemas.ts";
import { InquirySchema } from "../inquiries/inquiries.schemas.ts";
import { OrderSchema, OrderStatusChangedSchema, OrderStatusSchema } from "../orders/orders.schemas.ts";

/** The payload of `webhook.test`, which belongs to no resource. */
export const WebhookTestPayloadSchema = namedObject(
  "WebhookTestPayload",
  {
    webhookId: Id,
    message: Type.String({ examples: ["A test delivery from vendor-api"] }),
  },
  { description: "A test delivery: the webhook it was sent to and a fixed message" },
);

/** The payload of `customer.deleted`: nothing personal, only the id that went (and where to). */
export const CustomerDeletedPayloadSchema = Type.Object(
  {
    id: Id,
    mergedInto: Type.Optional(
      Type.String({
        description: "Set when the customer was merged: the customer that holds her records now",
      }),
    ),
  },
  { description: "The id of the erased or merged customer; nothing personal", additionalProperties: false },
);

/** The payload of `order.at_risk` (CONTRACT 12, Dates of an order): the order and the rule it misses. */
export const OrderAtRiskPayloadSchema = Type.Object(
  {
    order: OrderSchema,
    rule: Type.Object(
      {
        status: OrderStatusSchema,
        daysBefore: Type.Integer({ minimum: 1, description: "Days before the customer's wedding" }),
      },
      {
        description: "The shop's rule: the order should be in `status` (or further) `daysBefore` the wedding",
      },
    ),
  },
  { description: "An order at risk of missing the customer's wedding, and the rule it misses" },
);

/** The payload of `order.overdue`: the rental that was not back by its due-back date. */
export const OrderOverduePayloadSchema = Type.Object(
  { order: OrderSchema },
  { description: "A RENTAL order past its dueBackDate and not RETURNED" },
);

/** The payload of `appointment.deleted`: the appointment is gone, its id is what a mirror needs. */
export const AppointmentDeletedPayloadSchema = Type.Object(
  { id: Id },
  { description: "The id of the deleted appointment", additionalProperties: false },
);

interface CatalogEntry {
  /** The read scope an OAuth subscriber needs besides webhooks:write; null: not subscribable. */
  scope: Scope | null;
  description: string;
  payload: TSchema;
}

export const eventCatalog = {
  "order.created": {
    scope: "orders:read",
    description: "A new order was created. `data` is the order, as `GET /api/vendor/orders/{id}` answers it.",
    payload: OrderSchema,
  },
  "order.updated": {
    scope: "orders:read",
    description:
      "An order's details (model, size, color, description, special requests, dates) changed. `data` is the order after the change.",
    payload: OrderSchema,
  },
  "order.status_changed": {
    scope: "orders:read",
    description:
      "An order moved to another status. `data` names the order, its new and previous status, and the message and photo sent with the move.",
    payload: OrderStatusChangedSchema,
  },
  "order.at_risk": {
    scope: "orders:read",
    description:
      "An order crossed one of the shop's wedding-date risk rules: the customer's wedding is `rule.daysBefore` days away or less and the order has not reached `rule.status` (by default FITTING_READY 56 days and READY_FOR_PICKUP 14 days before). Once per order and rule. `data` is `{ order, rule }`.",
    payload: OrderAtRiskPayloadSchema,
  },
  "order.overdue": {
    scope: "orders:read",
    description:
      "A RENTAL order passed its `dueBackDate` (in the shop's time zone) and is not RETURNED (nor COMPLETED or CANCELLED). Once per order. `data` is `{ order }`.",
    payload: OrderOverduePayloadSchema,
  },
  "customer.created": {
    scope: "customers:read",
    description:
      "A new customer was created (directly, or by a new order with a new e-mail). `data` is the customer.",
    payload: CustomerSchema,
  },
  "customer.updated": {
    scope: "customers:read",
    description: "A customer's details changed. `data` is the customer after the change.",
    payload: CustomerSchema,
  },
  "customer.deleted": {
    scope: "customers:read",
    description:
      "A customer was erased on their request: their appointments and inquiries went with them, their orders stay with `customerId: null` (and a new `updatedAt`). `data` holds only the customer's id. Or the customer was merged into another: `data.mergedInto` names it, and her orders, appointments and inquiries are that customer's now (with a new `updatedAt`).",
    payload: CustomerDeletedPayloadSchema,
  },
  "appointment.created": {
    scope: "appointments:read",
    description: "An appointment was booked. `data` is the appointment.",
    payload: AppointmentSchema,
  },
  "appointment.updated": {
    scope: "appointments:read",
    description:
      "An appointment's date, duration, type, notes, customer or order changed. `data` is the appointment after the change.",
    payload: AppointmentSchema,
  },
  "appointment.confirmed": {
    scope: "appointments:read",
    description: "An appointment was confirmed. `data` is the appointment.",
    payload: AppointmentSchema,
  },
  "appointment.cancelled": {
    scope: "appointments:read",
    description: "An appointment was cancelled. `data` is the appointment.",
    payload: AppointmentSchema,
  },
  "appointment.completed": {
    scope: "appointments:read",
    description: "An appointment took place (moved to COMPLETED). `data` is the appointment.",
    payload: AppointmentSchema,
  },
  "appointment.deleted": {
    scope: "appointments:read",
    description:
      "An appointment was deleted (`DELETE /api/vendor/appointments/{id}`), or went with its customer's erasure or merge. `data` holds only its id; a sync list with `includeDeleted=true` shows it as a tombstone for 30 days.",
    payload: AppointmentDeletedPayloadSchema,
  },
  "inquiry.received": {
    scope: "inquiries:read",
    description: "Someone sent the shop a message through its public inquiry form. `data` is the inquiry.",
    payload: InquirySchema,
  },
  "webhook.test": {
    scope: null,
    description:
      "Sent by `POST /api/vendor/webhooks/{id}/test` to that one webhook only, even while it is disabled, so you can check your receiver.",
    payload: WebhookTestPayloadSchema,
  },
} as const satisfies Record<string, CatalogEntry>;

/** Every event name, `webhook.test` included. */
export type AnyEventType = keyof typeof eventCatalog;
/** The events a webhook may subscribe to: all but `webhook.test`, which goes to one endpoint only. */
export type EventType = Exclude<AnyEventType, "webhook.test">;
export const allEventTypes = Object.keys(eventCatalog) as AnyEventType[];
export const eventTypes = allEventTypes.filter((t): t is EventType => t !== "webhook.test");

/** The payload type of each event, from its schema. */
export type EventPayloads = { [T in AnyEventType]: Static<(typeof eventCatalog)[T]["payload"]> };

export function isEventType(value: string): value is EventType {
  return Object.hasOwn(eventCatalog, value) && value !== "webhook.test";
}

/** The read scope a subscriber of `type` needs. */
export function eventScope(type: EventType): Scope {
  return eventCatalog[type].scope;
}

// enqueueEvent lives in the delivery platform, which cannot import the modules; this tells it
// the payload type of each event name (declaration merging, as Fastify's own type registries do).
declare module "../../outbox/event-types.ts" {
  interface EventPayloadRegistry extends EventPayloads {}
}
