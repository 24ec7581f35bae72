// Conditional requests (CONTRACT 10, RFC 9110 8.8.3 and 13): every 200 answer to a GET under
// /api/vendor carries an ETag, `If-None-Match` with a current one is answered 304 with no body,
// and `If-Match` on an update that names no current ETag is 412 precondition_failed, so a POS
// never overwrites a change it has not seen.
//
// Strong or weak: a single resource's ETag is strong, a hash of the exact bytes of its JSON
// (a strong ETag is what If-Match compares, RFC 9110 13.1.1). A list page's is the same hash,
// except the order list's first page, the page integrations poll: its ETag is weak
// (`W/"…"`), made by PostgreSQL from each row's version stamps (orders.repository.ts), so a
// poll whose page has not changed is answered 304 from a statement that reads the page's stamps
// and builds no JSON (a third of the full answer's CPU at most; bench/history/2026-11.md). Weak, because
// equal stamps mean the same data, not the same bytes (a new release may format it differently).
import { createHash } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ServiceContext } from "../context.ts";
import { holdTransaction, runWithTransaction } from "../db/request-transaction.ts";
import { AppError } from "../errors.ts";
import { documentRequestHeaders } from "./route-headers.ts";

/** A strong ETag of an answer's exact bytes. */
export function strongEtag(body: string | Buffer): string {
  return `"${createHash("sha256").update(body).digest("base64url").slice(0, 32)}"`;
}

/** The entity-tags a header lists (`*` stays `*`). */
function tagsOf(header: string): string[] {
  return header
    .split(",")
    .map((t) => t.trim())
    .filter((t) => t !== "");
}

const opaque = (tag: string) => (tag.startsWith("W/") ? tag.slice(2) : tag);

/** If-None-Match: weak comparison (RFC 9110 13.1.2), `*` matches any current representation. */
export function noneMatchHolds(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return tagsOf(header).some((tag) => tag === "*" || opaque(tag) === opaque(etag));
}

/** If-Match: strong comparison (RFC 9110 13.1.1): a weak tag never matches. */
function ifMatchHolds(header: string, etag: string): boolean {
  return tagsOf(header).some((tag) => tag === "*" || (!tag.startsWith("W/") && tag === etag));
}

/** Answers 304 Not Modified: no body, the ETag the client holds. */
export function notModified(reply: FastifyReply, etag: string) {
  return reply.code(304).header("etag", etag).send();
}

declare module "fastify" {
  interface FastifyContextConfig {
    /** The update honours If-Match (underIfMatch), and its documentation says so. */
    ifMatch?: boolean;
  }
}

const IfNoneMatchHeader = {
  type: "string",
  description:
    "ETags of the representation you hold (from an earlier answer's ETag): when one is still current, the answer is 304 Not Modified with no body.",
};
const IfMatchHeader = {
  type: "string",
  description:
    "The ETag of the resource as you last read it (GET its URL): when it changed since, the update is refused with 412 precondition_failed and changes nothing. `*` matches any current version.",
};

/**
 * The onSend hook of the API scope: a 200 answer to a GET gets a strong ETag of its bytes unless
 * its route set one, and becomes a 304 when If-None-Match names it. Every GET, and every update
 * marked `ifMatch`, registered after this documents its header in the OpenAPI document.
 */
export function registerConditionalRequests(scope: FastifyInstance): void {
  scope.addHook("onRoute", (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const header = methods.includes("GET")
      ? { "if-none-match": IfNoneMatchHeader }
      : route.config?.ifMatch
        ? { "if-match": IfMatchHeader }
        : undefined;
    if (header) documentRequestHeaders(route, header);
  });
  scope.addHook("onSend", (request, reply, payload, done) => {
    if (reply.statusCode !== 200 || (request.method !== "GET" && request.method !== "HEAD")) {
      return done(null, payload);
    }
    let etag = reply.getHeader("etag") as string | undefined;
    if (etag === undefined) {
      if (typeof payload !== "string" && !Buffer.isBuffer(payload)) return done(null, payload);
      etag = strongEtag(payload);
      reply.header("etag", etag);
    }
    if (!noneMatchHolds(request.headers["if-none-match"], etag)) return done(null, payload);
    reply.code(304);
    reply.removeHeader("content-type");
    reply.removeHeader("content-length");
    done(null, "");
  });
}

const preconditionFailed = () =>
  new AppError(
    "precondition_failed",
    "The resource changed since the ETag in If-Match: read it again, then apply your change to it",
  );

/**
 * Runs an update under the request's If-Match, if it has one. The resource's row is locked and its
 * current JSON read (`current`, undefined when it does not exist: `run` then answers 404) in a
 * transaction that `run` joins, so no other change lands between the comparison and the update.
 * Without If-Match, `run` alone (no statement added).
 */
export async function underIfMatch<T>(
  ctx: ServiceContext,
  request: FastifyRequest,
  current: () => Promise<string | undefined>,
  run: () => Promise<T>,
): Promise<T> {
  const header = request.headers["if-match"];
  if (header === undefined) return run();
  const held = await holdTransaction(ctx.db);
  try {
    const result = await runWithTransaction(held, async () => {
      const json = await current();
      if (json !== undefined && !ifMatchHolds(header, strongEtag(json))) throw preconditionFailed();
      return run();
    });
    await held.commit();
    return result;
  } finally {
    await held.rollback();
  }
}

/**
 * The ETag of one order, customer, appointment or webhook (CONTRACT 12, Conditional writes): a
 * strong tag of its representation as its GET answers it, given as the presented object, or as
 * text: for an order, the text of its version (modules/orders/order-version.ts). Every 2xx answer about the resource carries
 * it, writes included, and If-Match compares against it (underIfMatch's `current` renders the
 * same representation).
 */
export function representationEtag(representation: string | object): string {
  return strongEtag(typeof representation === "string" ? representation : JSON.stringify(representation));
}

/** Sets the resource's ETag on the answer (see representationEtag). */
export function withEtag(reply: FastifyReply, representation: string | object): FastifyReply {
  return reply.header("etag", representationEtag(representation));
}

/**
 * A DELETE under If-Match: as underIfMatch, but the resource is always read (locked) first, so the
 * answer can name the version it removed: returns that version's ETag (the 204's ETag).
 */
export async function underIfMatchDeleting(
  ctx: ServiceContext,
  request: FastifyRequest,
  current: () => Promise<string | undefined>,
  run: () => Promise<unknown>,
): Promise<string | undefined> {
  const header = request.headers["if-match"];
  const held = await holdTransaction(ctx.db);
  try {
    const etag = await runWithTransaction(held, async () => {
      const json = await current();
      const tag = json === undefined ? undefined : strongEtag(json);
      if (header !== undefined && tag !== undefined && !ifMatchHolds(header, tag)) throw preconditionFailed();
      await run();
      return tag;
    });
    await held.commit();
    return etag;
  } finally {
    await held.rollback();
  }
}
