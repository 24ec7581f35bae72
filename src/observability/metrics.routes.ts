// GET /metrics (Prometheus text format) and the request-duration hook that feeds it. With
// METRICS_TOKEN set, a scrape must send `Authorization: Bearer <token>`; without it the endpoint
// is open, as /health is (bind HOST to a private interface, or set the token, in production).
import type { FastifyInstance } from "fastify";
import type { Config } from "../config.ts";
import { hashSecret, safeEqual } from "../lib/crypto.ts";
import type { Metrics } from "../metrics/registry.ts";

export function registerMetrics(
  app: FastifyInstance,
  metrics: Metrics,
  config: Pick<Config, "metricsToken">,
): void {
  app.addHook("onResponse", (request, reply, done) => {
    // The route pattern, never the raw URL: ids would make a series per order.
    const route = request.routeOptions.url ?? "unmatched";
    metrics.observeRequest(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  app.get("/metrics", { schema: { hide: true }, logLevel: "warn" }, async (request, reply) => {
    if (config.metricsToken) {
      const given = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1] ?? "";
      // Hashes first: equal lengths, so the comparison leaks nothing about the token.
      if (!safeEqual(hashSecret(given), hashSecret(config.metricsToken))) {
        reply.header("www-authenticate", 'Bearer realm="metrics"');
        return reply.code(401).type("text/plain").send("metrics need the METRICS_TOKEN bearer token\n");
      }
    }
    reply.type(metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}
