// Integrations → Connected applications: the applications this vendor authorized, their scopes
// and last token issued; disconnecting one revokes every grant and token it holds for the vendor.
import type { FastifyInstance } from "fastify";
import { isScope, scopeDescriptions } from "../../auth/scopes.ts";
import {
  disconnectApplication,
  lastTokenIssuedAt,
  listConnectedApplications,
} from "../../modules/connections/connections.service.ts";
import { actionButton, runAction } from "../../web/form-actions.ts";
import { html } from "../../web/html.ts";
import type { DashboardDeps } from "../deps.ts";
import { dashboardPage, emptyState, time } from "../layout.ts";
import { pageContext, vendorIdOf } from "../page-context.ts";

const BASE = "/dashboard/integrations/connected-apps";

export async function connectedAppPages(app: FastifyInstance, { ctx, config }: DashboardDeps): Promise<void> {
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
<td>${actionButton(page.csrf, `${BASE}/${c.applicationId}/revoke`, "Revoke access", { danger: true })}</td>
</tr>`,
          )}</tbody></table></div>`;
    return reply
      .type("text/html; charset=utf-8")
      .send(dashboardPage(page, "connected-apps", "Connected applications", body));
  });

  app.post<{ Params: { id: string } }>(
    `${BASE}/:id/revoke`,
    { schema: { hide: true }, preHandler: app.csrfProtection },
    async (request, reply) =>
      runAction(reply, { ctx, config }, { done: BASE }, async () => {
        await disconnectApplication(ctx, vendorIdOf(request), request.params.id);
        return { kind: "success", message: "Access revoked: the application's tokens no longer work." };
      }),
  );
}
