// Idempotency-Key on POST (CONTRACT 2 and 8, after draft-ietf-httpapi-idempotency-key-header):
// the first request with a key claims it in the database (so every process sees the claim), runs,
// and its answer is stored; a repeat of the same request within 24 h replays that answer with
// `Idempotent-Replayed: true`. The same key while the first is still running is 409
// idempotency_key_in_use; with a different method, path or body it is 422
// idempotency_key_reused. 5xx answers are not stored, so a retry after a failure runs again.
import { createHash } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Principal } from "../auth/principal.ts";
import type { ServiceContext } from "../context.ts";
import { AppError, fieldError } from "../errors.ts";
import {
  claimKey,
  completeKey,
  dropKey,
  dropKeyCreatedAt,
  findKey,
  type IdempotencyScope,
  purgeKeysBefore,
} from "./idempotency.store.ts";

export const IDEMPOTENCY_RETENTION_MS = 24 * 3_600_000;
/** A claim older than this was left by a crashed process: the next request with the key takes over. */
export const IN_FLIGHT_STALE_MS = 60_000;
const PURGE_EVERY_MS = 10 * 60_000;
// RFC 8941 sf-string content: printable ASCII; 255 characters is ample for a UUID or ULID.
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;
/** Headers worth replaying: the representation's type and where a created resource lives. */
const REPLAYED_HEADERS = ["content-type", "location"];

const IdempotencyKeyHeader = {
  type: "string",
  description:
    "Makes the POST safe to retry: the same key with the same request within 24 h replays the first answer (Idempotent-Replayed: true); 409 idempotency_key_in_use while it runs, 422 idempotency_key_reused for a different request",
};

declare module "fastify" {
  interface FastifyRequest {
    idempotencyClaim: IdempotencyScope | undefined;
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

export function registerIdempotency(scope: FastifyInstance, ctx: ServiceContext): void {
  scope.decorateRequest("idempotencyClaim", undefined);
  let lastPurge = 0;

  // Every POST registered after this documents the header in the OpenAPI document.
  scope.addHook("onRoute", (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.includes("POST")) return;
    const schema = (route.schema ?? {}) as { headers?: { properties?: object; type?: string } };
    route.schema = {
      ...schema,
      headers: {
        type: "object",
        ...schema.headers,
        properties: { ...schema.headers?.properties, "idempotency-key": IdempotencyKeyHeader },
      },
    } as typeof route.schema;
  });

  // preHandler: after authentication and body validation, so an invalid request claims nothing.
  scope.addHook("preHandler", async (request, reply) => {
    if (request.method !== "POST") return;
    const raw = request.headers["idempotency-key"];
    if (raw === undefined || !request.principal) return;
    if (typeof raw !== "string" || !KEY_PATTERN.test(raw)) {
      throw fieldError("validation_failed", "Idempotency-Key", "must be 1-255 printable ASCII characters");
    }
    const s: IdempotencyScope = {
      vendorId: request.principal.vendorId,
      credential: credentialOf(request.principal),
      key: raw,
    };
    const fingerprint = fingerprintOf(request);
    const now = ctx.now();
    if (now.getTime() - lastPurge > PURGE_EVERY_MS) {
      lastPurge = now.getTime();
      purgeKeysBefore(ctx.db, new Date(now.getTime() - IDEMPOTENCY_RETENTION_MS)).catch((err) =>
        request.log.error({ err }, "idempotency purge failed"),
      );
    }
    for (let attempt = 0; attempt < 2; attempt++) {
      if (await claimKey(ctx.db, s, fingerprint, now)) {
        request.idempotencyClaim = s;
        return;
      }
      const existing = await findKey(ctx.db, s);
      if (!existing) continue; // released between our insert and our read: claim again
      const age = now.getTime() - existing.createdAt.getTime();
      const expired = age > IDEMPOTENCY_RETENTION_MS;
      const abandoned = existing.state === "in_flight" && age > IN_FLIGHT_STALE_MS;
      if (expired || abandoned) {
        await dropKeyCreatedAt(ctx.db, s, existing.createdAt);
        continue;
      }
      if (existing.fingerprint !== fingerprint) {
        throw new AppError(
          "idempotency_key_reused",
          "This Idempotency-Key was used for a different request (method, path or body)",
        );
      }
      if (existing.state !== "completed") {
        throw new AppError(
          "idempotency_key_in_use",
          "A request with this Idempotency-Key is still in progress",
          {
            headers: { "retry-after": "1" },
          },
        );
      }
      return replay(
        reply,
        existing.responseStatus ?? 200,
        existing.responseHeaders ?? {},
        existing.responseBody,
      );
    }
    throw new AppError("idempotency_key_in_use", "A request with this Idempotency-Key is still in progress", {
      headers: { "retry-after": "1" },
    });
  });

  scope.addHook("onSend", async (request, reply, payload) => {
    const claim = request.idempotencyClaim;
    if (!claim) return payload;
    request.idempotencyClaim = undefined;
    if (reply.statusCode >= 500) {
      // Not an answer to remember: the client may retry with the same key.
      await dropKey(ctx.db, claim).catch((err) => request.log.error({ err }, "idempotency release failed"));
      return payload;
    }
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const value = reply.getHeader(name);
      if (value !== undefined) headers[name] = String(value);
    }
    const body =
      typeof payload === "string" ? payload : Buffer.isBuffer(payload) ? payload.toString("utf8") : "";
    await completeKey(ctx.db, claim, { status: reply.statusCode, headers, body }, ctx.now());
    return payload;
  });
}

function replay(reply: FastifyReply, status: number, headers: Record<string, string>, body: string | null) {
  reply.code(status).headers(headers).header("idempotent-replayed", "true");
  return reply.send(status === 204 ? undefined : (body ?? ""));
}
