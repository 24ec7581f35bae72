// Dashboard → Integrations: the landing page for API keys, Applications, Connected apps and
// Webhooks, each with its count and, for webhooks, their health (failing or disabled ones first).
import type { FastifyInstance } from "fastify";
import { listApiKeysOfVendor } from "../../modules/api-keys/api-keys.service.ts";
import { listApplications } from "../../modules/applications/applications.service.ts";
import { listConnectedApplications } from "../../modules/connections/connections.service.ts";
import { isFailing, webhookHealth } from "../../modules/webhooks/webhook-health.ts";
import { listWebhooks } from "../../modules/webhooks/webhooks.service.ts";
import { html, type SafeHtml } from "../../web/html.ts";
import type { DashboardDeps } from "../deps.ts";
import { dashboardPage } from "../layout.ts";
import { pageContext, vendorIdOf } from "../page-context.ts";
import { say } from "./text.ts";

function card(href: string, title: string, summary: string, detail: SafeHtml | string, id: string): SafeHtml {
  return html`<section class="card integration" data-integration="${id}">
<h2><a href="${href}">${title}</a></h2>
<p class="count">${summary}</p>
<p class="muted">${detail}</p>
</section>`;
}

export async function integrationsOverviewPage(app: FastifyInstance, { ctx }: DashboardDeps): Promise<void> {
  app.get("/dashboard/integrations", { schema: { hide: true } }, async (request, reply) => {
    const vendorId = vendorIdOf(request);
    const [page, keys, apps, connected, { webhooks }, health] = await Promise.all([
      pageContext(ctx, request, reply),
      listApiKeysOfVendor(ctx, vendorId),
      listApplications(ctx, vendorId),
      listConnectedApplications(ctx, vendorId),
      listWebhooks(ctx, vendorId),
      webhookHealth(ctx, vendorId),
    ]);
    const activeKeys = keys.filter((k) => !k.revokedAt).length;
    const disabled = webhooks.filter((w) => w.status !== "ACTIVE").length;
    const failing = webhooks.filter((w) => w.status === "ACTIVE" && isFailing(health.get(w.id))).length;
    const { t } = page;
    const webhookState =
      webhooks.length === 0
        ? say(t, "overview.webhooksHint")
        : disabled + failing === 0
          ? html`<span class="health ok" data-health="healthy">${say(t, "overview.allDelivering")}</span>`
          : html`<span class="health bad" data-health="${failing > 0 ? "failing" : "disabled"}">${[
              failing ? say(t, "overview.failing", { count: failing }) : "",
              disabled ? say(t, "overview.disabled", { count: disabled }) : "",
            ]
              .filter(Boolean)
              .join(", ")}</span>`;
    const body = html`<p class="muted">${say(t, "overview.intro")}</p>
<div class="cards-grid">
${card("/dashboard/integrations/api-keys", t.t("dashboard.nav.apiKeys"), say(t, "overview.activeKeys", { count: activeKeys }), say(t, "overview.apiKeysHint"), "api-keys")}
${card("/dashboard/integrations/applications", t.t("dashboard.nav.applications"), say(t, "overview.applications", { count: apps.length }), say(t, "overview.applicationsHint"), "applications")}
${card("/dashboard/integrations/connected-apps", t.t("dashboard.nav.connectedApps"), say(t, "overview.connectedApps", { count: connected.length }), say(t, "overview.connectedAppsHint"), "connected-apps")}
${card("/dashboard/integrations/webhooks", t.t("dashboard.nav.webhooks"), say(t, "overview.webhooks", { count: webhooks.length }), webhookState, "webhooks")}
</div>`;
    return reply
      .type("text/html; charset=utf-8")
      .send(dashboardPage(page, "integrations", t.t("dashboard.nav.integrations"), body));
  });
}
