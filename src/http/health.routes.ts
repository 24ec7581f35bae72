import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import type { Config } from "../config.ts";
import type { Database } from "../db/client.ts";
import { unavailableReason } from "../db/unavailable.ts";
import { declareApiTag } from "./api-tags.ts";
import { Problem } from "./common-schemas.ts";
import { DISK_LOW_DETAIL, DISK_LOW_RETRY_AFTER_SECONDS } from "./disk-guard.ts";
import { sendProblem, UNAVAILABLE_RETRY_AFTER_SECONDS } from "./error-handler.ts";

/** /ready answers within this, whatever the database does (a frozen one never answers). */
export const READY_TIMEOUT_MS = 2_000;

const operationsTags = declareApiTag("Operations", "Health and readiness", { last: true });

function withTimeout(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export function registerHealthRoutes(
  app: FastifyInstance,
  database: Database,
  config: Pick<Config, "publicUrl" | "logLevel">,
  /** Why the service runs degraded while it still serves (a dependency it can do without), if it does. */
  degraded: () => string | undefined = () => undefined,
): void {
  const { publicUrl } = config;
  const Status = Type.Object({
    status: Type.String({ description: "ok, or degraded: serving, without something it can do without" }),
    reason: Type.Optional(Type.String({ description: "What is missing, when degraded" })),
  });
  // Probes come every few seconds: their request lines appear at debug (and trace) only.
  const logLevel = config.logLevel === "debug" || config.logLevel === "trace" ? config.logLevel : "warn";
  app.get(
    "/health",
    {
      logLevel,
      schema: {
        tags: operationsTags,
        summary: "Liveness: the server accepts requests",
        response: { 200: Status },
      },
    },
    async () => ({ status: "ok" }),
  );
  app.get(
    "/ready",
    {
      logLevel,
      schema: {
        tags: operationsTags,
        summary: "Readiness: the database answers too (and, on PGlite, its disk has room for writes)",
        // Outside /api, so not given problem answers by route-errors.ts: its one error, declared here.
        response: { 200: Status, 503: { ...Problem, description: "Database unreachable (unavailable)" } },
      },
    },
    async (request, reply) => {
      if (database.diskSpace?.low) {
        reply.header("retry-after", String(DISK_LOW_RETRY_AFTER_SECONDS));
        return sendProblem(publicUrl, request, reply, "unavailable", DISK_LOW_DETAIL);
      }
      try {
        await withTimeout(database.ping(), READY_TIMEOUT_MS);
        const reason = degraded();
        // Still ready: taking the instance out of rotation would turn a degradation into an outage.
        return reason ? { status: "degraded", reason } : { status: "ok" };
      } catch (err) {
        // One short line per failed probe; the outage itself is logged once (availability-log.ts).
        const reason = unavailableReason(err);
        database.availability.lost(reason);
        request.log.warn({ reason }, "readiness check failed");
        reply.header("retry-after", String(UNAVAILABLE_RETRY_AFTER_SECONDS));
        return sendProblem(publicUrl, request, reply, "unavailable", "The database does not answer");
      }
    },
  );
}
