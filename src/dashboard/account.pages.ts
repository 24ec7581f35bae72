// Account: the member's own name, and change the password (current + new + confirm). Changing it revokes every OAuth grant
// and signs out every OTHER session; this browser stays signed in. Sign-out is the header form.

import type { FastifyInstance } from "fastify";
import { roleLabels } from "../auth/member-policy.ts";
import { fieldError } from "../errors.ts";
import { changeMemberPassword, renameMember } from "../modules/members/members.service.ts";
import { csrfField } from "../web/browser-scope.ts";
import { field } from "../web/form.ts";
import { runAction } from "../web/form-actions.ts";
import { html } from "../web/html.ts";
import type { DashboardDeps } from "./deps.ts";
import { dashboardPage } from "./layout.ts";
import { memberOf, pageContext, vendorIdOf } from "./page-context.ts";

const BASE = "/dashboard/account";

export async function accountPages(app: FastifyInstance, { ctx, config }: DashboardDeps): Promise<void> {
  app.get(BASE, { schema: { hide: true } }, async (request, reply) => {
    const page = await pageContext(ctx, request, reply);
    const me = memberOf(request);
    const body = html`<p>Signed in as <strong>${me.email}</strong> (${roleLabels[me.role].toLowerCase()}).</p>
<h2>Your name</h2>
<form method="post" action="${BASE}/name">${csrfField(page.csrf)}
<label for="member-name">Name (shown to your team)</label><input id="member-name" name="name" autocomplete="name" required maxlength="100" value="${me.name === me.email ? "" : me.name}">
<div class="actions"><button type="submit">Save name</button></div>
</form>
<h2>Change password</h2>
<p class="muted">Every connected application loses access and every other signed-in browser is signed out; this one stays signed in.</p>
<form method="post" action="${BASE}/password">${csrfField(page.csrf)}
<label for="current">Current password</label><input id="current" name="currentPassword" type="password" autocomplete="current-password" required>
<label for="new">New password (at least 10 characters)</label><input id="new" name="newPassword" type="password" autocomplete="new-password" minlength="10" required>
<label for="confirm">Repeat the new password</label><input id="confirm" name="confirmPassword" type="password" autocomplete="new-password" minlength="10" required>
<div class="actions"><button type="submit" class="primary">Change password</button></div>
</form>
<h2>Sign out</h2>
<form method="post" action="/logout">${csrfField(page.csrf)}<button type="submit">Sign out of this browser</button></form>`;
    return reply.type("text/html; charset=utf-8").send(dashboardPage(page, "account", "Account", body));
  });

  app.post(
    `${BASE}/name`,
    { schema: { hide: true }, preHandler: app.csrfProtection },
    async (request, reply) =>
      runAction(reply, { ctx, config }, { done: BASE }, async (form) => {
        await renameMember(ctx, vendorIdOf(request), memberOf(request).id, field(form, "name"));
        return { kind: "success", message: "Name saved." };
      }),
  );

  app.post(
    `${BASE}/password`,
    { schema: { hide: true }, preHandler: app.csrfProtection },
    async (request, reply) => {
      const session = request.dashboardSession;
      return runAction(reply, { ctx, config }, { done: BASE }, async (form) => {
        if (!session) throw new Error("account page without a session");
        const newPassword = field(form, "newPassword");
        if (newPassword !== field(form, "confirmPassword")) {
          throw fieldError("validation_failed", "confirmPassword", "does not match the new password");
        }
        await changeMemberPassword(
          ctx,
          session.vendorId,
          session.member.id,
          { currentPassword: field(form, "currentPassword"), newPassword },
          { keepSessionId: session.sessionId },
        );
        return {
          kind: "success",
          message: "Password changed. Connected applications lost access and other browsers were signed out.",
        };
      });
    },
  );
}
