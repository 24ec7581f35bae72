// One webhook's page: its settings and actions, and its delivery log with every attempt's time,
// status code, duration, error and the receiver's stored answer (escaped, in <pre>).

import type { FastifyReply, FastifyRequest } from "fastify";
import type { ServiceContext } from "../../context.ts";
import { eventPayloads, webhookHealth } from "../../modules/webhooks/webhook-health.ts";
import { getWebhook, listDeliveries } from "../../modules/webhooks/webhooks.service.ts";
import { csrfField } from "../../web/browser-scope.ts";
import { actionButton } from "../../web/form-actions.ts";
import { html } from "../../web/html.ts";
import { confirmLink } from "../confirm-step.ts";
import { dashboardPage, emptyState, pager, time } from "../layout.ts";
import { pageContext, vendorIdOf } from "../page-context.ts";
import { eventCheckboxes, healthCell, WEBHOOKS } from "./webhook-events-field.ts";

type Delivery = Awaited<ReturnType<typeof listDeliveries>>["deliveries"][number];

function deliveryLog(
  csrf: string,
  base: string,
  deliveries: Delivery[],
  payloads: Map<string, unknown>,
  timeZone: string,
) {
  if (deliveries.length === 0) return emptyState("No deliveries yet. Send a test event to see one here.");
  return html`${deliveries.map(
    (d) => html`<section class="card delivery" data-delivery-id="${d.id}">
<h3><code>${d.event}</code> <span class="badge">${d.status}</span> <span class="muted">${time(d.createdAt, timeZone)} · ${d.attemptCount} ${d.attemptCount === 1 ? "attempt" : "attempts"}${d.redeliveryOf ? " · redelivery" : ""}</span></h3>
${d.nextAttemptAt ? html`<p class="muted">Next attempt ${time(d.nextAttemptAt, timeZone)}</p>` : ""}
${
  d.attempts.length === 0
    ? html`<p class="muted">Not attempted yet.</p>`
    : html`<ol class="attempts">${d.attempts.map(
        (
          a,
        ) => html`<li><strong>#${a.attempt}</strong> ${time(a.createdAt, timeZone)} · status ${a.statusCode ?? "–"} · ${a.durationMs ?? "–"} ms
${a.error ? html`<p class="field-error">${a.error}</p>` : ""}
${a.responseBody ? html`<pre>${a.responseBody}</pre>` : ""}</li>`,
      )}</ol>`
}
${
  payloads.has(d.eventId)
    ? html`<details class="payload"><summary>Payload sent</summary><pre>${JSON.stringify(
        { id: d.eventId, event: d.event, data: payloads.get(d.eventId) },
        null,
        2,
      )}</pre><p class="muted">Each attempt adds its own <code>timestamp</code>.</p></details>`
    : ""
}
${actionButton(csrf, `${base}/deliveries/${d.id}/redeliver`, "Redeliver")}
</section>`,
  )}`;
}

export async function webhookDetailPage(
  ctx: ServiceContext,
  request: FastifyRequest<{ Params: { id: string }; Querystring: { cursor?: string } }>,
  reply: FastifyReply,
) {
  const vendorId = vendorIdOf(request);
  let hook: Awaited<ReturnType<typeof getWebhook>>;
  let log: Awaited<ReturnType<typeof listDeliveries>>;
  try {
    hook = await getWebhook(ctx, vendorId, request.params.id);
    const cursor = typeof request.query.cursor === "string" ? request.query.cursor : undefined;
    log = await listDeliveries(ctx, vendorId, hook.id, { limit: 20, ...(cursor ? { cursor } : {}) });
  } catch (err) {
    // A cursor somebody edited by hand: start from the first page.
    if ((err as { status?: number }).status === 400)
      return reply.redirect(`${WEBHOOKS}/${request.params.id}`, 303);
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
  const base = `${WEBHOOKS}/${hook.id}`;
  const enabled = hook.status === "ACTIVE";
  const body = html`<p><a href="${WEBHOOKS}">← All webhooks</a></p>
<p class="boxed"><code>${hook.url}</code></p>
<p>Status <span class="badge">${hook.status}</span>${hook.disabledReason ? html` <span class="muted">${hook.disabledReason}</span>` : ""}</p>
<div class="health-box">${healthCell(hook, health.get(hook.id), page.timeZone)}</div>
<div class="actions">
${actionButton(page.csrf, `${base}/test`, "Send test event")}
${actionButton(page.csrf, `${base}/status`, enabled ? "Disable" : "Enable", {
  extra: html`<input type="hidden" name="status" value="${enabled ? "DISABLED" : "ACTIVE"}">`,
})}
${confirmLink(`${base}/rotate-secret`, "Rotate secret")}
${confirmLink(`${base}/delete`, "Delete")}
</div>
<h2>Delivery log</h2>
${deliveryLog(page.csrf, base, log.deliveries, payloads, page.timeZone)}
${pager(base, log.nextCursor)}
<h2>Recover failed deliveries</h2>
<form method="post" action="${base}/recover">${csrfField(page.csrf)}
<label for="since">Failed since (${page.timeZone})</label><input id="since" name="since" type="datetime-local" required>
<div class="actions"><button type="submit">Queue them again</button></div></form>
<h2>Edit</h2>
<form method="post" action="${base}/edit">${csrfField(page.csrf)}
<label for="hook-url">URL</label><input id="hook-url" name="url" type="url" required value="${hook.url}">
${eventCheckboxes(hook.events)}
<div class="actions"><button type="submit" class="primary">Save</button></div></form>`;
  return reply.type("text/html; charset=utf-8").send(dashboardPage(page, "webhooks", "Webhook", body));
}
