// Idempotency-Key on POST (CONTRACT 2 and 8, after draft-ietf-httpapi-idempotency-key-header):
// a repeat of the same request within 24 h replays the first answer with
// `Idempotent-Replayed: true`. The same key while the first is still running is 409
// idempotency_key_in_use; with a different method, path or body it is 422
// idempotency_key_reused. 5xx answers are not stored, so a retry after a failure runs again.
//
// Crash safety: a keyed request runs in ONE transaction held from before the handler until its
// answer is known (db/request-transaction.ts): the service's change, its outbox events and the
// stored answer commit together, or none of them does. So a process killed at any moment leaves
// either the change with its answer (a retry replays it) or nothing (a retry runs anew). "In
// flight" is a transaction-scoped advisory lock on the key, released by PostgreSQL when the
// transaction ends or its connection dies, plus an in-process set (PGlite has one session, where
// advisory locks exclude nothing). Un-keyed requests skip all of this: no extra statement.
import { createHash } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Principal } from "../auth/principal.ts";
import type { ServiceContext } from "../context.ts";
import { type HeldTransaction, holdTransaction, runWithTransaction } from "../db/request-transaction.ts";
import { isDatabaseUnavailable, unavailableReason } from "../db/unavailable.ts";
import { AppError, fieldError } from "../errors.ts";
import {
  dropKey,
  findKey,
  type IdempotencyScope,
  lockKey,
  purgeKeysBefore,
  storeAnswer,
} from "./idempotency.repository.ts";
import { documentRequestHeaders } from "./route-headers.ts";

export const IDEMPOTENCY_RETENTION_MS = 24 * 3_600_000;
const PURGE_EVERY_MS = 10 * 60_000;
// RFC 8941 sf-string content: printable ASCII; 255 characters is ample for a UUID or ULID.
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;
/** Headers worth replaying: the representation's type and where a created resource lives. */
const REPLAYED_HEADERS = ["content-type", "location"];

const inUse = () =>
  new AppError("idempotency_key_in_use", "A request with this Idempotency-Key is still in progress", {
    headers: { "retry-after": "1" },
  });

const IdempotencyKeyHeader = {
  type: "string",
  description:
    "Makes the POST safe to retry: the same key with the same request within 24 h replays the first answer (Idempotent-Replayed: true); 409 idempotency_key_in_use while it runs, 422 idempotency_key_reused for a different request. The answer is stored in the same transaction as the change, so a retry after any failure either replays it or runs the request anew.",
};

interface KeyedRequest {
  held: HeldTransaction;
  scope: IdempotencyScope;
  fingerprint: string;
  name: string;
  startedAt: Date;
}

declare module "fastify" {
  interface FastifyRequest {
    idempotency: KeyedRequest | undefined;
  }
}

function credentialOf(principal: Principal): string {
  const c = principal.credential;
  return c.kind === "api_key" ? `api_key:${c.id}` : `oauth:${c.grantId}`;
}

function fingerprintOf(request: FastifyRequest): string {
  return createHash("sha256")
    .update(`${request.method} ${request.url}\n`)
    .update(JSON.stringify(request.body ?? null))
    .digest("hex");
}

/** Keys being run by this process (vendor, credential, key). */
const running = new Set<string>();

export function registerIdempotency(scope: FastifyInstance, ctx: ServiceContext): void {
  scope.decorateRequest("idempotency", undefined);
  let lastPurge = 0;

  // Every POST registered after this documents the header in the OpenAPI document.
  scope.addHook("onRoute", (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (methods.includes("POST")) documentRequestHeaders(route, { "idempotency-key": IdempotencyKeyHeader });
  });

  /** Opens the request's transaction and takes the key; undefined when the answer was replayed. */
  async function begin(request: FastifyRequest, reply: FastifyReply, raw: unknown) {
    if (typeof raw !== "string" || !KEY_PATTERN.test(raw)) {
      throw fieldError("validation_failed", "Idempotency-Key", "must be 1-255 printable ASCII characters");
    }
    const principal = request.principal as Principal;
    const s: IdempotencyScope = {
      vendorId: principal.vendorId,
      credential: credentialOf(principal),
      key: raw,
    };
    const fingerprint = fingerprintOf(request);
    const now = ctx.now();
    if (now.getTime() - lastPurge > PURGE_EVERY_MS) {
      lastPurge = now.getTime();
      purgeKeysBefore(ctx.db, new Date(now.getTime() - IDEMPOTENCY_RETENTION_MS)).catch((err) =>
        // The database going away is the outage's to log (one line); the next purge retries.
        isDatabaseUnavailable(err)
          ? request.log.warn(
              { reason: unavailableReason(err) },
              "idempotency purge skipped: database unavailable",
            )
          : request.log.error({ err }, "idempotency purge failed"),
      );
    }
    const name = `${s.vendorId}\n${s.credential}\n${s.key}`;
    if (running.has(name)) throw inUse();
    running.add(name);
    let held: HeldTransaction | undefined;
    try {
      held = await holdTransaction(ctx.db);
      if (!(await lockKey(held.tx, s))) throw inUse();
      const existing = await findKey(held.tx, s);
      if (existing) {
        const expired = now.getTime() - existing.createdAt.getTime() > IDEMPOTENCY_RETENTION_MS;
        // "in_flight" rows are leftovers of the earlier claim-then-run scheme: nothing to replay.
        if (expired || existing.state !== "completed") {
          await dropKey(held.tx, s);
        } else if (existing.fingerprint !== fingerprint) {
          throw new AppError(
            "idempotency_key_reused",
            "This Idempotency-Key was used for a different request (method, path or body)",
          );
        } else {
          await held.rollback();
          running.delete(name);
          replay(
            reply,
            existing.responseStatus ?? 200,
            existing.responseHeaders ?? {},
            existing.responseBody,
          );
          return undefined;
        }
      }
      request.idempotency = { held, scope: s, fingerprint, name, startedAt: now };
      return held;
    } catch (err) {
      await held?.rollback();
      running.delete(name);
      throw err;
    }
  }

  // preHandler: after authentication and body validation, so an invalid request opens nothing.
  // Callback style, so that the handler runs inside runWithTransaction's async context.
  scope.addHook("preHandler", (request, reply, done) => {
    const raw = request.headers["idempotency-key"];
    if (request.method !== "POST" || raw === undefined || !request.principal) return done();
    begin(request, reply, raw).then(
      (held) => {
        if (held) runWithTransaction(held, () => done());
      },
      (err: Error) => done(err),
    );
  });

  scope.addHook("onSend", async (request, reply, payload) => {
    const keyed = request.idempotency;
    if (!keyed) return payload;
    request.idempotency = undefined;
    try {
      // A 5xx is not an answer to remember, and whatever the request changed is undone with it.
      if (reply.statusCode >= 500) return payload;
      const headers: Record<string, string> = {};
      for (const name of REPLAYED_HEADERS) {
        const value = reply.getHeader(name);
        if (value !== undefined) headers[name] = String(value);
      }
      const body =
        typeof payload === "string" ? payload : Buffer.isBuffer(payload) ? payload.toString("utf8") : "";
      const answer = { status: reply.statusCode, headers, body };
      await storeAnswer(keyed.held.tx, keyed.scope, keyed.fingerprint, answer, keyed.startedAt, ctx.now());
      await keyed.held.commit();
      return payload;
    } finally {
      await keyed.held.rollback(); // no-op after a commit
      running.delete(keyed.name);
    }
  });

  // Should an answer ever leave without onSend, the transaction must not stay open.
  scope.addHook("onResponse", async (request) => {
    const keyed = request.idempotency;
    if (!keyed) return;
    request.idempotency = undefined;
    await keyed.held.rollback();
    running.delete(keyed.name);
  });
}
function replay(reply: FastifyReply, status: number, headers: Record<string, string>, body: string | null) {
  reply.code(status).headers(headers).header("idempotent-replayed", "true");
  return reply.send(status === 204 ? undefined : (body ?? ""));
}
