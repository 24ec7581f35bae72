// Integrations → Connected applications: the applications this vendor authorized, their scopes
// and last token issued; disconnecting one revokes every grant and token it holds for the vendor.
import type { FastifyInstance } from "fastify";
import { isScope, scopeDescriptions } from "../../auth/scopes.ts";
import { notFound } from "../../errors.ts";
import {
  disconnectApplication,
  lastTokenIssuedAt,
  listConnectedApplications,
} from "../../modules/connections/connections.service.ts";
import { html } from "../../web/html.ts";
import { confirmedAction, confirmLink } from "../confirm-step.ts";
import type { DashboardDeps } from "../deps.ts";
import { dashboardPage, emptyState, time } from "../layout.ts";
import { pageContext, vendorIdOf } from "../page-context.ts";

const BASE = "/dashboard/integrations/connected-apps";

export async function connectedAppPages(app: FastifyInstance, deps: DashboardDeps): Promise<void> {
  const { ctx } = deps;
  app.get(BASE, { schema: { hide: true } }, async (request, reply) => {
    const page = await pageContext(ctx, request, reply);
    const vendorId = vendorIdOf(request);
    const [connected, lastUse] = await Promise.all([
      listConnectedApplications(ctx, vendorId),
      lastTokenIssuedAt(ctx, vendorId),
    ]);
    const body =
      connected.length === 0
        ? emptyState("No application has access to your account.")
        : html`<div class="table-wrap"><table>
<thead><tr><th>Application</th><th>Scopes</th><th class="optional">Connected</th><th>Last token issued</th><th></th></tr></thead>
<tbody>${connected.map(
            (c) => html`<tr data-application-id="${c.applicationId}">
<td>${c.name}<br><code class="muted">${c.clientId}</code></td>
<td><ul class="scopes">${c.scopes.map((s) => html`<li>${isScope(s) ? scopeDescriptions[s] : s} <span class="badge">${s}</span></li>`)}</ul></td>
<td class="optional">${time(c.connectedAt, page.timeZone)}</td>
<td>${time(lastUse.get(c.applicationId), page.timeZone)}</td>
<td>${confirmLink(`${BASE}/${c.applicationId}/revoke`, "Revoke access")}</td>
</tr>`,
          )}</tbody></table></div>`;
    return reply
      .type("text/html; charset=utf-8")
      .send(dashboardPage(page, "connected-apps", "Connected applications", body));
  });

  confirmedAction(app, deps, `${BASE}/:id/revoke`, {
    confirmation: async (request) => {
      const id = request.params.id;
      const connected = (await listConnectedApplications(ctx, vendorIdOf(request))).find(
        (c) => c.applicationId === id,
      );
      if (!connected) throw notFound("Connected application");
      return {
        section: "connected-apps",
        title: `Revoke the access of “${connected.name}”?`,
        consequence: "Its tokens stop working at once; to connect it again, someone must authorize it again.",
        button: "Revoke access",
        back: BASE,
      };
    },
    act: async (request) => {
      await disconnectApplication(ctx, vendorIdOf(request), request.params.id ?? "");
      return { kind: "success", message: "Access revoked: the application's tokens no longer work." };
    },
    done: () => BASE,
  });
}
