// Which failures mean "the database cannot serve right now" (CONTRACT 9: 503 with Retry-After,
// never a 500), and the short reason an operator reads for one. One home for the list: the error
// handler, /ready and the availability log all ask here.
import { QUERY_TIMEOUT_MESSAGE } from "./bounded-client.ts";

/** Socket-level failures: the server is down, restarting, unreachable or its name unresolvable. */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  // A full disk under PGlite's files (PostgreSQL reports it as 53100).
  "ENOSPC",
  "EDQUOT",
]);

/**
 * SQLSTATEs (https://www.postgresql.org/docs/current/errcodes-appendix.html) that say the server
 * cannot serve now, not that the request was wrong: connection exceptions (class 08), insufficient
 * resources (class 53: 53100 disk_full, 53200 out_of_memory, 53300 too_many_connections, …), the
 * server shutting down or starting (57P01-57P05), a cancelled statement (57014: our
 * statement_timeout), an idle transaction the server ended (25P03), and I/O errors (58000, 58030).
 */
function isUnavailableSqlState(code: string): boolean {
  return (
    code.startsWith("08") ||
    code.startsWith("53") ||
    /^57P0[1-5]$/.test(code) ||
    code === "57014" ||
    code === "25P03" ||
    code === "58000" ||
    code === "58030"
  );
}

/** pg's and pg-pool's own messages for a connection that is gone or never came. */
const CONNECTION_MESSAGES =
  /timeout exceeded when trying to connect|Connection terminated|is not queryable|Cannot use a pool after calling end|PGlite is closed/i;

/** The error in `error`'s cause chain (Drizzle wraps driver errors) that makes it unavailability. */
function unavailableCause(error: unknown): Error | undefined {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && (NETWORK_CODES.has(code) || isUnavailableSqlState(code))) return e;
    if (e.message === QUERY_TIMEOUT_MESSAGE || CONNECTION_MESSAGES.test(e.message)) return e;
  }
  return undefined;
}

export function isDatabaseUnavailable(error: unknown): boolean {
  return unavailableCause(error) !== undefined;
}

/**
 * One short line saying why (code and the driver's first line, at most 160 characters): never a
 * stack, never the SQL Drizzle puts in its own message, never parameters.
 */
export function unavailableReason(error: unknown): string {
  const cause = unavailableCause(error) ?? innermost(error);
  if (!cause) return String(error).slice(0, 160);
  const code = (cause as { code?: unknown }).code;
  const text = (cause.message.split("\n")[0] ?? "").replace(/"(?:[^"\\\n]|\\.)*"/g, '"…"').slice(0, 160);
  return typeof code === "string" ? `${code}: ${text}` : text;
}

/** The driver's own error under Drizzle's wrapper (whose message carries the SQL). */
function innermost(error: unknown): Error | undefined {
  let e = error instanceof Error ? error : undefined;
  for (let depth = 0; e?.cause instanceof Error && depth < 5; depth++) e = e.cause;
  return e;
}
