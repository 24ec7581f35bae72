// Problem+json error answers (RFC 9457): one response per status an operation can answer, listing
// its codes, each with an example from the error catalog (src/errors.ts).
import { type ErrorCode, errorCatalog, errorCodes } from "../errors.ts";
import { exampleIds } from "./examples.ts";
import { headerRef, type Json, ref } from "./json.ts";

const problemExamples: Record<ErrorCode, Json> = {
  invalid_json: { detail: "Body is not valid JSON: Unexpected end of JSON input at position 41" },
  validation_failed: {
    detail: "size must NOT have more than 50 characters",
    errors: [{ field: "size", message: "must NOT have more than 50 characters" }],
  },
  unknown_reference: {
    detail: "customerId names no customer of this vendor",
    errors: [{ field: "customerId", message: "names no customer of this vendor" }],
  },
  ambiguous_credentials: { detail: "Send either X-Api-Key or Authorization, not both" },
  unauthenticated: { detail: "Send an API key in X-Api-Key or an OAuth access token as Bearer" },
  invalid_credentials: { detail: "The API key or access token is unknown, expired or revoked" },
  insufficient_scope: { detail: "This operation needs the scope orders:write" },
  not_found: { detail: "Order not found" },
  route_not_found: { detail: "No route GET /api/vendor/order" },
  method_not_allowed: { detail: "DELETE is not allowed here" },
  invalid_transition: {
    detail: "An order in PICKED_UP cannot move to IN_PRODUCTION",
    currentStatus: "PICKED_UP",
    allowedStatuses: ["RETURNED", "COMPLETED"],
  },
  appointment_not_deletable: {
    detail: "Only a PROPOSED or CANCELLED appointment can be deleted; cancel it first",
  },
  webhook_limit_reached: { detail: "A vendor can register at most 5 webhooks" },
  customer_email_taken: {
    detail: "Another customer of this vendor has this e-mail address",
    errors: [{ field: "email", message: "is already used by another customer" }],
    existingId: exampleIds.maria,
  },
  external_id_taken: {
    detail: "Another customer of this vendor has this externalId",
    errors: [{ field: "externalId", message: "is already used by another customer" }],
    existingId: exampleIds.maria,
  },
  slot_taken: {
    detail: "2027-05-04T08:00:00.000Z is not a free start time",
    errors: [{ field: "start", message: "is not a free start time (taken, or outside the shop's hours)" }],
    start: "2027-05-04T08:00:00.000Z",
  },
  storage_quota_exceeded: {
    detail:
      "This shop's photos would take more than its 1 GiB of storage: delete orders' photos or ask for more",
    errors: [{ field: "file", message: "would exceed the shop's 1 GiB of photo storage" }],
  },
  idempotency_key_in_use: { detail: "A request with this Idempotency-Key is still being processed" },
  precondition_failed: {
    detail: "The resource changed since the ETag in If-Match: read it again, then apply your change to it",
  },
  request_timeout: { detail: "The request body did not arrive in time" },
  headers_too_large: { detail: "The request headers are larger than the server accepts" },
  payload_too_large: { detail: "The body is larger than 1 MiB" },
  unsupported_media_type: { detail: "Send the body as application/json" },
  idempotency_key_reused: { detail: "This Idempotency-Key was used for a different request" },
  rate_limited: { detail: "Over 600 requests a minute; retry after the Retry-After seconds" },
  internal_error: { detail: "An unexpected error occurred; quote the requestId to support" },
  unavailable: { detail: "The database is unreachable; retry after the Retry-After seconds" },
};

export function problemExample(code: ErrorCode): Json {
  const { status, title } = errorCatalog[code];
  return {
    type: `https://api.vendor-api.example/docs/errors#${code}`,
    title,
    status,
    code,
    ...problemExamples[code],
    requestId: "req-7f3c9a2b1d",
  };
}

/** The problem answers of an operation that can answer `codes`, one per status. */
export function errorResponses(codes: readonly ErrorCode[], commonHeaders: Json): Json {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = errorCatalog[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Json = {};
  for (const [status, codes] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const headers: Json = { ...commonHeaders };
    if (status === 401 || status === 403) headers["WWW-Authenticate"] = headerRef("WWW-Authenticate");
    if (status === 429 || status === 503) headers["Retry-After"] = headerRef("Retry-After");
    if (codes.includes("idempotency_key_in_use")) headers["Retry-After"] = headerRef("Retry-After");
    out[String(status)] = {
      description: codes.map((c) => `\`${c}\`: ${errorCatalog[c].title}`).join("; "),
      headers,
      content: {
        "application/problem+json": {
          schema: { allOf: [ref("Problem"), { type: "object", properties: { code: { enum: codes } } }] },
          examples: Object.fromEntries(codes.map((c) => [c, { $ref: `#/components/examples/${c}` }])),
        },
      },
    };
  }
  return out;
}

/** One example per code, for components.examples. */
export const problemExampleComponents = (): Json =>
  Object.fromEntries(
    errorCodes.map((c) => [c, { summary: errorCatalog[c].title, value: problemExample(c) }]),
  );
