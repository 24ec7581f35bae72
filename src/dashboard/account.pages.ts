// Account: the member's own name, and change the password (current + new + confirm). Changing it revokes every OAuth grant
// and signs out every OTHER session; this browser stays signed in. Sign-out is the header form.

import type { FastifyInstance } from "fastify";
import { roleLabels } from "../auth/member-policy.ts";
import { fieldError } from "../errors.ts";
import { changeMemberPassword, renameMember } from "../modules/members/members.service.ts";
import {
  confirmTwoStepSetup,
  pendingTwoStepSetup,
  turnOffTwoStep,
  twoStepKey,
  twoStepStatus,
} from "../modules/members/two-step.service.ts";
import { csrfField } from "../web/browser-scope.ts";
import { field } from "../web/form.ts";
import { runAction } from "../web/form-actions.ts";
import { html } from "../web/html.ts";
import type { DashboardDeps } from "./deps.ts";
import { dashboardPage } from "./layout.ts";
import { memberOf, pageContext, vendorIdOf } from "./page-context.ts";
import { withThrottledSecret } from "./throttled-check.ts";
import { qrSvg, setupInstructions } from "./two-step.routes.ts";

const BASE = "/dashboard/account";

export async function accountPages(
  app: FastifyInstance,
  { ctx, config, throttle }: DashboardDeps,
): Promise<void> {
  app.get(BASE, { schema: { hide: true } }, async (request, reply) => {
    const page = await pageContext(ctx, request, reply);
    const me = memberOf(request);
    const twoStep = await twoStepStatus(ctx, vendorIdOf(request), me.id);
    const twoStepSection = twoStep.enabled
      ? html`<p>Two-step sign-in is <strong>on</strong>: after your password you type the code of your authenticator app. ${twoStep.recoveryCodesLeft} recovery code(s) left.</p>
${
  twoStep.shopRequires
    ? html`<p class="muted">Your shop requires it, so it cannot be turned off here.</p>`
    : html`<form method="post" action="${BASE}/two-step/off">${csrfField(page.csrf)}
<label for="off-password">Your password, to turn it off</label><input id="off-password" name="password" type="password" autocomplete="current-password" required>
<div class="actions"><button type="submit" class="danger">Turn off two-step sign-in</button></div>
</form>`
}`
      : html`<p>Two-step sign-in is off. With it on, signing in also asks for a code from an authenticator app on your phone.</p>
<p><a class="button primary" href="${BASE}/two-step">Set up two-step sign-in</a></p>`;
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
<h2>Two-step sign-in</h2>
${twoStepSection}
<h2>Sign out</h2>
<form method="post" action="/logout">${csrfField(page.csrf)}<button type="submit">Sign out of this browser</button></form>`;
    return reply.type("text/html; charset=utf-8").send(dashboardPage(page, "account", "Account", body));
  });

  const key = twoStepKey(config.sessionSecret);
  app.get(`${BASE}/two-step`, { schema: { hide: true } }, async (request, reply) => {
    const setup = await pendingTwoStepSetup(ctx, key, vendorIdOf(request), memberOf(request).id);
    if (!setup) return reply.code(303).header("location", BASE).send();
    const page = await pageContext(ctx, request, reply);
    const body = html`${setupInstructions(await qrSvg(setup.uri), setup.secret)}
<form method="post" action="${BASE}/two-step">${csrfField(page.csrf)}
<label for="code">Code from your authenticator app</label><input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="6">
<div class="actions"><button type="submit" class="primary">Turn on two-step sign-in</button><a class="button" href="${BASE}">Not now</a></div>
</form>`;
    return reply
      .type("text/html; charset=utf-8")
      .send(dashboardPage(page, "account", "Set up two-step sign-in", body));
  });

  app.post(
    `${BASE}/two-step`,
    { schema: { hide: true }, preHandler: app.csrfProtection },
    async (request, reply) =>
      runAction(reply, { ctx, config }, { done: BASE, back: `${BASE}/two-step` }, async (form) => {
        const codes = await confirmTwoStepSetup(
          ctx,
          key,
          vendorIdOf(request),
          memberOf(request).id,
          field(form, "code"),
          request.dashboardSession?.sessionId,
        );
        return {
          kind: "success",
          message:
            "Two-step sign-in is on, and your other browsers were signed out. Keep these recovery codes somewhere safe: each signs you in once without your phone.",
          secret: codes.join("  "),
        };
      }),
  );

  app.post(
    `${BASE}/two-step/off`,
    { schema: { hide: true }, preHandler: app.csrfProtection },
    async (request, reply) =>
      runAction(reply, { ctx, config }, { done: BASE }, async (form) => {
        const me = memberOf(request);
        await withThrottledSecret(throttle, { address: request.ip, account: me.email }, "password", () =>
          turnOffTwoStep(ctx, vendorIdOf(request), me.id, field(form, "password")),
        );
        return { kind: "success", message: "Two-step sign-in is off." };
      }),
  );

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
        const who = { address: request.ip, account: session.member.email };
        await withThrottledSecret(throttle, who, "currentPassword", () =>
          changeMemberPassword(
            ctx,
            session.vendorId,
            session.member.id,
            { currentPassword: field(form, "currentPassword"), newPassword },
            { keepSessionId: session.sessionId },
          ),
        );
        return {
          kind: "success",
          message: "Password changed. Connected applications lost access and other browsers were signed out.",
        };
      });
    },
  );
}
