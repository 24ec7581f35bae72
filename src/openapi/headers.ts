// Response headers: the components, and which of them each successful answer carries.
import { exampleIds } from "./examples.ts";
import { headerRef, type Json } from "./json.ts";

export const headers: Json = {
  "X-Request-Id": {
    required: true,
    description:
      "The request's id (an inbound X-Request-Id of 1-128 safe characters is echoed); also in problem bodies",
    schema: { type: "string" },
    example: "req-7f3c9a2b1d",
  },
  "RateLimit-Limit": {
    required: true,
    description: "Requests allowed in the window",
    schema: { type: "integer" },
    example: 600,
  },
  "RateLimit-Remaining": {
    required: true,
    description: "Requests left in the window",
    schema: { type: "integer" },
    example: 597,
  },
  "RateLimit-Reset": {
    required: true,
    description: "Seconds until the window resets",
    schema: { type: "integer" },
    example: 42,
  },
  "RateLimit-Policy": {
    required: true,
    description: 'The policy, as `"<name>";q=<quota>;w=<window seconds>`',
    schema: { type: "string" },
    example: '"credential";q=600;w=60',
  },
  RateLimit: {
    required: true,
    description: 'The budget left, as `"<name>";r=<remaining>;t=<seconds to reset>`',
    schema: { type: "string" },
    example: '"credential";r=597;t=42',
  },
  "Idempotent-Replayed": {
    description: "`true` when this answer replays the first answer to the same Idempotency-Key",
    schema: { type: "string", enum: ["true"] },
    example: "true",
  },
  "Retry-After": { description: "Seconds to wait before retrying", schema: { type: "string" }, example: "5" },
  ETag: {
    description:
      "The representation's entity-tag, for If-None-Match (304 when unchanged) and, on a single resource, If-Match on its updates. Strong (a hash of the bytes; a single order's, of its version: its updatedAt and the customer it shows), except the order list's first page: weak, from its orders' version stamps",
    schema: { type: "string" },
    example: '"q7Xw3mZs1YVJ0cGk2b9Tn4RaLh8EoUfD"',
  },
  Location: {
    description: "The created resource's URL",
    schema: { type: "string" },
    example: `/api/vendor/orders/${exampleIds.order}`,
  },
  "WWW-Authenticate": {
    required: true,
    description:
      "The Bearer challenge (RFC 6750): why the credential was refused and, for 403, the scope needed",
    schema: { type: "string" },
    example: 'Bearer realm="vendor-api", error="insufficient_scope", scope="orders:write"',
  },
};

export function successHeaders(path: string, method: string, status: string): Json {
  const out: Json = { "X-Request-Id": headerRef("X-Request-Id") };
  if (path.startsWith("/api/vendor/") || path.startsWith("/api/public/")) {
    for (const h of [
      "RateLimit-Limit",
      "RateLimit-Remaining",
      "RateLimit-Reset",
      "RateLimit-Policy",
      "RateLimit",
    ])
      out[h] = headerRef(h);
  }
  if (method === "post" && path.startsWith("/api/vendor/"))
    out["Idempotent-Replayed"] = headerRef("Idempotent-Replayed");
  if (status === "201" && path.startsWith("/api/vendor/")) out.Location = headerRef("Location");
  if (method === "get" && status === "200" && path.startsWith("/api/vendor/")) out.ETag = headerRef("ETag");
  // Every 2xx answer about one order, customer, appointment or webhook names its version
  // (CONTRACT 12, Conditional writes).
  if (
    /^\/api\/vendor\/(orders|customers|appointments|webhooks)(\/\{id\}(\/status|\/rotate-secret)?)?$/.test(
      path,
    ) &&
    method !== "get"
  ) {
    if (status === "201" || path.includes("{id}")) out.ETag = headerRef("ETag");
  }
  return out;
}
