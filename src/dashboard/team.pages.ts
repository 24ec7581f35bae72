// Settings → Team (owners only, guarded in dashboard.routes.ts): the shop's members and their
// roles, invitations by e-mail, role changes, removal and resetting a member's lost authenticator
// (each a confirmation step; the member's sessions end at once). The last owner can be neither demoted nor removed (members.service.ts).
import type { FastifyInstance } from "fastify";
import { ROLES, roleLabels } from "../auth/member-policy.ts";
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
import { confirmedAction, confirmLink } from "./confirm-step.ts";
import type { DashboardDeps } from "./deps.ts";
import { dashboardPage, time } from "./layout.ts";
import { memberOf, pageContext, vendorIdOf } from "./page-context.ts";

export const TEAM = "/dashboard/settings/team";

/** What a removal or demotion also did, told to the owner who did it (members.service.ts). */
function leavingNote(effects: LeavingEffects): string {
  const revoked = effects.invitationsRevoked;
  return [
    revoked > 0
      ? ` ${revoked === 1 ? "The invitation they sent no longer works." : `The ${revoked} invitations they sent no longer work.`}`
      : "",
    effects.notificationEmailMovedTo
      ? ` The shop's notifications now go to ${effects.notificationEmailMovedTo} (Settings).`
      : "",
  ].join("");
}

const roleOptions = ROLES.map((r) => [r, roleLabels[r]] as const);

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
    const members = html`<div class="table-wrap"><table>
<thead><tr><th>Name</th><th>Role</th><th class="optional">Member since</th><th></th></tr></thead>
<tbody>${team.map(
      (m) => html`<tr data-member-id="${m.id}">
<td>${displayName(m)}${m.id === me.id ? html` <span class="badge">You</span>` : ""}${m.twoStep ? html` <span class="badge">Two-step on</span>` : ""}${m.name.trim() ? html`<div class="muted">${m.email}</div>` : ""}</td>
<td><form class="inline" method="post" action="${TEAM}/${m.id}/role">${csrfField(page.csrf)}
<select name="role" aria-label="Role of ${displayName(m)}">${roleOptions.map(([value, label]) => html`<option value="${value}"${value === m.role ? html` selected` : ""}>${label}</option>`)}</select>
<button type="submit">Change role</button></form></td>
<td class="optional">${time(m.createdAt, page.timeZone)}</td>
<td>${m.twoStep && m.id !== me.id ? html`${confirmLink(`${TEAM}/${m.id}/two-step/reset`, "Reset two-step")} ` : ""}${confirmLink(`${TEAM}/${m.id}/remove`, "Remove")}</td>
</tr>`,
    )}</tbody></table></div>`;
    const pending =
      invitations.length === 0
        ? html``
        : html`<h2>Invitations</h2><ul class="plain">${invitations.map(
            (
              i,
            ) => html`<li data-invitation-id="${i.id}">${i.email} <span class="badge">${roleLabels[i.role]}</span>
${i.expired ? html`<span class="muted">expired ${time(i.expiresAt, page.timeZone)}</span>` : html`<span class="muted">valid until ${time(i.expiresAt, page.timeZone)}</span>`}
${actionButton(page.csrf, `${TEAM}/invitations/${i.id}/cancel`, "Cancel invitation")}</li>`,
          )}</ul>`;
    const body = html`<p class="muted">Owners can do everything. Staff work with orders, customers, appointments and inquiries; they cannot see Integrations, Settings or the team, erase customers or export.</p>
${members}
${pending}
<h2>Two-step sign-in</h2>
<form method="post" action="${TEAM}/two-step">${csrfField(page.csrf)}
<label class="check"><input type="checkbox" name="required" value="on"${status.shopRequires ? new SafeHtml(" checked") : ""}> Require two-step sign-in for every member</label>
<p class="muted">Members without it are signed out and set it up (an authenticator app) the next time they sign in. A member who lost their authenticator: "Reset two-step" on their row.</p>
<div class="actions"><button type="submit">Save</button></div>
</form>
<h2>Invite someone</h2>
<form method="post" action="${TEAM}/invitations" class="edit-form">${csrfField(page.csrf)}
${inputField({ name: "email", label: "E-mail", type: "email", required: true, maxLength: 254 })}
${selectField({ name: "role", label: "Role", value: "staff", required: true, options: roleOptions })}
<p class="muted">They get a link by e-mail, valid for seven days, to choose their name and password.</p>
<div class="actions"><button type="submit" class="primary">Send invitation</button></div>
</form>`;
    return sendPage(reply, 200, dashboardPage(page, "team", "Team", body));
  });

  app.post(
    `${TEAM}/invitations`,
    { schema: { hide: true }, preHandler: app.csrfProtection },
    async (request, reply) =>
      runAction(reply, { ctx, config }, { done: TEAM }, async (form) => {
        const me = memberOf(request);
        const invitation = await inviteMember(
          ctx,
          vendorIdOf(request),
          { id: me.id, name: me.name },
          { email: field(form, "email"), role: field(form, "role") },
        );
        return { kind: "success", message: `Invitation sent to ${invitation.email}.` };
      }),
  );

  app.post(
    `${TEAM}/two-step`,
    { schema: { hide: true }, preHandler: app.csrfProtection },
    async (request, reply) =>
      runAction(reply, { ctx, config }, { done: TEAM }, async (form) => {
        const on = field(form, "required") === "on";
        await setShopRequiresTwoStep(ctx, vendorIdOf(request), on, request.dashboardSession?.sessionId);
        return {
          kind: "success",
          message: on
            ? "Two-step sign-in is required: members without it were signed out and set it up at their next sign-in."
            : "Two-step sign-in is no longer required.",
        };
      }),
  );

  app.post<{ Params: { invitationId: string } }>(
    `${TEAM}/invitations/:invitationId/cancel`,
    { schema: { hide: true }, preHandler: app.csrfProtection },
    async (request, reply) =>
      runAction(reply, { ctx, config }, { done: TEAM }, async () => {
        await cancelInvitation(ctx, vendorIdOf(request), request.params.invitationId);
        return { kind: "success", message: "Invitation cancelled: its link no longer works." };
      }),
  );

  app.post<{ Params: { memberId: string } }>(
    `${TEAM}/:memberId/role`,
    { schema: { hide: true }, preHandler: app.csrfProtection },
    async (request, reply) =>
      runAction(reply, { ctx, config }, { done: TEAM }, async (form) => {
        const m = await changeMemberRole(
          ctx,
          vendorIdOf(request),
          request.params.memberId,
          field(form, "role"),
        );
        return {
          kind: "success",
          message: `${displayName(m)} is now ${roleLabels[m.role].toLowerCase()}.${leavingNote(m)}`,
        };
      }),
  );

  // A member who lost their authenticator and their recovery codes: an owner turns it off for
  // them (two-step.service.ts, resetMemberTwoStep), after a confirmation step.
  confirmedAction(app, deps, `${TEAM}/:memberId/two-step/reset`, {
    confirmation: async (request) => {
      const m = await getMember(ctx, vendorIdOf(request), request.params.memberId ?? "");
      return {
        section: "team",
        title: `Reset the two-step sign-in of ${displayName(m)}?`,
        consequence: `${displayName(m)} (${m.email}) is signed out at once, their authenticator and recovery codes stop working, and they set two-step sign-in up again the next time they sign in (when the shop requires it; otherwise they may). Do this only when you know it is them who lost it.`,
        button: "Reset two-step sign-in",
        back: TEAM,
      };
    },
    act: async (request) => {
      const m = await resetMemberTwoStep(
        ctx,
        vendorIdOf(request),
        memberOf(request).id,
        request.params.memberId ?? "",
      );
      return {
        kind: "success",
        message: `The two-step sign-in of ${displayName(m)} was reset; they were signed out.`,
      };
    },
    done: () => TEAM,
  });

  confirmedAction(app, deps, `${TEAM}/:memberId/remove`, {
    confirmation: async (request) => {
      const m = await getMember(ctx, vendorIdOf(request), request.params.memberId ?? "");
      return {
        section: "team",
        title: `Remove ${displayName(m)} from the shop?`,
        consequence: `${displayName(m)} (${m.email}) is signed out at once and can no longer sign in to this shop; the invitations they sent stop working, and if the shop's notifications go to their address they move to another owner. Invite them again to give them access back.`,
        button: "Remove member",
        back: TEAM,
      };
    },
    act: async (request) => {
      const m = await removeMember(ctx, vendorIdOf(request), request.params.memberId ?? "");
      return { kind: "success", message: `${displayName(m)} was removed and signed out.${leavingNote(m)}` };
    },
    done: () => TEAM,
  });
}
