// Integrations → API keys: create (name, optional scope restriction, live or test; the key is shown
// once in the flash), list with prefix, scopes, created and last use, revoke. Test keys (the
// sandbox's, CONTRACT 11) are listed and revoked here with the shop's own, marked "Test".

import type { FastifyInstance } from "fastify";
import { allScopes, scopeDescriptions } from "../../auth/scopes.ts";
import { notFound } from "../../errors.ts";
import {
  createApiKey,
  listApiKeysOfVendor,
  revokeApiKey,
  TEST_API_KEY_PREFIX,
} from "../../modules/api-keys/api-keys.service.ts";
import { csrfField } from "../../web/browser-scope.ts";
import { field, fields } from "../../web/form.ts";
import { runAction } from "../../web/form-actions.ts";
import { html } from "../../web/html.ts";
import { confirmedAction, confirmLink } from "../confirm-step.ts";
import type { DashboardDeps } from "../deps.ts";
import { dashboardPage, emptyState, time } from "../layout.ts";
import { pageContext, vendorIdOf } from "../page-context.ts";
import { SANDBOX_PAGE } from "./sandbox.pages.ts";

const BASE = "/dashboard/integrations/api-keys";

export async function apiKeyPages(app: FastifyInstance, deps: DashboardDeps): Promise<void> {
  const { ctx, config } = deps;
  app.get(BASE, { schema: { hide: true } }, async (request, reply) => {
    const page = await pageContext(ctx, request, reply);
    const keys = await listApiKeysOfVendor(ctx, vendorIdOf(request));
    const list =
      keys.length === 0
        ? emptyState("No API keys yet. Create one below to call the API from your own software.")
        : html`<div class="table-wrap"><table>
<thead><tr><th>Name</th><th>Prefix</th><th>Scopes</th><th class="optional">Created</th><th>Last used</th><th></th></tr></thead>
<tbody>${keys.map(
            (k) => html`<tr data-key-id="${k.id}">
<td>${k.name}${k.test ? html` <a class="badge test" href="${SANDBOX_PAGE}">Test</a>` : ""}</td><td><code class="nowrap">${k.prefix}…</code></td>
<td>${k.scopes ? k.scopes.map((s) => html`<span class="badge">${s}</span> `) : html`<span class="muted">All scopes</span>`}</td>
<td class="optional">${time(k.createdAt, page.timeZone)}</td><td>${time(k.lastUsedAt, page.timeZone)}</td>
<td>${k.revokedAt ? html`<span class="badge">Revoked</span>` : confirmLink(`${BASE}/${k.id}/revoke`, "Revoke")}</td>
</tr>`,
          )}</tbody></table></div>`;
    const body = html`${list}
<h2>Create an API key</h2>
<form method="post" action="${BASE}">${csrfField(page.csrf)}
<label for="key-name">Name</label><input id="key-name" name="name" required maxlength="100" placeholder="Shop back office">
<fieldset><legend>Restrict to scopes (none ticked: every scope)</legend>
${allScopes.map((s) => html`<label class="check"><input type="checkbox" name="scopes" value="${s}"> <code>${s}</code> <span class="muted">${scopeDescriptions[s]}</span></label>`)}
</fieldset>
<label class="check"><input type="checkbox" name="test" value="on"> Test key (<code>vk_test_…</code>) <span class="muted">for your <a href="${SANDBOX_PAGE}">sandbox</a>: its own test data, never your live orders or customers</span></label>
<div class="actions"><button type="submit" class="primary">Create key</button></div>
</form>`;
    return reply.type("text/html; charset=utf-8").send(dashboardPage(page, "api-keys", "API keys", body));
  });

  app.post(BASE, { schema: { hide: true }, preHandler: app.csrfProtection }, async (request, reply) => {
    return runAction(reply, { ctx, config }, { done: BASE }, async (form) => {
      const { row, key } = await createApiKey(ctx, {
        vendorId: vendorIdOf(request),
        name: field(form, "name"),
        scopes: fields(form, "scopes"),
        test: field(form, "test") === "on",
      });
      const message = key.startsWith(TEST_API_KEY_PREFIX)
        ? `Test key “${row.name}” created. It works on your sandbox only.`
        : `API key “${row.name}” created.`;
      return { kind: "success", message, secret: key };
    });
  });

  confirmedAction(app, deps, `${BASE}/:id/revoke`, {
    confirmation: async (request) => {
      const id = request.params.id;
      const key = (await listApiKeysOfVendor(ctx, vendorIdOf(request))).find(
        (k) => k.id === id && !k.revokedAt,
      );
      if (!key) throw notFound("API key");
      return {
        section: "api-keys",
        title: `Revoke the API key “${key.name}”?`,
        consequence: `Software using the key ${key.prefix}… is refused from its next request on.`,
        button: "Revoke key",
        back: BASE,
      };
    },
    act: async (request) => {
      if (!(await revokeApiKey(ctx, vendorIdOf(request), request.params.id ?? ""))) throw notFound("API key");
      return { kind: "success", message: "API key revoked. Requests with it are refused from now on." };
    },
    done: () => BASE,
  });
}
