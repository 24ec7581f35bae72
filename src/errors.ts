// One error vocabulary (CONTRACT 2): a closed union of codes, one code → status map, one class.
// Domain code throws AppError; only the HTTP error handler turns it into a response.

export const errorCatalog = {
  invalid_json: { status: 400, title: "Malformed JSON body" },
  validation_failed: { status: 400, title: "Request validation failed" },
  unknown_reference: { status: 400, title: "Unknown reference" },
  ambiguous_credentials: { status: 400, title: "Ambiguous credentials" },
  unauthenticated: { status: 401, title: "Authentication required" },
  invalid_credentials: { status: 401, title: "Invalid credentials" },
  insufficient_scope: { status: 403, title: "Insufficient scope" },
  not_found: { status: 404, title: "Resource not found" },
  route_not_found: { status: 404, title: "Route not found" },
  method_not_allowed: { status: 405, title: "Method not allowed" },
  request_timeout: { status: 408, title: "Request timeout" },
  invalid_transition: { status: 409, title: "Status transition not allowed" },
  appointment_not_deletable: { status: 409, title: "Appointment cannot be deleted" },
  webhook_limit_reached: { status: 409, title: "Webhook limit reached" },
  customer_email_taken: { status: 409, title: "Customer e-mail already in use" },
  external_id_taken: { status: 409, title: "External id already in use" },
  slot_taken: { status: 409, title: "Slot taken" },

  storage_quota_exceeded: { status: 409, title: "Storage quota exceeded" },
  idempotency_key_in_use: { status: 409, title: "Idempotency key in use" },
  precondition_failed: { status: 412, title: "Precondition failed" },
  payload_too_large: { status: 413, title: "Payload too large" },
  unsupported_media_type: { status: 415, title: "Unsupported media type" },
  headers_too_large: { status: 431, title: "Request headers too large" },
  idempotency_key_reused: { status: 422, title: "Idempotency key reused" },
  rate_limited: { status: 429, title: "Too many requests" },
  internal_error: { status: 500, title: "Internal server error" },
  unavailable: { status: 503, title: "Service unavailable" },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof errorCatalog;
export const errorCodes = Object.keys(errorCatalog) as ErrorCode[];

export interface FieldError {
  field: string;
  message: string;
}

export function statusFor(code: ErrorCode): number {
  return errorCatalog[code].status;
}

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string = errorCatalog[code].title,
    readonly extra: { errors?: FieldError[]; headers?: Record<string, string>; [key: string]: unknown } = {},
  ) {
    super(message);
    this.name = "AppError";
    this.status = statusFor(code);
  }
}

export const notFound = (what = "Resource"): AppError => new AppError("not_found", `${what} not found`);

export function fieldError(code: "validation_failed" | "unknown_reference", field: string, message: string) {
  return new AppError(code, `${field} ${message}`, { errors: [{ field, message }] });
}
