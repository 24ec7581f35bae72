// Integrations → Connected applications: the applications this vendor authorized, their scopes
// and last token issued; disconnecting one revokes every grant and token it holds for the vendor.
import type { FastifyInstance } from "fastify";
import { isScope, scopeDescription } from "../../auth/scopes.ts";
import { notFound } from "../../errors.ts";
import {
  disconnectApplication,
  lastTokenIssuedAt,
  listConnectedApplications,
} from "../../modules/connections/connections.service.ts";
import { html } from "../../web/html.ts";
import { readerOf } from "../../web/reader.ts";
import { confirmedAction, confirmLink } from "../confirm-step.ts";
import type { DashboardDeps } from "../deps.ts";
import { dashboardPage, emptyState, time } from "../layout.ts";
import { pageContext, vendorIdOf } from "../page-context.ts";
import { say } from "./text.ts";

const BASE = "/dashboard/integrations/connected-apps";

export async function connectedAppPages(app: FastifyInstance, deps: DashboardDeps): Promise<void> {
  const { ctx } = deps;
  app.get(BASE, { schema: { hide: true } }, async (request, reply) => {
    const page = await pageContext(ctx, request, reply);
    const { t } = page;
    const vendorId = vendorIdOf(request);
    const [connected, lastUse] = await Promise.all([
      listConnectedApplications(ctx, vendorId),
      lastTokenIssuedAt(ctx, vendorId),
    ]);
    const body =
      connected.length === 0
        ? emptyState(say(t, "connectedApps.empty"))
        : html`<div class="table-wrap"><table>
<thead><tr><th>${say(t, "column.application")}</th><th>${say(t, "column.scopes")}</th><th class="optional">${say(t, "column.connected")}</th><th>${say(t, "column.lastToken")}</th><th></th></tr></thead>
<tbody>${connected.map(
            (c) => html`<tr data-application-id="${c.applicationId}">
<td>${c.name}<br><code class="muted">${c.clientId}</code></td>
<td><ul class="scopes">${c.scopes.map((s) => html`<li>${isScope(s) ? scopeDescription(t, s) : s} <span class="badge">${s}</span></li>`)}</ul></td>
<td class="optional">${time(c.connectedAt, page.timeZone, t)}</td>
<td>${time(lastUse.get(c.applicationId), page.timeZone, t)}</td>
<td>${confirmLink(`${BASE}/${c.applicationId}/revoke`, say(t, "connectedApps.revoke"))}</td>
</tr>`,
          )}</tbody></table></div>`;
    return reply
      .type("text/html; charset=utf-8")
      .send(dashboardPage(page, "connected-apps", say(t, "connectedApps.title"), body));
  });

  confirmedAction(app, deps, `${BASE}/:id/revoke`, {
    confirmation: async (request) => {
      const id = request.params.id;
      const connected = (await listConnectedApplications(ctx, vendorIdOf(request))).find(
        (c) => c.applicationId === id,
      );
      if (!connected) throw notFound("Connected application");
      const { t } = readerOf(request);
      return {
        section: "connected-apps",
        title: say(t, "connectedApps.revokeTitle", { name: connected.name }),
        consequence: say(t, "connectedApps.revokeConsequence"),
        button: say(t, "connectedApps.revoke"),
        back: BASE,
      };
    },
    act: async (request) => {
      await disconnectApplication(ctx, vendorIdOf(request), request.params.id ?? "");
      return { kind: "success", message: say(readerOf(request).t, "connectedApps.revoked") };
    },
    done: () => BASE,
  });
}
