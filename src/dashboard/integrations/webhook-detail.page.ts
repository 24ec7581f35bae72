// One webhook's page: its settings and actions, and its delivery log with every attempt's time,
// status code, duration, error and the receiver's stored answer (escaped, in <pre>).

import type { FastifyReply, FastifyRequest } from "fastify";
import type { ServiceContext } from "../../context.ts";
import type { Translator } from "../../i18n/translator.ts";
import { isId } from "../../lib/ids.ts";
import { allEventTypes } from "../../modules/events/catalog.ts";
import { eventPayloads, webhookHealth } from "../../modules/webhooks/webhook-health.ts";
import { type DeliveryStatus, deliveryStatuses } from "../../modules/webhooks/webhooks.schemas.ts";
import { getWebhook, listDeliveries } from "../../modules/webhooks/webhooks.service.ts";
import { csrfField } from "../../web/browser-scope.ts";
import { queryParam } from "../../web/form.ts";
import { actionButton } from "../../web/form-actions.ts";
import { html } from "../../web/html.ts";
import { confirmLink } from "../confirm-step.ts";
import { dashboardPage, emptyState, pager, time } from "../layout.ts";
import { pageContext, vendorIdOf } from "../page-context.ts";
import { say } from "./text.ts";
import { eventCheckboxes, healthCell, WEBHOOKS } from "./webhook-events-field.ts";

type Delivery = Awaited<ReturnType<typeof listDeliveries>>["deliveries"][number];

/** The log's filters as the page's query string gives them; a value that is none of ours is dropped. */
interface LogFilters {
  status?: DeliveryStatus;
  event?: string;
  eventId?: string;
  /** An event id that is not one (shown back with its error, nothing listed). */
  badEventId?: string;
}

function readFilters(query: unknown): LogFilters {
  const filters: LogFilters = {};
  const status = queryParam(query, "status");
  if (status && (deliveryStatuses as readonly string[]).includes(status))
    filters.status = status as DeliveryStatus;
  const event = queryParam(query, "event");
  if (event && (allEventTypes as readonly string[]).includes(event)) filters.event = event;
  const eventId = queryParam(query, "eventId")?.trim();
  if (eventId) {
    if (isId(eventId)) filters.eventId = eventId;
    else filters.badEventId = eventId.slice(0, 64);
  }
  return filters;
}

/** The filters as query parameters, for the pager's links. */
function filterParams(f: LogFilters): Record<string, string> {
  return {
    ...(f.status ? { status: f.status } : {}),
    ...(f.event ? { event: f.event } : {}),
    ...(f.eventId ? { eventId: f.eventId } : {}),
  };
}

function filterForm(base: string, f: LogFilters, t: Translator) {
  const any = f.status || f.event || f.eventId || f.badEventId;
  return html`<form method="get" action="${base}" class="filter delivery-filter" role="search">
<label for="log-status">${t.t("deliveries.filter.status")}</label>
<select id="log-status" name="status"><option value="">${t.t("deliveries.filter.anyStatus")}</option>${deliveryStatuses.map(
    (s) =>
      html`<option value="${s}"${s === f.status ? html` selected` : ""}>${t.t(`deliveries.status.${s}`)}</option>`,
  )}</select>
<label for="log-event">${t.t("deliveries.filter.event")}</label>
<select id="log-event" name="event"><option value="">${t.t("deliveries.filter.anyEvent")}</option>${allEventTypes.map(
    (e) => html`<option value="${e}"${e === f.event ? html` selected` : ""}>${e}</option>`,
  )}</select>
<label for="log-event-id">${t.t("deliveries.filter.eventId")}</label>
<input id="log-event-id" name="eventId" type="search" maxlength="64" value="${f.eventId ?? f.badEventId ?? ""}"${f.badEventId ? html` aria-invalid="true" aria-describedby="log-event-id-error"` : ""}>
${f.badEventId ? html`<p class="field-error" id="log-event-id-error">${t.t("deliveries.filter.badEventId")}</p>` : ""}
<div class="actions"><button type="submit">${t.t("deliveries.filter.submit")}</button>${any ? html`<a class="button" href="${base}">${t.t("deliveries.filter.clear")}</a>` : ""}</div>
</form>`;
}

function deliveryLog(
  csrf: string,
  base: string,
  deliveries: Delivery[],
  payloads: Map<string, unknown>,
  timeZone: string,
  view: { t: Translator; maxAttempts: number; filtered: boolean },
) {
  const { t } = view;
  if (deliveries.length === 0) {
    return emptyState(view.filtered ? t.t("deliveries.filter.none") : say(t, "deliveries.empty"));
  }
  return html`${deliveries.map(
    (d) => html`<section class="card delivery" data-delivery-id="${d.id}" data-status="${d.status}">
<h3><code>${d.event}</code> <span class="badge">${d.status}</span> <span class="muted">${time(d.createdAt, timeZone, t)} · ${say(t, "deliveries.attempts", { count: d.attemptCount })}${d.redeliveryOf ? ` · ${say(t, "deliveries.redelivery")}` : ""}</span></h3>
${
  d.nextAttemptAt
    ? html`<p class="muted next-attempt" data-attempt="${d.attemptCount + 1}" data-of="${view.maxAttempts}">${t.t(
        "deliveries.nextAttempt",
        { attempt: d.attemptCount + 1, total: view.maxAttempts },
      )} ${time(d.nextAttemptAt, timeZone, t)}</p>`
    : ""
}
${
  d.attempts.length === 0
    ? html`<p class="muted">${say(t, "deliveries.notAttempted")}</p>`
    : html`<ol class="attempts">${d.attempts.map(
        (a) => html`<li><strong>#${a.attempt}</strong> ${time(a.createdAt, timeZone, t)} · ${say(
          t,
          "deliveries.attemptResult",
          {
            status: String(a.statusCode ?? "–"),
            duration: String(a.durationMs ?? "–"),
          },
        )}
${a.error ? html`<p class="field-error">${a.error}</p>` : ""}
${a.responseBody ? html`<pre>${a.responseBody}</pre>` : ""}</li>`,
      )}</ol>`
}
${
  payloads.has(d.eventId)
    ? html`<details class="payload"><summary>${say(t, "deliveries.payloadSent")}</summary><pre>${JSON.stringify(
        { id: d.eventId, event: d.event, data: payloads.get(d.eventId) },
        null,
        2,
      )}</pre><p class="muted">${say(t, "deliveries.timestampBefore")} <code>timestamp</code>${say(t, "deliveries.timestampAfter")}</p></details>`
    : ""
}
${actionButton(csrf, `${base}/deliveries/${d.id}/redeliver`, say(t, "deliveries.redeliver"))}
</section>`,
  )}`;
}

export async function webhookDetailPage(
  ctx: ServiceContext,
  request: FastifyRequest<{ Params: { id: string }; Querystring: { cursor?: string } }>,
  reply: FastifyReply,
  /** WEBHOOK_RETRY_DELAYS_MS: a failing delivery shows "attempt n of N". */
  retryDelaysMs: readonly number[],
) {
  const vendorId = vendorIdOf(request);
  const filters = readFilters(request.query);
  const params = filterParams(filters);
  let hook: Awaited<ReturnType<typeof getWebhook>>;
  let log: Awaited<ReturnType<typeof listDeliveries>>;
  try {
    hook = await getWebhook(ctx, vendorId, request.params.id);
    const cursor = queryParam(request.query, "cursor");
    log = filters.badEventId
      ? { deliveries: [], nextCursor: null }
      : await listDeliveries(ctx, vendorId, hook.id, {
          limit: 20,
          ...(cursor ? { cursor } : {}),
          ...params,
        });
  } catch (err) {
    // A cursor somebody edited by hand: start from the first page, with the same filters.
    if ((err as { status?: number }).status === 400) {
      const query = new URLSearchParams(params).toString();
      return reply.redirect(
        `${WEBHOOKS}/${encodeURIComponent(request.params.id)}${query ? `?${query}` : ""}`,
        303,
      );
    }
    throw err;
  }
  const [page, health, payloads] = await Promise.all([
    pageContext(ctx, request, reply),
    webhookHealth(ctx, vendorId),
    eventPayloads(
      ctx,
      vendorId,
      log.deliveries.map((d) => d.eventId),
    ),
  ]);
  const { t } = page;
  const base = `${WEBHOOKS}/${hook.id}`;
  const enabled = hook.status === "ACTIVE";
  const body = html`<p><a href="${WEBHOOKS}">${say(t, "webhooks.allWebhooks")}</a></p>
<p class="boxed"><code>${hook.url}</code></p>
<p>${t.t("common.status")} <span class="badge">${hook.status}</span>${hook.disabledReason ? html` <span class="muted">${hook.disabledReason}</span>` : ""}</p>
<div class="health-box">${healthCell(hook, health.get(hook.id), page.timeZone, t)}</div>
<div class="actions">
${actionButton(page.csrf, `${base}/test`, say(t, "webhooks.sendTest"))}
${actionButton(page.csrf, `${base}/status`, say(t, enabled ? "webhooks.disable" : "webhooks.enable"), {
  extra: html`<input type="hidden" name="status" value="${enabled ? "DISABLED" : "ACTIVE"}">`,
})}
${confirmLink(`${base}/rotate-secret`, say(t, "webhooks.rotateSecret"))}
${confirmLink(`${base}/delete`, t.t("common.delete"))}
</div>
<h2>${say(t, "deliveries.title")}</h2>
${filterForm(base, filters, t)}
${deliveryLog(page.csrf, base, log.deliveries, payloads, page.timeZone, {
  t,
  maxAttempts: retryDelaysMs.length + 1,
  filtered: Object.keys(params).length > 0 || filters.badEventId !== undefined,
})}
${pager(t, base, log.nextCursor, params)}
<h2>${say(t, "deliveries.recoverHeading")}</h2>
<form method="post" action="${base}/recover">${csrfField(page.csrf)}
<label for="since">${say(t, "deliveries.failedSince", { zone: page.timeZone })}</label><input id="since" name="since" type="datetime-local" required>
<div class="actions"><button type="submit">${say(t, "deliveries.queueAgain")}</button></div></form>
<h2>${t.t("common.edit")}</h2>
<form method="post" action="${base}/edit">${csrfField(page.csrf)}
<label for="hook-url">${say(t, "column.url")}</label><input id="hook-url" name="url" type="url" required value="${hook.url}">
${eventCheckboxes(hook.events, t)}
<div class="actions"><button type="submit" class="primary">${t.t("common.save")}</button></div></form>`;
  return reply
    .type("text/html; charset=utf-8")
    .send(dashboardPage(page, "webhooks", say(t, "webhooks.title"), body));
}
