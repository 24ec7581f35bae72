// Cause and remedy of every error code, for the errors guide. Typed against the catalog in
// src/errors.ts, so a new code does not compile until it is explained here.
import type { ErrorCode } from "../errors.ts";

export const errorRemedies: Record<ErrorCode, { cause: string; remedy: string }> = {
  invalid_json: {
    cause: "The body is not well-formed JSON (or is nested too deeply to parse safely).",
    remedy: "Send one JSON document, encoded as UTF-8, with Content-Type: application/json.",
  },
  validation_failed: {
    cause: "A field, query parameter or header is missing, of the wrong type or out of range.",
    remedy: "Read `errors[]`: each entry names the `field` and says what is wrong. Fix those and send again.",
  },
  unknown_reference: {
    cause: "An id in the body (for example `customerId`) names nothing in your account.",
    remedy: "Check the id, or create the resource it should point at first. `errors[]` names the field.",
  },
  ambiguous_credentials: {
    cause: "The request carries more than one credential (an X-Api-Key and a Bearer token).",
    remedy: "Send exactly one credential per request.",
  },
  unauthenticated: {
    cause: "No credential was sent.",
    remedy: "Send `X-Api-Key: vk_…` or `Authorization: Bearer vat_…`.",
  },
  invalid_credentials: {
    cause: "The API key or access token is unknown, revoked or expired.",
    remedy: "Use a current key; with OAuth, refresh the access token and retry once.",
  },
  insufficient_scope: {
    cause: "The credential lacks the scope this operation needs.",
    remedy: "Create a key with that scope, or ask the vendor to authorize your application for it.",
  },
  not_found: {
    cause: "No such resource in your account (resources of other vendors are never visible).",
    remedy: "Check the id. A deleted or erased resource stays gone.",
  },
  route_not_found: {
    cause: "No operation exists at this path.",
    remedy: "Check the path against the API reference.",
  },
  method_not_allowed: {
    cause: "The path exists but not with this HTTP method.",
    remedy: "Use one of the methods listed in the `Allow` header.",
  },
  request_timeout: {
    cause: "The request body did not arrive in time.",
    remedy: "Retry; if it persists, check the network between you and the service.",
  },
  invalid_transition: {
    cause: "The workflow does not allow this status move from the current status.",
    remedy: "Read `currentStatus` and `allowedStatuses` in the problem and choose one of those.",
  },
  appointment_not_deletable: {
    cause: "Only a PROPOSED or CANCELLED appointment can be deleted; `currentStatus` says what it is.",
    remedy: "Cancel the appointment first (PUT its status to CANCELLED), then delete it, or keep it.",
  },
  webhook_limit_reached: {
    cause: "Your account already has the maximum number of webhooks.",
    remedy: "Delete a webhook you no longer use, or reuse one for several events.",
  },
  customer_email_taken: {
    cause: "Another customer of yours already has this e-mail address.",
    remedy: "Use that customer (its id is in `existingId`) or change the address.",
  },
  external_id_taken: {
    cause: "Another record of the same kind in your shop already has this `externalId`.",
    remedy: "Use that record (its id is in `existingId`), or give this one another externalId.",
  },
  slot_taken: {
    cause:
      "The start time is no longer free: another booking or a move took its last place, or it is outside the shop's hours, notice or reach.",
    remedy: "Read the availability again and offer the customer one of the free start times.",
  },
  storage_quota_exceeded: {
    cause:
      "Your shop's photos would take more storage than its quota (1 GiB unless the operator set another).",
    remedy: "Upload smaller photos or fewer of them; photos go when their order's customer is erased.",
  },
  idempotency_key_in_use: {
    cause: "A request with the same Idempotency-Key is still being processed.",
    remedy: "Wait for `Retry-After` seconds and retry with the same key: you then get the first answer.",
  },
  precondition_failed: {
    cause:
      "The request's If-Match names an ETag the resource no longer has: it changed after you read it (another device, the dashboard, another integration).",
    remedy:
      "GET the resource again, apply your change to what it is now, and send the update with its new ETag in If-Match (or without If-Match to overwrite whatever is there).",
  },
  payload_too_large: {
    cause: "The body exceeds the size limit.",
    remedy: "Send a smaller body; upload photos by URL rather than inline.",
  },
  unsupported_media_type: {
    cause: "The body's Content-Type is not one this operation accepts.",
    remedy: "Send `Content-Type: application/json` (the OAuth endpoints take form-encoded bodies).",
  },
  headers_too_large: {
    cause: "The request headers are too large.",
    remedy: "Send fewer or shorter headers (cookies are the usual culprit).",
  },
  idempotency_key_reused: {
    cause: "The Idempotency-Key was already used in the last 24 hours for a different request.",
    remedy: "Use a new key for every distinct request; reuse a key only to retry the same one.",
  },
  rate_limited: {
    cause: "The credential sent more requests than its limit in the current window.",
    remedy: "Wait `Retry-After` seconds (see the `RateLimit` headers) and spread requests out.",
  },
  internal_error: {
    cause: "An unexpected failure on our side.",
    remedy:
      "Retry later with the same Idempotency-Key; quote the `X-Request-Id` header if you contact support.",
  },
  unavailable: {
    cause: "The service is starting, stopping or cannot reach its database.",
    remedy: "Retry after `Retry-After` seconds, with the same Idempotency-Key for POSTs.",
  },
};
