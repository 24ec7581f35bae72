// The composition root of the HTTP service: one Fastify instance, plugins and routes registered
// in an explicit order. It never listens; main.ts and the tests do.

import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import type { Config } from "./config.ts";
import { type AppDeps, serviceContext } from "./context.ts";
import { accountAccessRoutes } from "./dashboard/account-access.routes.ts";
import { dashboardRoutes } from "./dashboard/dashboard.routes.ts";
import { forgotPasswordRoutes } from "./dashboard/forgot-password.routes.ts";
import { invitationRoutes } from "./dashboard/invitation.routes.ts";
import { notificationEmailRoutes } from "./dashboard/notification-email.routes.ts";
import { signInRoutes } from "./dashboard/sign-in.routes.ts";
import { SignInThrottle } from "./dashboard/sign-in-throttle.ts";
import { twoStepRoutes } from "./dashboard/two-step.routes.ts";
import { registerEventCatalogue } from "./docs/event-catalogue.ts";
import { GUIDE_CSP, registerGuides } from "./docs/guides.ts";
import { registerReferencePage } from "./docs/reference-page.ts";
import { registerAuthentication } from "./http/authenticate.ts";
import { registerAvailabilityLog } from "./http/availability-log.ts";
import { registerConditionalRequests } from "./http/conditional.ts";
import { registerDiskGuard } from "./http/disk-guard.ts";
import {
  clientErrorHandler,
  escapeMalformedPath,
  frameworkErrors,
  registerErrorHandling,
  registerNotFound,
} from "./http/error-handler.ts";
import { registerGracefulClose } from "./http/graceful-close.ts";
import { registerHealthRoutes } from "./http/health.routes.ts";
import { registerIdempotency } from "./http/idempotency.ts";
import { registerJsonBody } from "./http/json-body.ts";
import { errorForLog, requestForLog } from "./http/log-serializers.ts";
import { registerNoStore } from "./http/no-store.ts";
import {
  addressKey,
  credentialLimits,
  enforce,
  openRateLimitStore,
  registerAddressRateLimit,
} from "./http/rate-limit.ts";
import { registerRejectNul } from "./http/reject-nul.ts";
import { genReqId } from "./http/request-id.ts";
import { registerRouteCatalog } from "./http/route-catalog.ts";
import { registerProblemResponses } from "./http/route-errors.ts";
import { buildSerializer } from "./http/serialization.ts";
import { registerStrictQuery } from "./http/strict-query.ts";
import { registerTransportSecurity } from "./http/transport-security.ts";
import { validatorCompiler } from "./http/validation.ts";
import { createMetrics } from "./metrics/registry.ts";
import { authenticateApiKey } from "./modules/api-keys/api-keys.service.ts";
import { openVerifiedKeys } from "./modules/api-keys/verified-keys.ts";
import { appointmentRoutes } from "./modules/appointments/appointments.routes.ts";
import { customerRoutes } from "./modules/customers/customers.routes.ts";
import { eventStreamRoutes } from "./modules/events/event-stream.routes.ts";
import { eventRoutes } from "./modules/events/events.routes.ts";
import { inquiryRoutes, publicInquiryRoutes } from "./modules/inquiries/inquiries.routes.ts";
import { orderRoutes } from "./modules/orders/orders.routes.ts";
import { photoFileRoutes } from "./modules/photos/photo-files.routes.ts";
import { photoRoutes } from "./modules/photos/photos.routes.ts";
import { syncRoutes } from "./modules/sync/sync.routes.ts";
import { bookingRoutes, publicBookingRoutes } from "./modules/use-cases/booking.routes.ts";
import { customerWriteRoutes } from "./modules/use-cases/customer-writes.routes.ts";
import { profileRoutes } from "./modules/vendors/vendors.routes.ts";
import { webhookRoutes } from "./modules/webhooks/webhooks.routes.ts";
import { authorizeRoutes } from "./oauth/authorize.routes.ts";
import { oauthRoutes } from "./oauth/oauth.routes.ts";
import { registerOAuthRequestGuards } from "./oauth/request-guards.ts";
import { authenticateAccessToken } from "./oauth/tokens.ts";
import { registerMetrics } from "./observability/metrics.routes.ts";
import { registerOpenApi } from "./openapi/plugin.ts";
import { registerBrowserScope } from "./web/browser-scope.ts";
import { systemResolver } from "./webhook-delivery/url-guard.ts";

export const BODY_LIMIT = 1024 * 1024;

declare module "fastify" {
  interface FastifyInstance {
    metrics: import("./metrics/registry.ts").Metrics;
  }
}

/**
 * TRUST_PROXY as Fastify takes it. A hop count becomes "the N addresses nearest to us are
 * proxies": Fastify 5.12.8 turns a bare number into "trust nobody" (it cannot check the peer), so
 * behind a proxy every client would have the proxy's address and share one budget (CONTRACT 8).
 */
function fastifyTrustProxy(
  trustProxy: Config["trustProxy"],
): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trustProxy !== "number") return trustProxy;
  const hops = trustProxy;
  return (_address, hop) => hop < hops;
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, database } = deps;
  const ctx = serviceContext(deps);
  const app = Fastify({
    logger: {
      level: config.logLevel,
      // Credentials never reach the logs, whichever header carries them.
      redact: ["req.headers.authorization", 'req.headers["x-api-key"]', "req.headers.cookie"],
      // A person at a terminal in development reads lines, not JSON (LOG_FORMAT).
      ...(config.logFormat === "pretty"
        ? {
            transport: {
              target: "pino-pretty",
              options: { translateTime: "HH:MM:ss.l", ignore: "pid,hostname" },
            },
          }
        : {}),
      // URLs without query strings or secret path segments; errors without query parameters.
      serializers: { req: requestForLog, err: errorForLog },
      ...(deps.logStream ? { stream: deps.logStream } : {}),
    },
    genReqId,
    // Behind a reverse proxy, request.ip is the client's address only when the proxy is trusted.
    trustProxy: fastifyTrustProxy(config.trustProxy),
    bodyLimit: BODY_LIMIT,
    // Requests that arrive while draining are refused by graceful-close.ts (problem+json with
    // Retry-After), not with Fastify's own JSON.
    return503OnClosing: false,
    forceCloseConnections: "idle",
    // Longer than any request line the HTTP parser lets through (16 KiB of headers), so a long id
    // reaches its route and is 404 like any unknown id instead of a framework error.
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 65_536 },
    // Framework-level errors in the contract's shape (src/http/error-handler.ts).
    rewriteUrl: (req) => escapeMalformedPath(req.url ?? "/"),
    frameworkErrors: frameworkErrors(config.publicUrl),
    clientErrorHandler: clientErrorHandler(config.publicUrl),
    schemaController: { compilersFactory: { buildSerializer } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  if (config.trustProxy === true) {
    app.log.warn(
      "TRUST_PROXY=true believes any X-Forwarded-For, so each client may choose its own address and " +
        "dodge every per-address limit: set the proxies' addresses (TRUST_PROXY=10.0.0.5,10.1.0.0/16) or their number",
    );
  }
  app.setValidatorCompiler(validatorCompiler);
  // Only JSON bodies under /api (CONTRACT 1): drop Fastify's default text/plain parser.
  app.removeContentTypeParser("text/plain");
  // Hooks that never wait take a callback: an async hook costs every request a promise and a
  // microtask turn for nothing (bench/history/2026-11.md).
  app.addHook("onRequest", (request, reply, done) => {
    reply.header("x-request-id", request.id);
    done();
  });

  registerTransportSecurity(app, config);
  registerRouteCatalog(app);
  registerProblemResponses(app);
  registerGracefulClose(app, config.shutdownIdleCloseMs, config.publicUrl);
  registerErrorHandling(app, config.publicUrl, database.availability);
  registerAvailabilityLog(app, database.availability);
  registerDiskGuard(app, database.diskSpace);
  await registerOpenApi(app, config);
  registerReferencePage(app);
  registerGuides(app);
  registerEventCatalogue(app, GUIDE_CSP);
  const rateLimitStore = await openRateLimitStore(
    config.redisUrl,
    config.redisKeyPrefix,
    app.log,
    config.redisWaitMs,
  );
  app.decorate("rateLimitStore", rateLimitStore);
  app.addHook("onClose", () => rateLimitStore.close());
  registerHealthRoutes(app, database, config, () => rateLimitStore.degradation());
  const metrics = deps.metrics ?? createMetrics(database);
  app.decorate("metrics", metrics);
  registerMetrics(app, metrics, config);

  // Requests to no route under /api count against the client address (no credential is checked).
  const unrouted = { policy: "unrouted", max: config.rateLimitPerMinute };
  const countUnrouted = (request: FastifyRequest, reply: FastifyReply) =>
    enforce(rateLimitStore, unrouted, addressKey(request), reply);

  const verifiedKeys = await openVerifiedKeys(database, config.apiKeyCacheMs);
  app.addHook("onClose", () => verifiedKeys.close());

  await app.register(
    async (api) => {
      registerNoStore(api);
      registerConditionalRequests(api);
      // Failures count per client address, an authenticated credential against its own budget
      // (CONTRACT 8).
      registerAuthentication(
        api,
        {
          apiKey: (key) => authenticateApiKey(ctx, key, verifiedKeys),
          bearer: (token) => authenticateAccessToken(ctx, token),
        },
        credentialLimits(rateLimitStore, {
          perMinute: config.rateLimitPerMinute,
          failuresPerMinute: config.authFailuresPerMinute,
        }),
      );
      registerNotFound(api, config.publicUrl, countUnrouted);
      registerJsonBody(api);
      registerStrictQuery(api);
      registerRejectNul(api);
      registerIdempotency(api, ctx);
      await api.register(orderRoutes, { ctx });
      await api.register(photoRoutes, { ctx, config });
      await api.register(customerRoutes, { ctx });
      await api.register(customerWriteRoutes, { ctx });
      await api.register(appointmentRoutes, { ctx });
      await api.register(bookingRoutes, { ctx });
      await api.register(syncRoutes, { ctx });
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
      await api.register(eventStreamRoutes, {
        ctx,
        database,
        heartbeatMs: config.eventStreamHeartbeatMs,
        pollMs: config.eventStreamPollMs,
        idlePollMs: config.eventStreamIdlePollMs,
        maxPerShop: config.eventStreamMaxPerShop,
      });
    },
    { prefix: "/api/vendor" },
  );

  await app.register(
    async (pub) => {
      registerNoStore(pub);
      registerAddressRateLimit(pub, rateLimitStore, { policy: "public" });
      registerNotFound(pub, config.publicUrl);
      registerJsonBody(pub);
      registerStrictQuery(pub);
      registerRejectNul(pub);
      await pub.register(publicInquiryRoutes, { ctx, publicUrl: config.publicUrl });
      await pub.register(publicBookingRoutes, { ctx, prefix: "/vendors" });
    },
    { prefix: "/api/public" },
  );
  // Photos' own links (no credentials: the token is one), per client address like public pages.
  await app.register(async (photos) => {
    registerAddressRateLimit(photos, rateLimitStore, {
      policy: "photos",
      maxPerMinute: config.rateLimitPerMinute,
    });
    // Every answer is nosniff; only a photo's own bytes may be cached (its route says how long).
    photos.addHook("onSend", async (_request, reply) => {
      reply.header("x-content-type-options", "nosniff");
      if (reply.statusCode !== 200) reply.header("cache-control", "no-store");
    });
    await photos.register(photoFileRoutes, { ctx });
  });
  // Any other path under /api (a mistyped prefix, a wrong method on an OAuth endpoint): counted
  // and answered like the rest of the API, RateLimit headers included (CONTRACT 8).
  await app.register(
    async (rest) => {
      registerNotFound(rest, config.publicUrl, countUnrouted);
    },
    { prefix: "/api" },
  );
  // Server-rendered pages (sign-in, OAuth consent; the dashboard joins them here): one scope with
  // cookies, form bodies, CSRF, page headers and HTML errors.
  const throttle = new SignInThrottle(rateLimitStore, {
    perAddress: config.signInFailuresPerAddress,
    perAccount: config.signInFailuresPerAccount,
    windowMs: 15 * 60 * 1000,
  });
  await app.register(async (pages) => {
    await registerBrowserScope(pages, config);
    await pages.register(async (signIn) => {
      // Every sign-in page answer carries the rate-limit headers; failures are also throttled
      // per account by SignInThrottle.
      registerAddressRateLimit(signIn, rateLimitStore, {
        policy: "sign-in",
        maxPerMinute: config.signInRateLimitPerMinute,
      });
      await signIn.register(signInRoutes, { ctx, config, throttle });
      await signIn.register(accountAccessRoutes, { ctx, config });
      await signIn.register(invitationRoutes, { ctx, config });
      await signIn.register(notificationEmailRoutes, { ctx, config });
      await signIn.register(twoStepRoutes, { ctx, config, throttle });
      await signIn.register(forgotPasswordRoutes, { ctx });
    });
    await pages.register(async (authorize) => {
      registerOAuthRequestGuards(authorize, rateLimitStore, {
        policy: "authorize",
        maxPerMinute: config.oauthRateLimitPerMinute,
        asPage: true,
      });
      await authorize.register(authorizeRoutes, { ctx, config });
    });
    await pages.register(dashboardRoutes, { ctx, config, throttle });
  });
  // OAuth token, revocation and metadata endpoints: form bodies, RFC 6749 5.2 errors.
  await app.register(oauthRoutes, { ctx, config });

  return app;
}
