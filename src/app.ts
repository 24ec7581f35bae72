// The composition root of the HTTP service: one Fastify instance, plugins and routes registered
// in an explicit order. It never listens; main.ts and the tests do.

import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify, { type FastifyInstance } from "fastify";
import { type AppDeps, serviceContext } from "./context.ts";
import { registerErrorsPage } from "./docs/errors-page.ts";
import { systemResolver } from "./events/url-guard.ts";
import { registerAuthentication } from "./http/authenticate.ts";
import { registerErrorHandling } from "./http/error-handler.ts";
import { registerHealthRoutes } from "./http/health.routes.ts";
import { registerOpenApi } from "./http/openapi.ts";
import { genReqId } from "./http/request-id.ts";
import { validatorCompiler } from "./http/validation.ts";
import { authenticateApiKey } from "./modules/api-keys/api-keys.service.ts";
import { eventRoutes } from "./modules/events/events.routes.ts";
import { orderRoutes } from "./modules/orders/orders.routes.ts";
import { webhookRoutes } from "./modules/webhooks/webhooks.routes.ts";

export const BODY_LIMIT = 1024 * 1024;

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, database } = deps;
  const ctx = serviceContext(deps);
  const app = Fastify({
    logger: {
      level: config.logLevel,
      // Credentials never reach the logs, whichever header carries them.
      redact: ["req.headers.authorization", 'req.headers["x-api-key"]', "req.headers.cookie"],
    },
    genReqId,
    bodyLimit: BODY_LIMIT,
    return503OnClosing: true,
    forceCloseConnections: "idle",
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 200 },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  // Only JSON bodies under /api (CONTRACT 1): drop Fastify's default text/plain parser.
  app.removeContentTypeParser("text/plain");
  app.addHook("onRequest", async (request, reply) => {
    reply.header("x-request-id", request.id);
  });

  registerErrorHandling(app, config.publicUrl);
  await registerOpenApi(app, config);
  registerErrorsPage(app);
  registerHealthRoutes(app, database, config.publicUrl);

  await app.register(
    async (api) => {
      registerAuthentication(api, {
        apiKey: (key) => authenticateApiKey(ctx, key),
        // OAuth access tokens plug in here once the authorization server exists.
        bearer: async () => undefined,
      });
      await api.register(orderRoutes, { ctx });
      await api.register(webhookRoutes, {
        ctx,
        urlPolicy: {
          allowPrivate: config.webhookAllowPrivateUrls,
          httpsOnly: config.env === "production",
          resolver: deps.resolver ?? systemResolver,
        },
      });
      await api.register(eventRoutes, { ctx });
    },
    { prefix: "/api/vendor" },
  );

  return app;
}
