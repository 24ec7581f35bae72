// The shop's activity log (CONTRACT 10, "Members"): who did what, and when, newest first, in the shop's
// time zone; filtered by who (a person, an API key, an application, the CLI) and by the kind of
// record, with a GET form that works without JavaScript; paged by keyset (db/keyset.ts).
import type { FastifyInstance } from "fastify";
import type { Translator } from "../i18n/translator.ts";
import {
  type ActivityAction,
  activityKinds,
  isActivityAction,
  isActivityKind,
  kindOfAction,
} from "../modules/activity/activity.kinds.ts";
import {
  ACTIVITY_PAGE_SIZE,
  type ActivityRow,
  type ActorValues,
  activityActors,
  actorFilterValue,
  listActivity,
  parseActorFilter,
} from "../modules/activity/activity.service.ts";
import { sendPage } from "../web/browser-scope.ts";
import { pageLimit, queryParam } from "../web/form.ts";
import { html, type SafeHtml } from "../web/html.ts";
import type { DashboardDeps } from "./deps.ts";
import { dashboardPage, emptyState, pager, time } from "./layout.ts";
import { pageContext, vendorIdOf } from "./page-context.ts";
import { richMessage } from "./rich-message.ts";

const k = (key: string) => `dashboard.activity.${key}`;

/** Who did it, in words: the person, `API key “POS”`, `Application “Bridal POS”`, the CLI. */
export function actorLabel(t: Translator, actor: ActorValues & { actorName: string | null }): string {
  const name = actor.actorName ?? t.t(k("actor.deleted"));
  switch (actor.actorKind) {
    case "person":
      return actor.actorName ?? t.t(k("actor.person"));
    case "api_key":
      return t.t(k("actor.apiKey"), { name });
    case "oauth_app":
      return t.t(k("actor.application"), { name });
    case "cli":
      return t.t(k("actor.cli"));
    case "customer":
      return t.t(k("actor.customer"));
    default:
      return t.t(k("actor.service"));
  }
}

/** Where the record an entry is about is shown, when it has a page of its own. */
function subjectHref(action: ActivityAction, id: string): string | undefined {
  switch (kindOfAction(action)) {
    case "order":
      return `/dashboard/orders/${id}`;
    case "customer":
      return `/dashboard/customers/${id}`;
    case "appointment":
      return action === "appointment.deleted" ? undefined : `/dashboard/appointments/${id}`;
    case "inquiry":
      return `/dashboard/inquiries/${id}`;
    case "api_key":
      return "/dashboard/integrations/api-keys";
    case "webhook":
      return action === "webhook.deleted" ? undefined : `/dashboard/integrations/webhooks/${id}`;
    case "application":
      if (action === "application.deleted") return undefined;
      // An authorized application may be another shop's: the shop sees it among its connected apps.
      return action === "application.authorized" || action === "application.disconnected"
        ? "/dashboard/integrations/connected-apps"
        : "/dashboard/integrations/applications";
    case "member":
      return "/dashboard/settings/team";
    case "settings":
      // The owner the shop's notifications moved to.
      return action === "settings.notification_email_moved" ? "/dashboard/settings/team" : undefined;
    default:
      return undefined;
  }
}

function subjectCell(row: ActivityRow): SafeHtml {
  if (!isActivityAction(row.action) || row.subjectId === null) return html``;
  const href = subjectHref(row.action, row.subjectId);
  const short = row.subjectId.slice(0, 8);
  return href ? html` <a href="${href}">${short}</a>` : html` <span class="muted">${short}</span>`;
}

/**
 * What was done, as the page words it, the record's link where the language puts it (`{subject}`
 * carries its own leading space: nothing when the entry names no record). An action this version
 * does not know stays as stored.
 */
function whatCell(t: Translator, row: ActivityRow): SafeHtml {
  if (!isActivityAction(row.action)) return html`${row.action}`;
  return richMessage(t, k(`action.${row.action}`), {}, { subject: subjectCell(row) });
}

/** Where a record's statuses have their labels: the same words its own pages use. */
const statusLabels: Partial<Record<string, string>> = {
  order: "dashboard.orders.status",
  appointment: "dashboard.appointments.state",
  webhook: "dashboard.integrations.status",
};

/** A stored status in the reader's words; one this version has no label for stays as stored. */
function statusText(t: Translator, row: ActivityRow, status: string): string {
  const section = isActivityAction(row.action) ? statusLabels[kindOfAction(row.action)] : undefined;
  const key = `${section}.${status}`;
  return section && t.has(key) ? t.t(key) : status;
}

/** Facts of the change: a status move, the fields edited. Never a value a customer typed. */
function detailText(t: Translator, row: ActivityRow): string {
  const d = row.detail ?? {};
  const parts: string[] = [];
  // Statuses in the reader's words; other stored values (numbers, field names, scopes, ids) as stored.
  if (typeof d.number === "number") parts.push(`#${d.number}`);
  if (row.action === "customer.merged" && typeof d.from === "string")
    parts.push(t.t(k("detail.merged"), { id: d.from.slice(0, 8) }));
  if (typeof d.from === "string" && typeof d.to === "string")
    parts.push(`${statusText(t, row, d.from)} → ${statusText(t, row, d.to)}`);
  if (Array.isArray(d.fields) && d.fields.length > 0)
    parts.push(t.t(k("detail.fields"), { fields: d.fields.join(", ") }));
  if (Array.isArray(d.scopes)) parts.push(t.t(k("detail.scopes"), { scopes: d.scopes.join(" ") }));
  if (typeof d.public === "boolean") parts.push(t.t(k(d.public ? "detail.public" : "detail.private")));
  if (typeof d.status === "string") parts.push(statusText(t, row, d.status));
  if (d.reason === "removed") parts.push(t.t(k("detail.memberRemoved")));
  if (d.reason === "demoted") parts.push(t.t(k("detail.memberDemoted")));
  if (typeof d.invitationsRevoked === "number" && d.invitationsRevoked > 0)
    parts.push(t.t(k("detail.invitationsRevoked"), { count: d.invitationsRevoked }));
  if (typeof d.eventId === "string") parts.push(t.t(k("detail.event"), { id: d.eventId }));
  if (typeof d.count === "number") parts.push(t.t(k("detail.deliveries"), { count: d.count }));
  return parts.join("; ");
}

export async function activityPage(app: FastifyInstance, { ctx }: DashboardDeps): Promise<void> {
  app.get("/dashboard/activity", { schema: { hide: true } }, async (request, reply) => {
    const vendorId = vendorIdOf(request);
    const actor = queryParam(request.query, "actor");
    const kind = queryParam(request.query, "kind");
    const cursor = queryParam(request.query, "cursor");
    const limit = pageLimit(queryParam(request.query, "limit"), ACTIVITY_PAGE_SIZE);
    const [page, actors] = await Promise.all([
      listActivity(ctx, vendorId, { actor, kind, cursor }, limit),
      activityActors(ctx, vendorId),
    ]);
    const pageCtx = await pageContext(ctx, request, reply);
    const { t } = pageCtx;
    const chosenActor = parseActorFilter(actor) ? actor : undefined;
    const chosenKind = kind && isActivityKind(kind) ? kind : undefined;
    const filters: Record<string, string> = {
      ...(chosenActor ? { actor: chosenActor } : {}),
      ...(chosenKind ? { kind: chosenKind } : {}),
      ...(limit === ACTIVITY_PAGE_SIZE ? {} : { limit: String(limit) }),
    };
    const filterForm = html`<form method="get" action="/dashboard/activity" class="filter" role="search">
<label for="actor">${t.t(k("who"))}</label>
<select id="actor" name="actor"><option value="">${t.t(k("everyone"))}</option>${actors.map((a) => {
      const value = actorFilterValue(a);
      return html`<option value="${value}"${value === chosenActor ? html` selected` : ""}>${actorLabel(t, a)}</option>`;
    })}</select>
<label for="kind">${t.t(k("what"))}</label>
<select id="kind" name="kind"><option value="">${t.t(k("everything"))}</option>${Object.keys(
      activityKinds,
    ).map(
      (value) =>
        html`<option value="${value}"${value === chosenKind ? html` selected` : ""}>${t.t(k(`kind.${value}`))}</option>`,
    )}</select>
<div class="actions"><button type="submit">${t.t(k("filter"))}</button>${chosenActor || chosenKind ? html`<a class="button" href="/dashboard/activity">${t.t(k("clear"))}</a>` : ""}</div>
</form>`;
    const rows = page.rows;
    const list =
      rows.length === 0
        ? emptyState(cursor ? t.t(k("noMore")) : t.t(k("empty")))
        : html`<div class="table-wrap"><table class="activity cards">
<thead><tr><th>${t.t(k("when"))}</th><th>${t.t(k("who"))}</th><th>${t.t(k("what"))}</th><th>${t.t(k("details"))}</th></tr></thead>
<tbody>${rows.map(
            (r) => html`<tr data-action="${r.action}"><td>${time(r.at, pageCtx.timeZone, t)}</td>
<td class="actor" data-actor-kind="${r.actorKind}">${actorLabel(t, r)}</td>
<td>${whatCell(t, r)}</td>
<td class="muted">${detailText(t, r)}</td></tr>`,
          )}</tbody></table></div>
${pager(pageCtx.t, "/dashboard/activity", page.nextCursor, filters)}`;
    const body = html`<p class="muted">${t.t(k("intro"), { zone: pageCtx.timeZone })}</p>
${filterForm}
${list}`;
    return sendPage(reply, 200, dashboardPage(pageCtx, "activity", t.t(k("title")), body));
  });
}
