// What every answer must be (CONTRACT 1, 2, 6, 8), whatever the request: never a 5xx; a 4xx is
// problem+json whose code is in the contract (src/errors.ts) and matches the status, except the
// OAuth token and revocation endpoints, which answer RFC 6749 5.2 JSON errors; a 2xx matches
// the operation's response schema; every status is one the document lists for the operation;
// every answer under /api carries X-Request-Id, and those of /api/vendor and /api/public the
// RateLimit headers.
import { Ajv, type ValidateFunction } from "ajv";
import type { FormatsPlugin } from "ajv-formats";
import * as ajvFormats from "ajv-formats";
import { errorCatalog } from "../../src/errors.ts";
import type { Operation, Schema } from "./openapi-model.ts";
import type { RawResponse } from "./raw-http.ts";

const addFormats = ((ajvFormats as unknown as { default: FormatsPlugin }).default ??
  ajvFormats) as unknown as FormatsPlugin;
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
addFormats(ajv);

// RFC 6749 5.2 and RFC 7009 2.2.1.
const OAUTH_ERRORS = new Set([
  "invalid_request",
  "invalid_client",
  "invalid_grant",
  "unauthorized_client",
  "unsupported_grant_type",
  "invalid_scope",
  "unsupported_token_type",
]);

const RATE_LIMIT_HEADERS = [
  "ratelimit-limit",
  "ratelimit-remaining",
  "ratelimit-reset",
  "ratelimit-policy",
  "ratelimit",
];

type Kind = "problem" | "oauth" | "page" | "plain";

export function kindOf(op: Operation): Kind {
  if (op.path === "/api/oauth/token" || op.path === "/api/oauth/revoke") return "oauth";
  if (op.path === "/api/oauth/authorize") return "page";
  if (op.path.startsWith("/api/")) return "problem";
  return "plain";
}

const validators = new Map<Schema, ValidateFunction>();
function validatorFor(schema: Schema): ValidateFunction {
  let v = validators.get(schema);
  if (!v) {
    v = ajv.compile(schema);
    validators.set(schema, v);
  }
  return v;
}

function header(res: RawResponse, name: string): string | undefined {
  const v = res.headers[name];
  return Array.isArray(v) ? v.join(", ") : v;
}

function json(res: RawResponse): { ok: true; value: any } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(res.body.toString("utf8")) };
  } catch {
    return { ok: false };
  }
}

/** The contract's violations in one answer (empty when it keeps every promise). */
export function check(op: Operation, target: string, res: RawResponse): string[] {
  const problems: string[] = [];
  const kind = kindOf(op);
  const path = target.split("?")[0] ?? "";
  if (res.status >= 500) problems.push(`status ${res.status}`);
  if (path.startsWith("/api/") && !header(res, "x-request-id")) problems.push("no X-Request-Id");
  // 431 (and other requests the HTTP parser refuses) are answered before any route or rate-limit
  // scope exists: the problem body and X-Request-Id only (src/http/error-handler.ts).
  if (kind === "problem" && res.status !== 431) {
    for (const h of RATE_LIMIT_HEADERS) if (!header(res, h)) problems.push(`no ${h} header`);
  }
  const type = header(res, "content-type") ?? "";
  if (res.status >= 400 && res.status < 500) {
    // A 431 comes from the HTTP parser, before any route: problem+json whatever the path.
    if (kind === "problem" || res.status === 431) {
      const body = json(res);
      if (!type.startsWith("application/problem+json")) problems.push(`4xx content-type ${type}`);
      if (!body.ok) problems.push("4xx body is not JSON");
      else {
        const code = body.value?.code as keyof typeof errorCatalog;
        if (!(code in errorCatalog)) problems.push(`code ${code} is not in the contract`);
        else if (errorCatalog[code].status !== res.status)
          problems.push(`code ${code} with status ${res.status}`);
        if (body.value?.status !== res.status)
          problems.push(`body status ${body.value?.status} ≠ ${res.status}`);
        if (body.value?.requestId !== header(res, "x-request-id")) problems.push("requestId ≠ X-Request-Id");
        if (res.status === 405 && !header(res, "allow")) problems.push("405 without Allow");
      }
    } else if (kind === "oauth" && res.status !== 429 && res.status !== 404 && res.status !== 405) {
      const body = json(res);
      if (!type.startsWith("application/json")) problems.push(`OAuth 4xx content-type ${type}`);
      if (!body.ok) problems.push("OAuth 4xx body is not JSON");
      else {
        const error = body.value?.error;
        if (!OAUTH_ERRORS.has(error)) problems.push(`OAuth error ${error} is not RFC 6749`);
        if ((error === "invalid_client") !== (res.status === 401))
          problems.push(`OAuth ${error} with status ${res.status}`);
        if (typeof body.value?.error_description !== "string")
          problems.push("OAuth error without error_description");
      }
    }
  }
  if (res.status === 200 && type.startsWith("text/event-stream")) {
    // The event stream (its first chunk only): SSE lines, a comment or an event.
    if (!/^(:|id: )/.test(res.body.toString("utf8"))) problems.push("event stream does not start with SSE");
    return problems;
  }
  // Every status is one the document lists for the operation, except what the
  // HTTP parser answers before any route exists (431).
  if (res.status !== 431 && !(String(res.status) in op.responses))
    problems.push(`undocumented status ${res.status}`);
  if (res.status >= 200 && res.status < 300 && kind !== "page") {
    const schema = op.responses[String(res.status)];
    if (
      res.status === 204 ||
      (schema && (schema.type === "null" || Object.keys(schema).length === 0) && res.body.length === 0)
    ) {
      if (res.body.length > 0) problems.push(`${res.status} with a body`);
    } else if (schema) {
      const body = json(res);
      if (!body.ok) problems.push(`${res.status} body is not JSON`);
      else {
        const validate = validatorFor(schema);
        if (!validate(body.value))
          problems.push(`${res.status} body does not match its schema: ${ajv.errorsText(validate.errors)}`);
      }
    }
  }
  return problems;
}
