// The composition root of the HTTP service: one Fastify instance, plugins and routes registered
// in an explicit order. It never listens; main.ts and the tests do.

import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify, { type FastifyInstance } from "fastify";
import { type AppDeps, serviceContext } from "./context.ts";
import { registerBrowserScope } from "./dashboard/browser-scope.ts";
import { dashboardRoutes } from "./dashboard/dashboard.routes.ts";
import { signInRoutes } from "./dashboard/sign-in.routes.ts";
import { SignInThrottle } from "./dashboard/sign-in-throttle.ts";
import { registerErrorsPage } from "./docs/errors-page.ts";
import { systemResolver } from "./events/url-guard.ts";
import { registerAuthentication } from "./http/authenticate.ts";
import { registerErrorHandling } from "./http/error-handler.ts";
import { registerGracefulClose } from "./http/graceful-close.ts";
import { registerHealthRoutes } from "./http/health.routes.ts";
import { registerIdempotency } from "./http/idempotency.ts";
import { registerOpenApi } from "./http/openapi.ts";
import {
  openRateLimitStore,
  registerAddressRateLimit,
  registerCredentialRateLimit,
} from "./http/rate-limit.ts";
import { registerRejectNul } from "./http/reject-nul.ts";
import { genReqId } from "./http/request-id.ts";
import { registerRouteCatalog } from "./http/route-catalog.ts";
import { validatorCompiler } from "./http/validation.ts";
import { authenticateApiKey } from "./modules/api-keys/api-keys.service.ts";
import { appointmentRoutes } from "./modules/appointments/appointments.routes.ts";
import { customerRoutes } from "./modules/customers/customers.routes.ts";
import { eventRoutes } from "./modules/events/events.routes.ts";
import { inquiryRoutes, publicInquiryRoutes } from "./modules/inquiries/inquiries.routes.ts";
import { orderRoutes } from "./modules/orders/orders.routes.ts";
import { profileRoutes } from "./modules/vendors/vendors.routes.ts";
import { webhookRoutes } from "./modules/webhooks/webhooks.routes.ts";
import { authorizeRoutes } from "./oauth/authorize.routes.ts";
import { oauthRoutes } from "./oauth/oauth.routes.ts";
import { authenticateAccessToken } from "./oauth/tokens.ts";

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
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 8192 },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  // Only JSON bodies under /api (CONTRACT 1): drop Fastify's default text/plain parser.
  app.removeContentTypeParser("text/plain");
  app.addHook("onRequest", async (request, reply) => {
    reply.header("x-request-id", request.id);
  });

  registerRouteCatalog(app);
  registerGracefulClose(app);
  registerErrorHandling(app, config.publicUrl);
  await registerOpenApi(app, config);
  registerErrorsPage(app);
  registerHealthRoutes(app, database, config.publicUrl);

  const rateLimitStore = openRateLimitStore(config.redisUrl, config.redisKeyPrefix, app.log);
  app.decorate("rateLimitStore", rateLimitStore);
  app.addHook("onClose", () => rateLimitStore.close());

  await app.register(
    async (api) => {
      // Before authentication, so bad credentials are counted too (CONTRACT 8).
      await registerCredentialRateLimit(api, rateLimitStore, config.rateLimitPerMinute);
      registerAuthentication(api, {
        apiKey: (key) => authenticateApiKey(ctx, key),
        bearer: (token) => authenticateAccessToken(ctx, token),
      });
      registerRejectNul(api);
      registerIdempotency(api, ctx);
      await api.register(orderRoutes, { ctx });
      await api.register(customerRoutes, { ctx });
      await api.register(appointmentRoutes, { ctx });
      await api.register(inquiryRoutes, { ctx });
      await api.register(profileRoutes, { ctx });
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

  await app.register(
    async (pub) => {
      await registerAddressRateLimit(pub, rateLimitStore, { policy: "public" });
      registerRejectNul(pub);
      await pub.register(publicInquiryRoutes, { ctx });
    },
    { prefix: "/api/public" },
  );
  // Server-rendered pages (sign-in, OAuth consent; the dashboard joins them here): one scope with
  // cookies, form bodies, CSRF, page headers and HTML errors.
  const throttle = new SignInThrottle({
    perAddress: config.signInFailuresPerAddress,
    perAccount: config.signInFailuresPerAccount,
    windowMs: 15 * 60 * 1000,
  });
  await app.register(async (pages) => {
    await registerBrowserScope(pages, config);
    await pages.register(async (signIn) => {
      // Every sign-in page answer carries the rate-limit headers; failures are also throttled
      // per account by SignInThrottle.
      await registerAddressRateLimit(signIn, rateLimitStore, {
        policy: "sign-in",
        maxPerMinute: config.signInRateLimitPerMinute,
      });
      await signIn.register(signInRoutes, { ctx, config, throttle });
    });
    await pages.register(authorizeRoutes, { ctx, config });
    await pages.register(dashboardRoutes, { ctx, config });
  });
  // OAuth token, revocation and metadata endpoints: form bodies, RFC 6749 5.2 errors.
  await app.register(oauthRoutes, { ctx, config });

  return app;
}
