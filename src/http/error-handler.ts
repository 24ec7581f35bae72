// The one place errors become responses: RFC 9457 problem details for everything under the
// service (Fastify's own errors included), with the request id in every body and nothing
// internal in a 5xx.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { AppError, type ErrorCode, errorCatalog, type FieldError } from "../errors.ts";
import { toFieldErrors } from "./validation.ts";

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

/** Drizzle wraps driver errors (DrizzleQueryError.cause), so look down the cause chain. */
function isDatabaseUnavailable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: string }).code;
    if (
      code === "ECONNREFUSED" ||
      code === "ECONNRESET" ||
      code === "ETIMEDOUT" ||
      code === "57P01" || // admin_shutdown
      code === "57P03" || // cannot_connect_now
      code === "53300" || // too_many_connections
      /timeout exceeded when trying to connect|Connection terminated/i.test(e.message)
    ) {
      return true;
    }
  }
  return false;
}

export function registerErrorHandling(app: FastifyInstance, publicUrl: string): void {
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
      request.log.error({ err: error }, "database unavailable");
      reply.header("retry-after", "5");
    }
    return sendProblem(publicUrl, request, reply, code, detail, errors ? { errors } : {});
  });

  app.setNotFoundHandler((request, reply) =>
    sendProblem(
      publicUrl,
      request,
      reply,
      "route_not_found",
      `No route ${request.method} ${request.url.split("?")[0]}`,
    ),
  );
}
