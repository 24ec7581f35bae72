// The one place errors become responses: RFC 9457 problem details for everything under the
// service (Fastify's own errors included), with the request id in every body and nothing
// internal in a 5xx.
import { randomUUID } from "node:crypto";
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { DatabaseAvailability } from "../db/availability.ts";
import { isDatabaseUnavailable, unavailableReason } from "../db/unavailable.ts";
import { AppError, type ErrorCode, errorCatalog, type FieldError } from "../errors.ts";
import type { CatalogedRoute } from "./route-catalog.ts";
import { toFieldErrors } from "./validation.ts";

declare module "fastify" {
  interface FastifyContextConfig {
    /**
     * The error codes this route can answer beyond those every operation of its kind can
     * (validation, credentials, scope, not_found on a path with an id, …; route-errors.ts): the
     * route's list, which the OpenAPI document renders as its problem answers and the route's
     * response schemas serialize (route-errors.ts).
     */
    errors?: readonly ErrorCode[];
  }
}

export function problemBody(
  publicUrl: string,
  request: FastifyRequest,
  code: ErrorCode,
  detail: string | undefined,
  extra: Record<string, unknown> = {},
) {
  const { status, title } = errorCatalog[code];
  return {
    type: `${publicUrl}/docs/errors#${code}`,
    title,
    status,
    code,
    ...(detail ? { detail } : {}),
    ...extra,
    requestId: request.id,
  };
}

export function sendProblem(
  publicUrl: string,
  request: FastifyRequest,
  reply: FastifyReply,
  code: ErrorCode,
  detail?: string,
  extra: Record<string, unknown> = {},
) {
  return reply
    .code(errorCatalog[code].status)
    .type("application/problem+json")
    .send(problemBody(publicUrl, request, code, detail, extra));
}

/** Fastify's own error codes → our vocabulary. */
function classify(error: FastifyError): { code: ErrorCode; detail?: string; errors?: FieldError[] } {
  if (error.validation) {
    const errors = toFieldErrors(error.validation as never);
    const where = error.validationContext === "querystring" ? "query " : "";
    return {
      code: "validation_failed",
      detail: errors.map((e) => `${where}${e.field} ${e.message}`).join("; "),
      errors,
    };
  }
  switch (error.code) {
    case "FST_ERR_CTP_INVALID_JSON_BODY":
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return { code: "invalid_json", detail: "The request body is not valid JSON" };
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return { code: "payload_too_large", detail: "The request body is larger than 1 MiB" };
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return error.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE"
        ? { code: "unsupported_media_type", detail: "Send the body as application/json" }
        : { code: "validation_failed", detail: "Content-Length does not match the body" };
  }
  // Errors thrown by the JSON parser itself (e.g. prototype poisoning) carry statusCode 400.
  if (error.statusCode === 400 && (error instanceof SyntaxError || error.code?.startsWith("FST_ERR_CTP"))) {
    return { code: "invalid_json", detail: "The request body is not valid JSON" };
  }
  if (error.statusCode === 413) return { code: "payload_too_large" };
  if (error.statusCode === 415) return { code: "unsupported_media_type" };
  if (error.statusCode === 429) return { code: "rate_limited" };
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return { code: "validation_failed", detail: "The request could not be processed" };
  }
  if (isDatabaseUnavailable(error)) return { code: "unavailable" };
  return { code: "internal_error" };
}

/** Seconds a client should wait before retrying a request refused for want of the database. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/**
 * A request the database could not serve: 503 with Retry-After, one short log line (the reason,
 * no stack, no SQL: an outage refuses thousands), and the outage's own one line when it begins
 * (`availability`, logged by registerAvailabilityLog).
 */
export function refuseUnavailable(
  request: FastifyRequest,
  reply: FastifyReply,
  error: unknown,
  availability: DatabaseAvailability | undefined,
): void {
  const reason = unavailableReason(error);
  availability?.lost(reason);
  request.log.warn({ reason }, "503: database unavailable");
  reply.header("retry-after", String(UNAVAILABLE_RETRY_AFTER_SECONDS));
}

export function registerErrorHandling(
  app: FastifyInstance,
  publicUrl: string,
  availability?: DatabaseAvailability,
): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof AppError) {
      const { headers, ...extra } = error.extra;
      if (headers) reply.headers(headers);
      return sendProblem(publicUrl, request, reply, error.code, error.message, extra);
    }
    const { code, detail, errors } = classify(error);
    if (code === "internal_error") {
      request.log.error({ err: error }, "unhandled error");
    } else if (code === "unavailable") {
      refuseUnavailable(request, reply, error, availability);
    }
    return sendProblem(publicUrl, request, reply, code, detail, errors ? { errors } : {});
  });
  registerNotFound(app, publicUrl);
}

/**
 * The answer for a path no route of this method serves: 405 method_not_allowed with `Allow`
 * when the path exists under other methods (RFC 9110 15.5.6), else 404 route_not_found. Called
 * at the root and again in each /api scope, so that scope's hooks (request id, rate limits) run
 * for these answers too; where those limits count only authenticated credentials, `count` counts
 * the client address instead (CONTRACT 8: every answer carries the RateLimit headers).
 */
export function registerNotFound(
  scope: FastifyInstance,
  publicUrl: string,
  /** Counts the request (and writes the RateLimit headers) where no route's limiter does. */
  count?: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
): void {
  scope.setNotFoundHandler(async (request, reply) => {
    if (count) await count(request, reply);
    const path = request.url.split("?")[0] ?? "";
    const allowed = allowedMethods(scope.routeCatalog, path);
    if (allowed.length > 0 && !allowed.includes(request.method)) {
      reply.header("allow", allowed.join(", "));
      return sendProblem(
        publicUrl,
        request,
        reply,
        "method_not_allowed",
        `${request.method} is not allowed on ${path}; allowed: ${allowed.join(", ")}`,
      );
    }
    return sendProblem(publicUrl, request, reply, "route_not_found", `No route ${request.method} ${path}`);
  });
}

/** The methods the app serves `path` with (GET implies HEAD, as Fastify answers both). */
export function allowedMethods(catalog: readonly CatalogedRoute[], path: string): string[] {
  const methods = new Set<string>();
  for (const route of catalog) {
    if (patternOf(route.url).test(path)) {
      methods.add(route.method);
      if (route.method === "GET") methods.add("HEAD");
    }
  }
  return [...methods].sort();
}

const patterns = new Map<string, RegExp>();
function patternOf(url: string): RegExp {
  let re = patterns.get(url);
  if (!re) {
    const source = url
      .split("/")
      .map((part) =>
        part.startsWith(":") ? "[^/]+" : part === "*" ? ".*" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"),
      )
      .join("/");
    re = new RegExp(`^${source}$`);
    patterns.set(url, re);
  }
  return re;
}

/**
 * Errors Fastify raises before any route runs (Fastify's `frameworkErrors` option): a path
 * parameter that is not a valid URL component or is too long names an id that cannot exist, so
 * it is 404 not_found like any unknown id (CONTRACT 1). `escapeMalformedPath` below normally
 * keeps such paths from getting here; this is the net under it.
 */
export function frameworkErrors(publicUrl: string) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    reply.header("x-request-id", request.id);
    if (error.code === "FST_ERR_BAD_URL" || error.code === "FST_ERR_MAX_PARAM_LENGTH") {
      return sendProblem(publicUrl, request, reply, "not_found", "Resource not found");
    }
    request.log.error({ err: error }, "framework error");
    return sendProblem(publicUrl, request, reply, "internal_error");
  };
}

/**
 * Fastify's `rewriteUrl`: a path whose percent-encoding does not decode (`/customers/%ZZ`,
 * `%FF`) gets its `%` signs escaped, so it reaches its route like any other unknown id, with
 * authentication, rate limits and request id, and is answered 404 not_found by the service.
 */
export function escapeMalformedPath(url: string): string {
  if (!url.includes("%")) return url;
  const q = url.indexOf("?");
  const path = q < 0 ? url : url.slice(0, q);
  try {
    decodeURIComponent(path);
    return url;
  } catch {
    return path.replaceAll("%", "%25") + (q < 0 ? "" : url.slice(q));
  }
}

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (Fastify's `clientErrorHandler`):
 * duplicate or malformed Content-Length, invalid header characters, headers over the size limit
 * (431), a request that never finished (408). They are answered in the contract's shape on the
 * raw socket, which is then closed: there is no request to route, so no rate-limit scope applies.
 */
export function clientErrorHandler(publicUrl: string) {
  return function onClientError(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Duplex): void {
    if (err.code === "ECONNRESET" || socket.destroyed) return;
    const code: ErrorCode =
      err.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? "request_timeout"
        : err.code === "HPE_HEADER_OVERFLOW"
          ? "headers_too_large"
          : "validation_failed";
    const detail =
      code === "request_timeout"
        ? "The request was not received in time"
        : code === "headers_too_large"
          ? "The request line and headers are larger than the server accepts"
          : "The request is not valid HTTP/1.1 (for example a duplicate or malformed Content-Length)";
    const requestId = randomUUID();
    const { status, title } = errorCatalog[code];
    const body = JSON.stringify({
      type: `${publicUrl}/docs/errors#${code}`,
      title,
      status,
      code,
      detail,
      requestId,
    });
    this.log.debug({ err, requestId }, "client error");
    if (socket.writable) {
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
          "Content-Type: application/problem+json\r\n" +
          `Content-Length: ${Buffer.byteLength(body)}\r\n` +
          `X-Request-Id: ${requestId}\r\n` +
          "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n" +
          body,
      );
    }
    socket.destroy(err);
  };
}
