// Settings → Team (owners only, guarded in dashboard.routes.ts): the shop's members and their
// roles, invitations by e-mail, role changes, removal and resetting a member's lost authenticator
// (each a confirmation step; the member's sessions end at once). The last owner can be neither demoted nor removed (members.service.ts).
import type { FastifyInstance } from "fastify";
import { ROLES } from "../auth/member-policy.ts";
import type { Translator } from "../i18n/translator.ts";
import { cancelInvitation, inviteMember, listInvitations } from "../modules/members/invitations.service.ts";
import {
  changeMemberRole,
  displayName,
  getMember,
  type LeavingEffects,
  listTeam,
  removeMember,
} from "../modules/members/members.service.ts";
import {
  resetMemberTwoStep,
  setShopRequiresTwoStep,
  twoStepStatus,
} from "../modules/members/two-step.service.ts";
import { csrfField, sendPage } from "../web/browser-scope.ts";
import { field } from "../web/form.ts";
import { actionButton, runAction } from "../web/form-actions.ts";
import { inputField, selectField } from "../web/form-fields.ts";
import { html, SafeHtml } from "../web/html.ts";
import { readerOf } from "../web/reader.ts";
import { confirmedAction, confirmLink } from "./confirm-step.ts";
import type { DashboardDeps } from "./deps.ts";
import { dashboardPage, time } from "./layout.ts";
import { messageWith, refusalsIn, sayingRefusals } from "./message-markup.ts";
import { memberOf, pageContext, vendorIdOf } from "./page-context.ts";

export const TEAM = "/dashboard/settings/team";

/** What a removal or demotion also did, told to the owner who did it (members.service.ts). */
function leavingNote(t: Translator, effects: LeavingEffects): string {
  const revoked = effects.invitationsRevoked;
  return [
    revoked > 0 ? ` ${t.t("dashboard.team.leaving.invitationsRevoked", { count: revoked })}` : "",
    effects.notificationEmailMovedTo
      ? ` ${t.t("dashboard.team.leaving.notificationsMoved", { email: effects.notificationEmailMovedTo })}`
      : "",
  ].join("");
}

const roleOptions = (t: Translator) => ROLES.map((r) => [r, t.t(`dashboard.team.role.${r}`)] as const);

/** The services' refusals on this page (their English is the catalogue's), in the reader's words. */
const refusalKeys = [
  "emailInvalid",
  "roleInvalid",
  "alreadyMember",
  "lastOwner",
  "resetOwn",
  "resetNone",
].map((k) => `dashboard.team.errors.${k}`);
const inReaderWords = <T>(t: Translator, action: () => Promise<T>) =>
  sayingRefusals(refusalsIn(t, refusalKeys), action);

export async function teamPages(app: FastifyInstance, deps: DashboardDeps): Promise<void> {
  const { ctx, config } = deps;

  app.get(TEAM, { schema: { hide: true } }, async (request, reply) => {
    const vendorId = vendorIdOf(request);
    const me = memberOf(request);
    const [page, team, invitations, status] = await Promise.all([
      pageContext(ctx, request, reply),
      listTeam(ctx, vendorId),
      listInvitations(ctx, vendorId),
      twoStepStatus(ctx, vendorId, me.id),
    ]);
    const { t } = page;
    const k = (key: string, values?: Record<string, string>) => t.t(`dashboard.team.${key}`, values);
    const roles = roleOptions(t);
    const members = html`<div class="table-wrap"><table>
<thead><tr><th>${k("name")}</th><th>${k("roleLabel")}</th><th class="optional">${k("memberSince")}</th><th></th></tr></thead>
<tbody>${team.map(
      (m) => html`<tr data-member-id="${m.id}">
<td>${displayName(m)}${m.id === me.id ? html` <span class="badge">${k("you")}</span>` : ""}${m.twoStep ? html` <span class="badge">${k("twoStepOn")}</span>` : ""}${m.name.trim() ? html`<div class="muted">${m.email}</div>` : ""}</td>
<td><form class="inline" method="post" action="${TEAM}/${m.id}/role">${csrfField(page.csrf)}
<select name="role" aria-label="${k("roleOf", { name: displayName(m) })}">${roles.map(([value, label]) => html`<option value="${value}"${value === m.role ? html` selected` : ""}>${label}</option>`)}</select>
<button type="submit">${k("changeRole")}</button></form></td>
<td class="optional">${time(m.createdAt, page.timeZone, t)}</td>
<td>${m.twoStep && m.id !== me.id ? html`${confirmLink(`${TEAM}/${m.id}/two-step/reset`, k("resetTwoStep"))} ` : ""}${confirmLink(`${TEAM}/${m.id}/remove`, k("removeLink"))}</td>
</tr>`,
    )}</tbody></table></div>`;
    const pending =
      invitations.length === 0
        ? html``
        : html`<h2>${k("invitations")}</h2><ul class="plain">${invitations.map(
            (
              i,
            ) => html`<li data-invitation-id="${i.id}">${i.email} <span class="badge">${k(`role.${i.role}`)}</span>
<span class="muted">${messageWith(t, `dashboard.team.${i.expired ? "expired" : "validUntil"}`, {}, { time: time(i.expiresAt, page.timeZone, t) })}</span>
${actionButton(page.csrf, `${TEAM}/invitations/${i.id}/cancel`, k("cancelInvitation"))}</li>`,
          )}</ul>`;
    const body = html`<p class="muted">${k("intro")}</p>
${members}
${pending}
<h2>${k("twoStep")}</h2>
<form method="post" action="${TEAM}/two-step">${csrfField(page.csrf)}
<label class="check"><input type="checkbox" name="required" value="on"${status.shopRequires ? new SafeHtml(" checked") : ""}> ${k("require")}</label>
<p class="muted">${k("requireHint")}</p>
<div class="actions"><button type="submit">${t.t("common.save")}</button></div>
</form>
<h2>${k("invite")}</h2>
<form method="post" action="${TEAM}/invitations" class="edit-form">${csrfField(page.csrf)}
${inputField({ name: "email", label: t.t("common.email"), type: "email", required: true, maxLength: 254 })}
${selectField({ name: "role", label: k("roleLabel"), value: "staff", required: true, options: roles })}
<p class="muted">${k("inviteHint")}</p>
<div class="actions"><button type="submit" class="primary">${k("send")}</button></div>
</form>`;
    return sendPage(reply, 200, dashboardPage(page, "team", k("title"), body));
  });

  app.post(
    `${TEAM}/invitations`,
    { schema: { hide: true }, preHandler: app.csrfProtection },
    async (request, reply) =>
      runAction(reply, { ctx, config }, { done: TEAM }, async (form) => {
        const me = memberOf(request);
        const { t } = readerOf(request);
        const invitation = await inReaderWords(t, () =>
          inviteMember(
            ctx,
            vendorIdOf(request),
            { id: me.id, name: me.name },
            { email: field(form, "email"), role: field(form, "role") },
          ),
        );
        return { kind: "success", message: t.t("dashboard.team.flash.invited", { email: invitation.email }) };
      }),
  );

  app.post(
    `${TEAM}/two-step`,
    { schema: { hide: true }, preHandler: app.csrfProtection },
    async (request, reply) =>
      runAction(reply, { ctx, config }, { done: TEAM }, async (form) => {
        const on = field(form, "required") === "on";
        await setShopRequiresTwoStep(ctx, vendorIdOf(request), on, request.dashboardSession?.sessionId);
        const { t } = readerOf(request);
        return {
          kind: "success",
          message: t.t(`dashboard.team.flash.${on ? "required" : "notRequired"}`),
        };
      }),
  );

  app.post<{ Params: { invitationId: string } }>(
    `${TEAM}/invitations/:invitationId/cancel`,
    { schema: { hide: true }, preHandler: app.csrfProtection },
    async (request, reply) =>
      runAction(reply, { ctx, config }, { done: TEAM }, async () => {
        await cancelInvitation(ctx, vendorIdOf(request), request.params.invitationId);
        return { kind: "success", message: readerOf(request).t.t("dashboard.team.flash.cancelled") };
      }),
  );

  app.post<{ Params: { memberId: string } }>(
    `${TEAM}/:memberId/role`,
    { schema: { hide: true }, preHandler: app.csrfProtection },
    async (request, reply) =>
      runAction(reply, { ctx, config }, { done: TEAM }, async (form) => {
        const { t } = readerOf(request);
        const m = await inReaderWords(t, () =>
          changeMemberRole(ctx, vendorIdOf(request), request.params.memberId, field(form, "role")),
        );
        return {
          kind: "success",
          message: `${t.t("dashboard.team.flash.roleChanged", { name: displayName(m), role: m.role })}${leavingNote(t, m)}`,
        };
      }),
  );

  // A member who lost their authenticator and their recovery codes: an owner turns it off for
  // them (two-step.service.ts, resetMemberTwoStep), after a confirmation step.
  confirmedAction(app, deps, `${TEAM}/:memberId/two-step/reset`, {
    confirmation: async (request) => {
      const m = await getMember(ctx, vendorIdOf(request), request.params.memberId ?? "");
      const { t } = readerOf(request);
      const who = { name: displayName(m), email: m.email };
      return {
        section: "team",
        title: t.t("dashboard.team.reset.title", who),
        consequence: t.t("dashboard.team.reset.consequence", who),
        button: t.t("dashboard.team.reset.button"),
        back: TEAM,
      };
    },
    act: async (request) => {
      const { t } = readerOf(request);
      const m = await inReaderWords(t, () =>
        resetMemberTwoStep(ctx, vendorIdOf(request), memberOf(request).id, request.params.memberId ?? ""),
      );
      return { kind: "success", message: t.t("dashboard.team.reset.done", { name: displayName(m) }) };
    },
    done: () => TEAM,
  });

  confirmedAction(app, deps, `${TEAM}/:memberId/remove`, {
    confirmation: async (request) => {
      const m = await getMember(ctx, vendorIdOf(request), request.params.memberId ?? "");
      const { t } = readerOf(request);
      const who = { name: displayName(m), email: m.email };
      return {
        section: "team",
        title: t.t("dashboard.team.remove.title", who),
        consequence: t.t("dashboard.team.remove.consequence", who),
        button: t.t("dashboard.team.remove.button"),
        back: TEAM,
      };
    },
    act: async (request) => {
      const { t } = readerOf(request);
      const m = await inReaderWords(t, () =>
        removeMember(ctx, vendorIdOf(request), request.params.memberId ?? ""),
      );
      return {
        kind: "success",
        message: `${t.t("dashboard.team.remove.done", { name: displayName(m) })}${leavingNote(t, m)}`,
      };
    },
    done: () => TEAM,
  });
}
