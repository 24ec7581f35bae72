// The OpenAPI 3.1 `webhooks` section (CONTRACT 7), rendered from the event catalog: one entry per
// event, describing the POST a receiver gets, its headers and its body, whose `data` is the
// catalog's payload schema (the same TypeBox schema the API responses use).
import { Type } from "@sinclair/typebox";
import { Id, Timestamp } from "../http/common-schemas.ts";
import { type AnyEventType, allEventTypes, eventCatalog } from "../modules/events/catalog.ts";

const header = (name: string, description: string, example: string) => ({
  name,
  in: "header",
  required: true,
  description,
  schema: { type: "string" },
  example,
});

const headers = [
  header(
    "X-Service-Signature",
    "Lowercase hex HMAC-SHA256 of the exact body bytes, keyed with the webhook secret's UTF-8 bytes (prefix included); during a rotation's overlap made with the old secret only",
    "5d41402abc4b2a76b9719d911017c5925d41402abc4b2a76b9719d911017c592",
  ),
  header("X-Service-Event", "The event name", "order.status_changed"),
  header(
    "X-Service-Delivery",
    "The delivery id, the same on every retry: de-duplicate on it",
    "clx0d3l1v3ry0000000000001",
  ),
  header("webhook-id", "Standard Webhooks message id (the event id)", "clx0ev3nt00000000000000001"),
  header(
    "webhook-timestamp",
    "Standard Webhooks: Unix seconds of this attempt; reject old ones",
    "1795339800",
  ),
  header(
    "webhook-signature",
    'Standard Webhooks: space-separated "v1,<base64 HMAC-SHA256 of id.timestamp.body>"; two during a secret rotation. Keyed with the base64-decoded bytes after `whsec_` (a `whsk_` secret made before: its UTF-8 bytes)',
    "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=",
  ),
];

/** The envelope every delivery carries around the event's payload. */
export function eventEnvelope(name: AnyEventType) {
  return Type.Object(
    {
      id: { ...Id, description: "The event id (also the webhook-id header)" },
      event: Type.Literal(name),
      data: eventCatalog[name].payload,
      timestamp: Timestamp,
    },
    { description: eventCatalog[name].description },
  );
}

export function webhooksDocument(): Record<string, never> {
  // The swagger plugin's OpenAPI types want its own object types; this is plain JSON Schema.
  return Object.fromEntries(
    allEventTypes.map((name) => [
      name,
      {
        post: {
          operationId: `${name.replace(/\.(.)/g, (_m, c: string) => c.toUpperCase())}Webhook`,
          summary: name,
          description: eventCatalog[name].description,
          tags: ["Webhooks"],
          security: [],
          parameters: headers,
          requestBody: {
            required: true,
            content: { "application/json": { schema: eventEnvelope(name) } },
          },
          responses: {
            "2XX": {
              description:
                "Received. Any other answer (or none within the timeout) is retried; 410 Gone disables the webhook.",
            },
          },
        },
      },
    ]),
  ) as Record<string, never>;
}
