// What a request or an error looks like in the log. The rule: no secret reaches the log.
// - URLs are logged without their query string: a refused `?access_token=vat_…` or an
//   authorization request's `state` must not be written down with it;
// - paths that carry a credential in a segment (`/track/{token}`: the customer's only key to
//   their order) are logged as their route pattern;
// - database errors are logged with their SQL text but never with its parameters, which hold
//   e-mails, hashes, tokens and whatever a caller sent (Drizzle puts them in the message too).
// Headers that carry credentials (Authorization, X-Api-Key, Cookie) are redacted by app.ts.
import type { FastifyRequest } from "fastify";
import { stdSerializers } from "pino";

/** Path prefixes whose next segment is a secret, for URLs that matched no route. */
const SECRET_SEGMENT_PREFIXES = ["/track/"];

export function loggedUrl(request: FastifyRequest): string {
  const pattern = request.routeOptions?.url;
  // A route whose path takes a credential (`:token`) is logged by its pattern alone.
  if (pattern && /:token\b/.test(pattern)) return pattern;
  const path = (request.url ?? "").split("?")[0] ?? "";
  for (const prefix of SECRET_SEGMENT_PREFIXES) {
    if (path.startsWith(prefix)) return `${prefix}{redacted}`;
  }
  return path;
}

export function requestForLog(request: FastifyRequest) {
  return {
    method: request.method,
    url: loggedUrl(request),
    remoteAddress: request.ip,
  };
}

const DROPPED_FIELDS = ["params", "parameters", "detail", "where", "internalQuery"];

/** pino's error serializer, minus anything that carries query parameters or row data. */
export function errorForLog(err: Error): {
  type: string;
  message: string;
  stack: string;
  [key: string]: unknown;
} {
  const serialized = stdSerializers.err(err) as unknown as Record<string, unknown>;
  return scrub(serialized, 0) as { type: string; message: string; stack: string };
}

/** Quoted literals, as PostgreSQL echoes a refused value: `invalid input syntax …: "<value>"`. */
const QUOTED = /"(?:[^"\\\n]|\\.)*"/g;

function scrub(value: Record<string, unknown>, depth: number): Record<string, unknown> {
  for (const field of DROPPED_FIELDS) delete value[field];
  for (const field of ["message", "stack"]) {
    const text = value[field];
    if (typeof text !== "string") continue;
    // Drizzle: "Failed query: <sql>\nparams: <values>" (the stack repeats the message).
    let clean = text.replace(/\nparams: [\s\S]*?(?=\n {4}at |$)/g, "");
    // The database's own message (this error's cause, or the "caused by:" part of a stack) may
    // echo a parameter's value: its quoted literals go.
    if (depth > 0) clean = clean.replace(QUOTED, '"…"');
    else {
      const cause = clean.indexOf("\ncaused by: ");
      if (cause >= 0) clean = clean.slice(0, cause) + clean.slice(cause).replace(QUOTED, '"…"');
    }
    value[field] = clean;
  }
  const cause = value.cause;
  if (cause && typeof cause === "object" && depth < 5) {
    value.cause = scrub({ ...(cause as Record<string, unknown>) }, depth + 1);
  }
  return value;
}
