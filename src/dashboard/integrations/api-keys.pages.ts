// Integrations → API keys: create (name, optional scope restriction, live or test; the key is shown
// once in the flash), list with prefix, scopes, created and last use, revoke. Test keys (the
// sandbox's, CONTRACT 11) are listed and revoked here with the shop's own, marked "Test".

import type { FastifyInstance } from "fastify";
import { allScopes, scopeDescription } from "../../auth/scopes.ts";
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
import { readerOf } from "../../web/reader.ts";
import { confirmedAction, confirmLink } from "../confirm-step.ts";
import type { DashboardDeps } from "../deps.ts";
import { dashboardPage, emptyState, time } from "../layout.ts";
import { pageContext, vendorIdOf } from "../page-context.ts";
import { SANDBOX_PAGE } from "./sandbox.pages.ts";
import { say } from "./text.ts";

const BASE = "/dashboard/integrations/api-keys";

export async function apiKeyPages(app: FastifyInstance, deps: DashboardDeps): Promise<void> {
  const { ctx, config } = deps;
  app.get(BASE, { schema: { hide: true } }, async (request, reply) => {
    const page = await pageContext(ctx, request, reply);
    const { t } = page;
    const keys = await listApiKeysOfVendor(ctx, vendorIdOf(request));
    const list =
      keys.length === 0
        ? emptyState(say(t, "apiKeys.empty"))
        : html`<div class="table-wrap"><table>
<thead><tr><th>${t.t("common.name")}</th><th>${say(t, "column.prefix")}</th><th>${say(t, "column.scopes")}</th><th class="optional">${say(t, "column.created")}</th><th>${say(t, "column.lastUsed")}</th><th></th></tr></thead>
<tbody>${keys.map(
            (k) => html`<tr data-key-id="${k.id}">
<td>${k.name}${k.test ? html` <a class="badge test" href="${SANDBOX_PAGE}">${say(t, "apiKeys.testBadge")}</a>` : ""}</td><td><code class="nowrap">${k.prefix}…</code></td>
<td>${k.scopes ? k.scopes.map((s) => html`<span class="badge">${s}</span> `) : html`<span class="muted">${say(t, "apiKeys.allScopes")}</span>`}</td>
<td class="optional">${time(k.createdAt, page.timeZone, t)}</td><td>${time(k.lastUsedAt, page.timeZone, t)}</td>
<td>${k.revokedAt ? html`<span class="badge">${say(t, "apiKeys.revoked")}</span>` : confirmLink(`${BASE}/${k.id}/revoke`, say(t, "apiKeys.revoke"))}</td>
</tr>`,
          )}</tbody></table></div>`;
    const body = html`${list}
<h2>${say(t, "apiKeys.createHeading")}</h2>
<form method="post" action="${BASE}">${csrfField(page.csrf)}
<label for="key-name">${t.t("common.name")}</label><input id="key-name" name="name" required maxlength="100" placeholder="${say(t, "apiKeys.namePlaceholder")}">
<fieldset><legend>${say(t, "apiKeys.restrict")}</legend>
${allScopes.map((s) => html`<label class="check"><input type="checkbox" name="scopes" value="${s}"> <code>${s}</code> <span class="muted">${scopeDescription(t, s)}</span></label>`)}
</fieldset>
<label class="check"><input type="checkbox" name="test" value="on"> ${say(t, "apiKeys.testKey")} (<code>vk_test_…</code>) <span class="muted">${say(t, "apiKeys.testKeyBefore")} <a href="${SANDBOX_PAGE}">${say(t, "apiKeys.testKeyLink")}</a>${say(t, "apiKeys.testKeyAfter")}</span></label>
<div class="actions"><button type="submit" class="primary">${say(t, "apiKeys.submit")}</button></div>
</form>`;
    return reply
      .type("text/html; charset=utf-8")
      .send(dashboardPage(page, "api-keys", t.t("dashboard.nav.apiKeys"), body));
  });

  app.post(BASE, { schema: { hide: true }, preHandler: app.csrfProtection }, async (request, reply) => {
    const { t } = readerOf(request);
    return runAction(reply, { ctx, config }, { done: BASE }, async (form) => {
      const { row, key } = await createApiKey(ctx, {
        vendorId: vendorIdOf(request),
        name: field(form, "name"),
        scopes: fields(form, "scopes"),
        test: field(form, "test") === "on",
      });
      const message = key.startsWith(TEST_API_KEY_PREFIX)
        ? say(t, "apiKeys.createdTest", { name: row.name })
        : say(t, "apiKeys.created", { name: row.name });
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
      const { t } = readerOf(request);
      return {
        section: "api-keys",
        title: say(t, "apiKeys.revokeTitle", { name: key.name }),
        consequence: say(t, "apiKeys.revokeConsequence", { prefix: key.prefix }),
        button: say(t, "apiKeys.revokeButton"),
        back: BASE,
      };
    },
    act: async (request) => {
      if (!(await revokeApiKey(ctx, vendorIdOf(request), request.params.id ?? ""))) throw notFound("API key");
      return { kind: "success", message: say(readerOf(request).t, "apiKeys.revokedFlash") };
    },
    done: () => BASE,
  });
}
