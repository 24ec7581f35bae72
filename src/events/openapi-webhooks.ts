// The OpenAPI 3.1 `webhooks` section (CONTRACT 7): one entry per event, describing the POST a
// receiver gets, its headers and its body. Payload schemas come from the same TypeBox schemas as
// the API responses where a module defines them.
import { type TSchema, Type } from "@sinclair/typebox";
import { Id, NullableString, Timestamp } from "../http/common-schemas.ts";
import { OrderSchema, OrderStatusSchema } from "../modules/orders/orders.schemas.ts";
import { type AnyEventType, eventCatalog, eventTypes } from "./catalog.ts";

const OrderStatusChanged = Type.Object({
  id: Id,
  status: OrderStatusSchema,
  previousStatus: OrderStatusSchema,
  customerId: Id,
  updatedAt: Timestamp,
  message: NullableString(),
  imageUrl: NullableString(),
});

const payloads: Partial<Record<AnyEventType, TSchema>> = {
  "order.created": OrderSchema,
  "order.status_changed": OrderStatusChanged,
  "webhook.test": Type.Object({ webhookId: Id, message: Type.String() }),
};

const header = (name: string, description: string) => ({
  name,
  in: "header",
  required: true,
  description,
  schema: { type: "string" },
});

const headers = [
  header(
    "X-Service-Signature",
    "Lowercase hex HMAC-SHA256 of the exact body bytes, keyed with the secret's UTF-8 bytes",
  ),
  header("X-Service-Event", "The event name"),
  header("X-Service-Delivery", "The delivery id, the same on every retry: de-duplicate on it"),
  header("webhook-id", "Standard Webhooks message id (the event id)"),
  header("webhook-timestamp", "Standard Webhooks: Unix seconds of this attempt; reject old ones"),
  header(
    "webhook-signature",
    'Standard Webhooks: space-separated "v1,<base64 HMAC-SHA256 of id.timestamp.body>"; two during a secret rotation',
  ),
];

export function webhooksDocument(): Record<string, never> {
  const names: AnyEventType[] = [...eventTypes, "webhook.test"];
  // The swagger plugin's OpenAPI types want its own object types; this is plain JSON Schema.
  return Object.fromEntries(
    names.map((name) => {
      const description =
        name === "webhook.test" ? "Sent by POST /webhooks/{id}/test" : eventCatalog[name].description;
      const data = payloads[name] ?? Type.Object({}, { additionalProperties: true, description });
      return [
        name,
        {
          post: {
            summary: name,
            description,
            parameters: headers,
            requestBody: {
              required: true,
              content: {
                "application/json": {
                  schema: Type.Object({
                    id: Id,
                    event: Type.Literal(name),
                    data,
                    timestamp: Timestamp,
                  }),
                },
              },
            },
            responses: {
              "2XX": {
                description:
                  "Received. Any other answer (or none within the timeout) is retried; 410 disables the webhook.",
              },
            },
          },
        },
      ];
    }),
  ) as Record<string, never>;
}
