// The signed-in vendor dashboard. Every route registered inside `dashboardRoutes` is behind the
// session (anyone else is sent to /login and back), lives under /dashboard, renders with
// `dashboardPage`, and changes state only through POST forms carrying the CSRF token
// (`preHandler: app.csrfProtection`), answering 303 to a page that shows a flash message.
import fs from "node:fs";
import type { FastifyInstance } from "fastify";
import type { Config } from "../config.ts";
import type { ServiceContext } from "../context.ts";
import { accountPages } from "./account.pages.ts";
import { apiKeyPages } from "./integrations/api-keys.pages.ts";
import { applicationPages } from "./integrations/applications.pages.ts";
import { connectedAppPages } from "./integrations/connected-apps.pages.ts";
import { webhookPages } from "./integrations/webhooks.pages.ts";
import { appointmentPages } from "./pages/appointments.pages.ts";
import { customerPages } from "./pages/customers.pages.ts";
import { inquiryPages } from "./pages/inquiries.pages.ts";
import { orderPages } from "./pages/orders.pages.ts";
import { trackingPage } from "./pages/tracking.page.ts";
import { requireSession } from "./require-session.ts";

export interface DashboardDeps {
  ctx: ServiceContext;
  config: Config;
}

const stylesheet = fs.readFileSync(new URL("./assets/dashboard.css", import.meta.url), "utf8");
const copyScript = fs.readFileSync(new URL("./assets/copy-secret.js", import.meta.url), "utf8");

export async function dashboardRoutes(app: FastifyInstance, deps: DashboardDeps): Promise<void> {
  app.get("/assets/dashboard.css", { schema: { hide: true } }, async (_request, reply) =>
    reply.type("text/css; charset=utf-8").header("cache-control", "public, max-age=3600").send(stylesheet),
  );
  app.get("/assets/copy-secret.js", { schema: { hide: true } }, async (_request, reply) =>
    reply
      .type("text/javascript; charset=utf-8")
      .header("cache-control", "public, max-age=3600")
      .send(copyScript),
  );
  app.get("/", { schema: { hide: true } }, async (_request, reply) => reply.redirect("/dashboard", 303));
  // Public: the customer's tracking page (no session; the link's token is the credential).
  await app.register(trackingPage, deps);

  await app.register(async (signedIn) => {
    signedIn.addHook("preHandler", requireSession(deps.ctx));
    signedIn.get("/dashboard", { schema: { hide: true } }, async (_request, reply) =>
      reply.redirect("/dashboard/orders", 303),
    );
    // Page groups register here, each a plugin taking DashboardDeps.
    await signedIn.register(orderPages, deps);
    await signedIn.register(customerPages, deps);
    await signedIn.register(appointmentPages, deps);
    await signedIn.register(inquiryPages, deps);
    await signedIn.register(apiKeyPages, deps);
    await signedIn.register(applicationPages, deps);
    await signedIn.register(connectedAppPages, deps);
    await signedIn.register(webhookPages, deps);
    await signedIn.register(accountPages, deps);
  });
}
