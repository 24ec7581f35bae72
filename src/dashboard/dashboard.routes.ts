// The signed-in vendor dashboard. Every route registered inside `dashboardRoutes` is behind the
// session (anyone else is sent to /login and back), lives under /dashboard, renders with
// `dashboardPage`, and changes state only through POST forms carrying the CSRF token
// (`preHandler: app.csrfProtection`), answering 303 to a page that shows a flash message.
import fs from "node:fs";
import type { FastifyInstance } from "fastify";
import { registerAddressRateLimit } from "../http/rate-limit.ts";
import { isId } from "../lib/ids.ts";
import { sendPage } from "../web/browser-scope.ts";
import { errorPage } from "../web/html.ts";
import { PageError } from "../web/page-error.ts";
import { readerOf } from "../web/reader.ts";
import { actAsSignedInPerson, requireSession } from "../web/require-session.ts";
import { accountPages } from "./account.pages.ts";
import { activityPage } from "./activity.page.ts";
import { bookingSettingsPages } from "./booking-settings.pages.ts";
import { brandPages } from "./brand.pages.ts";
import type { DashboardDeps } from "./deps.ts";
import { apiKeyPages } from "./integrations/api-keys.pages.ts";
import { applicationPages } from "./integrations/applications.pages.ts";
import { connectedAppPages } from "./integrations/connected-apps.pages.ts";
import { integrationsOverviewPage } from "./integrations/overview.page.ts";
import { sandboxPages } from "./integrations/sandbox.pages.ts";
import { webhookPages } from "./integrations/webhooks.pages.ts";
import { orderDateSettingsPages } from "./order-date-settings.pages.ts";
import { appointmentPages } from "./pages/appointments.pages.ts";
import { bookingPages } from "./pages/booking.page.ts";
import { customerMergePages } from "./pages/customer-merge.pages.ts";
import { customerPages } from "./pages/customers.pages.ts";
import { inquiryPages } from "./pages/inquiries.pages.ts";
import { inquiryFormPages } from "./pages/inquiry-form.page.ts";
import { myAppointmentPage } from "./pages/my-appointment.page.ts";
import { orderDatesPages } from "./pages/order-dates.section.ts";
import { orderPages } from "./pages/orders.pages.ts";
import { todayPage } from "./pages/today.page.ts";
import { trackingPage } from "./pages/tracking.page.ts";
import { unsubscribePage } from "./pages/unsubscribe.page.ts";
import { requireMay } from "./permission.ts";
import { settingsPages } from "./settings.pages.ts";
import { teamPages } from "./team.pages.ts";

// Kept for page plugins written against the old home of this type; new code imports ./deps.ts.
export type { DashboardDeps } from "./deps.ts";

const stylesheet = fs.readFileSync(new URL("./assets/dashboard.css", import.meta.url), "utf8");
const copyScript = fs.readFileSync(new URL("./assets/copy-secret.js", import.meta.url), "utf8");
const pickerScript = fs.readFileSync(new URL("./assets/customer-picker.js", import.meta.url), "utf8");
const bookingZoneScript = fs.readFileSync(new URL("./assets/booking-zone.js", import.meta.url), "utf8");
const browserZoneScript = fs.readFileSync(new URL("./assets/browser-zone.js", import.meta.url), "utf8");

const NOT_FOUND_TITLE = "errors.notFound.title";
const NOT_FOUND_TEXT = "errors.notFound.dashboard";

export async function dashboardRoutes(app: FastifyInstance, deps: DashboardDeps): Promise<void> {
  // Per client address over every dashboard page and asset (CONTRACT 8: every answer carries the
  // RateLimit headers). Generous: a shop's staff share one office address, and each page loads a
  // stylesheet too; it bounds what one address can make the database do.
  registerAddressRateLimit(app, app.rateLimitStore, {
    policy: "dashboard",
    maxPerMinute: deps.config.dashboardRequestsPerMinute,
  });
  app.get("/assets/dashboard.css", { schema: { hide: true } }, async (_request, reply) =>
    reply.type("text/css; charset=utf-8").header("cache-control", "public, max-age=3600").send(stylesheet),
  );
  app.get("/assets/copy-secret.js", { schema: { hide: true } }, async (_request, reply) =>
    reply
      .type("text/javascript; charset=utf-8")
      .header("cache-control", "public, max-age=3600")
      .send(copyScript),
  );
  app.get("/assets/customer-picker.js", { schema: { hide: true } }, async (_request, reply) =>
    reply
      .type("text/javascript; charset=utf-8")
      .header("cache-control", "public, max-age=3600")
      .send(pickerScript),
  );
  app.get("/", { schema: { hide: true } }, async (_request, reply) => reply.redirect("/dashboard", 303));
  // Public: the customer's tracking page (no session; the link's token is the credential).
  await app.register(trackingPage, deps);
  // Public: each shop's hosted inquiry form and its thank-you page.
  await app.register(inquiryFormPages, deps);
  // Public: each shop's hosted booking page (CONTRACT 12, Public booking).
  app.get("/assets/booking-zone.js", { schema: { hide: true } }, async (_request, reply) =>
    reply
      .type("text/javascript; charset=utf-8")
      .header("cache-control", "public, max-age=3600")
      .send(bookingZoneScript),
  );
  await app.register(bookingPages, deps);
  // Sign-up's last step picks the browser's time zone for the new shop.
  app.get("/assets/browser-zone.js", { schema: { hide: true } }, async (_request, reply) =>
    reply
      .type("text/javascript; charset=utf-8")
      .header("cache-control", "public, max-age=3600")
      .send(browserZoneScript),
  );
  // Public: one-click unsubscribe from a shop's customer mail (RFC 8058).
  await app.register(unsubscribePage, deps);
  // Public: the customer's own page for an appointment (the link in each appointment mail).
  await app.register(myAppointmentPage, deps);

  // Unknown dashboard URLs (a mistyped or stale link) get the HTML 404 page, not the API's JSON.
  await app.register(
    async (dashboard) => {
      dashboard.setNotFoundHandler((request, reply) => {
        const reader = readerOf(request);
        return sendPage(
          reply,
          404,
          errorPage(reader.t.t(NOT_FOUND_TITLE), reader.t.t(NOT_FOUND_TEXT), reader),
        );
      });
    },
    { prefix: "/dashboard" },
  );

  await app.register(async (signedIn) => {
    // Every id in a dashboard URL is a CUID2 (CONTRACT 1); anything else names no page, so it is
    // the 404 page before any handler sees it (a CR/LF or a character above U+00FF once reached
    // a redirect's Location header and answered a bare JSON 500).
    signedIn.addHook("onRequest", async (request) => {
      for (const value of Object.values((request.params ?? {}) as Record<string, unknown>)) {
        if (typeof value !== "string" || !isId(value))
          throw new PageError(404, NOT_FOUND_TITLE, NOT_FOUND_TEXT, true);
      }
    });
    signedIn.addHook("preHandler", requireSession(deps.ctx));
    signedIn.addHook("preHandler", actAsSignedInPerson);
    signedIn.get("/dashboard", { schema: { hide: true } }, async (_request, reply) =>
      reply.redirect("/dashboard/today", 303),
    );
    // Page groups register here, each a plugin taking DashboardDeps. Today is where sign-in lands.
    await signedIn.register(todayPage, deps);
    await signedIn.register(orderPages, deps);
    await signedIn.register(orderDatesPages, deps);
    await signedIn.register(customerMergePages, deps);
    await signedIn.register(customerPages, deps);
    await signedIn.register(appointmentPages, deps);
    await signedIn.register(inquiryPages, deps);
    // Owners only (src/auth/member-policy.ts): each group's pages and form POSTs answer a staff
    // member 403 alike, from the one hook of its scope.
    await signedIn.register(async (integrations) => {
      integrations.addHook("preHandler", requireMay(deps.ctx, "integrations"));
      await integrations.register(integrationsOverviewPage, deps);
      await integrations.register(apiKeyPages, deps);
      await integrations.register(applicationPages, deps);
      await integrations.register(connectedAppPages, deps);
      await integrations.register(webhookPages, deps);
      await integrations.register(sandboxPages, deps);
    });
    await signedIn.register(async (settings) => {
      settings.addHook("preHandler", requireMay(deps.ctx, "settings"));
      await settings.register(settingsPages, deps);
      await settings.register(brandPages, deps);
      await settings.register(bookingSettingsPages, deps);
      await settings.register(orderDateSettingsPages, deps);
    });
    await signedIn.register(async (team) => {
      team.addHook("preHandler", requireMay(deps.ctx, "team"));
      await team.register(teamPages, deps);
    });
    // Every member: their own password, name and sign-out.
    await signedIn.register(accountPages, deps);
    await signedIn.register(async (activity) => {
      activity.addHook("preHandler", requireMay(deps.ctx, "activity"));
      await activity.register(activityPage, deps);
    });
  });
}
