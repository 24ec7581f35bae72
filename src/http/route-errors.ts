// The error codes a route can answer (CONTRACT 2), as one list per route, from its own
// declaration: those this kit answers for every route of its kind, then those the route declares
// in `config.errors` (error-handler.ts), and precondition_failed for an update under If-Match
// (conditional.ts). The OpenAPI document lists exactly these for the operation, and the route's
// response schemas get one problem schema per status they fall under (registerProblemResponses).
import type { FastifyInstance, RouteOptions } from "fastify";
import { type ErrorCode, errorCatalog, errorCodes } from "../errors.ts";
import { Problem } from "./common-schemas.ts";

/** Any route: its input checked, its rate limit, a bug, the database unreachable. */
const everyRoute: readonly ErrorCode[] = [
  "validation_failed",
  "rate_limited",
  "internal_error",
  "unavailable",
];
/** A route with a scope takes a credential (authenticate.ts). */
const credentialed: readonly ErrorCode[] = [
  "ambiguous_credentials",
  "unauthenticated",
  "invalid_credentials",
  "insufficient_scope",
];
/** A POST under /api/vendor/ honours Idempotency-Key (idempotency.ts). */
const idempotent: readonly ErrorCode[] = ["idempotency_key_in_use", "idempotency_key_reused"];

/** The codes `route` can answer to `method` (GET, POST, …), in the catalog's order. */
export function routeErrorCodes(route: RouteOptions, method: string): ErrorCode[] {
  const codes = new Set<ErrorCode>(everyRoute);
  if (route.config?.scope) for (const c of credentialed) codes.add(c);
  const schema = route.schema as { body?: unknown; consumes?: readonly string[] } | undefined;
  const hasBody = schema?.body !== undefined || (schema?.consumes?.length ?? 0) > 0;
  if (hasBody) codes.add("invalid_json");
  // A body where the operation takes none (a DELETE with one) is refused, not ignored: 400 when
  // it is JSON, and like any body 415 in another type and 413 over the limit (json-body.ts).
  if (hasBody || method !== "GET") {
    codes.add("payload_too_large");
    codes.add("unsupported_media_type");
  }
  if (method === "POST" && route.url.startsWith("/api/vendor/")) for (const c of idempotent) codes.add(c);
  if (route.url.includes(":")) codes.add("not_found");
  for (const c of route.config?.errors ?? []) codes.add(c);
  if (route.config?.ifMatch) codes.add("precondition_failed");
  return errorCodes.filter((c) => codes.has(c));
}

/**
 * Whether `url` answers its errors as problem details listed from routeErrorCodes: the service's
 * API, but not the OAuth protocol endpoints, which speak RFC 6749 errors (oauth.errors.ts).
 */
export const answersProblems = (url: string): boolean =>
  url.startsWith("/api/") && !url.startsWith("/api/oauth/");

/**
 * Gives every API route with response schemas a problem schema for each status its codes can
 * answer, so the runtime serializes the same list the OpenAPI document renders. Every status
 * shares the one `Problem` schema: fast-json-stringify then writes its members in one order
 * (those it names first, `requestId` among them, then any others), the same for every code.
 * Statuses a route cannot answer keep no schema. HEAD is a GET without a body: its GET's list.
 */
export function registerProblemResponses(app: FastifyInstance): void {
  app.addHook("onRoute", (route) => {
    const response = route.schema?.response as Record<string, unknown> | undefined;
    if (!response || !answersProblems(route.url)) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const problems: Record<string, unknown> = {};
    for (const method of methods) {
      for (const code of routeErrorCodes(route, method === "HEAD" ? "GET" : method)) {
        problems[errorCatalog[code].status] = Problem;
      }
    }
    route.schema = { ...route.schema, response: { ...problems, ...response } };
  });
}
