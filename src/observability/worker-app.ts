// The worker role's own small HTTP server (WORKER_PORT): /health, /ready and /metrics, so an
// orchestrator can probe and scrape a process that serves no API. The API keeps PORT; the webhook
// User-Agent names PUBLIC_URL only when it is set (config.ts), never a port guessed from PORT.
import Fastify, { type FastifyInstance } from "fastify";
import type { Config } from "../config.ts";
import type { Database } from "../db/client.ts";
import { registerErrorHandling } from "../http/error-handler.ts";
import { registerHealthRoutes } from "../http/health.routes.ts";
import { genReqId } from "../http/request-id.ts";
import type { Metrics } from "../metrics/registry.ts";
import { registerMetrics } from "./metrics.routes.ts";

export function buildWorkerApp(
  config: Config,
  database: Database,
  metrics: Metrics,
  logger: FastifyInstance["log"],
) {
  const app = Fastify({ loggerInstance: logger, genReqId, forceCloseConnections: true });
  registerErrorHandling(app, config.publicUrl, database.availability);
  registerHealthRoutes(app, database, config);
  registerMetrics(app, metrics, config);
  return app;
}
