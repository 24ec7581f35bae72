import { type Static, Type } from "@sinclair/typebox";
import {
  Id,
  NextCursor,
  NullableString,
  PageQuery,
  StringEnum,
  Timestamp,
} from "../../http/common-schemas.ts";
import { namedObject } from "../../http/schema-names.ts";
import { eventTypes } from "../events/catalog.ts";

export const MAX_WEBHOOKS_PER_VENDOR = 5;
export const webhookStatuses = ["ACTIVE", "DISABLED"] as const;
export type WebhookStatus = (typeof webhookStatuses)[number];

/** Subscribes to every event type, those of today and any added later (CONTRACT 12). */
export const ALL_EVENTS = "*";
const EventName = StringEnum([...eventTypes, ALL_EVENTS], {
  description: "An event name, or `*` for every event type (present and future)",
});
const Events = Type.Array(EventName, {
  minItems: 1,
  maxItems: eventTypes.length,
  uniqueItems: true,
  description:
    'The events this webhook receives: known names, at least one, no duplicates; or `["*"]` alone for every event type, present and future',
});
const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: "Absolute http(s) URL that receives the POSTs (https only in production)",
  examples: ["https://example.com/hooks/vendor-api"],
});
const Status = StringEnum(webhookStatuses, {
  description: "ACTIVE receives deliveries; DISABLED receives none",
});

export const WebhookSchema = namedObject(
  "Webhook",
  {
    id: Id,
    url: Type.String(),
    events: Type.Array(Type.String()),
    status: Status,
    disabledReason: NullableString({
      description: "Why the service disabled it (410 Gone, sustained failure)",
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { description: "A webhook endpoint (its secret is never shown after registration)" },
);

export const WebhookWithSecret = namedObject(
  "WebhookWithSecret",
  {
    ...WebhookSchema.properties,
    secret: Type.String({ description: "The signing secret: shown only in this response" }),
  },
  { description: "The registered webhook with its signing secret, shown this once" },
);

export const CreateWebhookBody = namedObject(
  "CreateWebhook",
  { url: Url, events: Events },
  { additionalProperties: false },
);
export type CreateWebhookBody = Static<typeof CreateWebhookBody>;

export const UpdateWebhookBody = namedObject(
  "UpdateWebhook",
  { url: Type.Optional(Url), events: Type.Optional(Events), status: Type.Optional(Status) },
  { additionalProperties: false, description: "Fields left out are unchanged (PATCH and PUT alike)" },
);
export type UpdateWebhookBody = Static<typeof UpdateWebhookBody>;

export const WebhookListResponse = namedObject("WebhookList", {
  webhooks: Type.Array(WebhookSchema, { description: "Oldest first" }),
  nextCursor: NextCursor,
});
export const ListWebhooksQuery = Type.Object({ ...PageQuery });
export type ListWebhooksQuery = Static<typeof ListWebhooksQuery>;

export const RotateSecretBody = namedObject(
  "RotateSecret",
  {
    overlapSeconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 7 * 86_400,
        default: 86_400,
        description: "How long the old secret keeps signing (default 86400)",
      }),
    ),
  },
  { additionalProperties: false },
);
export type RotateSecretBody = Static<typeof RotateSecretBody>;

export const RotateSecretResponse = namedObject("RotatedSecret", {
  id: Id,
  secret: Type.String({ description: "The new signing secret: shown only in this response" }),
  previousSecretExpiresAt: Type.Union([Timestamp, Type.Null()], {
    description: "Until when the old secret still signs deliveries",
  }),
});

export const deliveryStatuses = ["PENDING", "SUCCEEDED", "FAILED", "SKIPPED"] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];

export const AttemptSchema = namedObject("DeliveryAttempt", {
  attempt: Type.Integer({ description: "1 for the first attempt" }),
  createdAt: Timestamp,
  statusCode: Type.Union([Type.Integer(), Type.Null()], {
    description: "The receiver's status, null on no answer",
  }),
  durationMs: Type.Integer(),
  error: NullableString({ description: "Why it failed: HTTP status, timeout, connection error" }),
  responseBody: NullableString({ description: "The first 1 KiB of the answer" }),
});

export const DeliverySchema = namedObject("Delivery", {
  id: Id,
  webhookId: Id,
  eventId: Id,
  event: Type.String(),
  status: StringEnum(deliveryStatuses, {
    description:
      "PENDING until it succeeds or its attempts are exhausted (FAILED); SKIPPED: the endpoint was disabled when the event happened, so it was kept unsent for recover",
  }),
  attemptCount: Type.Integer(),
  nextAttemptAt: Type.Union([Timestamp, Type.Null()]),
  redeliveryOf: Type.Union([Id, Type.Null()]),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  attempts: Type.Array(AttemptSchema, { description: "Every attempt, oldest first" }),
});

export const DeliveryListResponse = namedObject("DeliveryList", {
  deliveries: Type.Array(DeliverySchema),
  nextCursor: NextCursor,
});
export const ListDeliveriesQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(StringEnum(deliveryStatuses, { description: "Only deliveries in this status" })),
  event: Type.Optional(
    Type.String({
      maxLength: 100,
      description:
        "Only deliveries of this event type (a name of the event catalogue, `webhook.test` included)",
    }),
  ),
  eventId: Type.Optional(
    Type.String({ maxLength: 64, description: "Only deliveries of this event (an event id)" }),
  ),
});
export type ListDeliveriesQuery = Static<typeof ListDeliveriesQuery>;

export const DeliveryParams = Type.Object({ id: Id, deliveryId: Id });

export const RecoverBody = namedObject(
  "Recover",
  {
    since: Type.String({
      format: "date-time",
      description: "Re-queue failed and skipped deliveries created at or after this",
    }),
    until: Type.Optional(
      Type.String({ format: "date-time", description: "… and before this (default now)" }),
    ),
  },
  { additionalProperties: false },
);
export type RecoverBody = Static<typeof RecoverBody>;

export const QueuedDelivery = namedObject("QueuedDelivery", { deliveryId: Id, eventId: Id });
export const RecoverResponse = namedObject("RecoverResult", {
  count: Type.Integer({ description: "Deliveries re-queued" }),
});
