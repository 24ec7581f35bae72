// Integrations → Webhooks: list with status and disabledReason, create (URL + events; the secret
// shown once), and the actions on one webhook (edit, disable/enable, rotate secret, send a test,
// delete, redeliver, recover). Its own page with the delivery log is in webhook-detail.page.ts.

import type { FastifyInstance, FastifyRequest } from "fastify";
import { allScopes } from "../../auth/scopes.ts";
import type { AppError } from "../../errors.ts";
import type { Translator } from "../../i18n/translator.ts";
import { fromLocalInput } from "../../lib/time-zone.ts";
import type { EventType } from "../../modules/events/catalog.ts";
import { webhookHealth } from "../../modules/webhooks/webhook-health.ts";
import { ALL_EVENTS } from "../../modules/webhooks/webhooks.schemas.ts";
import {
  deleteWebhook,
  getWebhook,
  listWebhooks,
  recoverDeliveries,
  redeliver,
  registerWebhook,
  rotateWebhookSecret,
  sendTestEvent,
  updateWebhook,
} from "../../modules/webhooks/webhooks.service.ts";
import { csrfField } from "../../web/browser-scope.ts";
import { type Form, field, fields } from "../../web/form.ts";
import { runAction } from "../../web/form-actions.ts";
import { html } from "../../web/html.ts";
import { readerOf } from "../../web/reader.ts";
import { ReaderRefusal } from "../../web/refusal.ts";
import { systemResolver, type UrlPolicy } from "../../webhook-delivery/url-guard.ts";
import { confirmedAction } from "../confirm-step.ts";
import type { DashboardDeps } from "../deps.ts";
import { dashboardPage, emptyState, shownAt, time } from "../layout.ts";
import { pageContext, vendorIdOf, vendorTimeZone } from "../page-context.ts";
import { say } from "./text.ts";
import { webhookDetailPage } from "./webhook-detail.page.ts";
import { eventBadges, eventCheckboxes, healthCell, WEBHOOKS } from "./webhook-events-field.ts";

/** The signed-in vendor acts with every scope, so may subscribe to every event. */
const vendorCaller = { scopes: new Set(allScopes) };

/** A field the dashboard's own form refuses, said to the person in their language. */
function refused(t: Translator, field: string, key: string): AppError {
  const message = say(t, `webhooks.errors.${key}`);
  return new ReaderRefusal("validation_failed", message, { errors: [{ field, message }] });
}

/**
 * The ticked events: at least one; the service refuses unknown names. "All events" ticked
 * subscribes to every type, present and future, whatever else was ticked beside it.
 */
function eventsOf(form: Form, t: Translator): (EventType | typeof ALL_EVENTS)[] {
  const events = [...new Set(fields(form, "events"))];
  if (events.length === 0) throw refused(t, "events", "noEvents");
  if (events.includes(ALL_EVENTS)) return [ALL_EVENTS];
  return events as EventType[];
}

function urlOf(form: Form, t: Translator): string {
  const url = field(form, "url").trim();
  if (url.length > 2048) throw refused(t, "url", "urlTooLong");
  return url;
}

/** "2026-11-23T08:00" from a datetime-local field is read in the shop's time zone (the pages show it). */
function parseSince(value: string, timeZone: string, t: Translator): string {
  const trimmed = value.trim();
  const date = /[zZ]|[+-]\d\d:\d\d$/.test(trimmed) ? new Date(trimmed) : fromLocalInput(trimmed, timeZone);
  if (!trimmed || !date || Number.isNaN(date.getTime())) throw refused(t, "since", "badSince");
  return date.toISOString();
}

export async function webhookPages(app: FastifyInstance, deps: DashboardDeps): Promise<void> {
  const { ctx, config } = deps;
  const policy: UrlPolicy = {
    allowPrivate: config.webhookAllowPrivateUrls,
    httpsOnly: config.env === "production",
    resolver: systemResolver,
  };
  const post = { schema: { hide: true }, preHandler: app.csrfProtection };
  type IdParams = { Params: { id: string } };

  app.get(WEBHOOKS, { schema: { hide: true } }, async (request, reply) => {
    const page = await pageContext(ctx, request, reply);
    const t = page.t;
    const vendorId = vendorIdOf(request);
    const [{ webhooks }, health] = await Promise.all([
      listWebhooks(ctx, vendorId),
      webhookHealth(ctx, vendorId),
    ]);
    const list =
      webhooks.length === 0
        ? emptyState(say(t, "webhooks.empty"))
        : html`<div class="table-wrap"><table>
<thead><tr><th>${say(t, "column.url")}</th><th>${say(t, "column.events")}</th><th>${say(t, "column.health")}</th><th>${say(t, "column.created")}</th></tr></thead>
<tbody>${webhooks.map(
            (w) => html`<tr data-webhook-id="${w.id}">
<td><a href="${WEBHOOKS}/${w.id}"><code>${w.url}</code></a></td>
<td>${eventBadges(w.events, t)}</td>
<td>${healthCell(w, health.get(w.id), page.timeZone, t)}</td>
<td>${time(w.createdAt, page.timeZone, t)}</td></tr>`,
          )}</tbody></table></div>`;
    const body = html`${list}
<h2>${say(t, "webhooks.registerHeading")}</h2>
<form method="post" action="${WEBHOOKS}">${csrfField(page.csrf)}
<label for="hook-url">${say(t, "column.url")}</label><input id="hook-url" name="url" type="url" required placeholder="https://shop.example/hooks/vendor">
${eventCheckboxes([], t)}
<div class="actions"><button type="submit" class="primary">${say(t, "webhooks.submit")}</button></div>
</form>`;
    return reply
      .type("text/html; charset=utf-8")
      .send(dashboardPage(page, "webhooks", t.t("dashboard.nav.webhooks"), body));
  });

  app.get<IdParams & { Querystring: { cursor?: string } }>(
    `${WEBHOOKS}/:id`,
    { schema: { hide: true } },
    (request, reply) => webhookDetailPage(ctx, request, reply, config.webhookRetryDelaysMs),
  );

  app.post(WEBHOOKS, post, async (request, reply) => {
    const { t } = readerOf(request);
    return runAction(reply, { ctx, config }, { done: WEBHOOKS }, async (form) => {
      const hook = await registerWebhook(
        ctx,
        vendorIdOf(request),
        { url: urlOf(form, t), events: eventsOf(form, t) },
        vendorCaller,
        policy,
      );
      return {
        kind: "success",
        message: say(t, "webhooks.registered"),
        secret: hook.secret,
        location: `${WEBHOOKS}/${hook.id}`,
      };
    });
  });

  app.post<IdParams>(`${WEBHOOKS}/:id/edit`, post, async (request, reply) => {
    const here = `${WEBHOOKS}/${request.params.id}`;
    const { t } = readerOf(request);
    return runAction(reply, { ctx, config }, { done: here }, async (form) => {
      const events = eventsOf(form, t);
      await updateWebhook(
        ctx,
        vendorIdOf(request),
        request.params.id,
        { url: urlOf(form, t), events },
        vendorCaller,
        policy,
      );
      return { kind: "success", message: say(t, "webhooks.updated") };
    });
  });

  app.post<IdParams>(`${WEBHOOKS}/:id/status`, post, async (request, reply) => {
    const here = `${WEBHOOKS}/${request.params.id}`;
    const { t } = readerOf(request);
    return runAction(reply, { ctx, config }, { done: here }, async (form) => {
      const status = field(form, "status");
      if (status !== "ACTIVE" && status !== "DISABLED") throw refused(t, "status", "badStatus");
      await updateWebhook(ctx, vendorIdOf(request), request.params.id, { status }, vendorCaller, policy);
      return {
        kind: "success",
        message: say(t, status === "ACTIVE" ? "webhooks.enabled" : "webhooks.disabled"),
      };
    });
  });

  const hookUrl = async (request: FastifyRequest<{ Params: Record<string, string> }>) =>
    (await getWebhook(ctx, vendorIdOf(request), request.params.id ?? "")).url;
  const detail = (request: FastifyRequest<{ Params: Record<string, string> }>) =>
    `${WEBHOOKS}/${encodeURIComponent(request.params.id ?? "")}`;

  confirmedAction(app, deps, `${WEBHOOKS}/:id/rotate-secret`, {
    confirmation: async (request) => ({
      section: "webhooks",
      title: say(readerOf(request).t, "webhooks.rotateTitle", { url: await hookUrl(request) }),
      consequence: say(readerOf(request).t, "webhooks.rotateConsequence"),
      button: say(readerOf(request).t, "webhooks.rotateSecret"),
      back: detail(request),
    }),
    act: async (request) => {
      const rotated = await rotateWebhookSecret(ctx, vendorIdOf(request), request.params.id ?? "", {});
      const until = rotated.previousSecretExpiresAt ? new Date(rotated.previousSecretExpiresAt) : ctx.now();
      const { t } = readerOf(request);
      return {
        kind: "success",
        message: say(t, "webhooks.rotated", { until: shownAt(until, await vendorTimeZone(ctx, request), t) }),
        secret: rotated.secret,
      };
    },
    done: detail,
  });

  app.post<IdParams>(`${WEBHOOKS}/:id/test`, post, async (request, reply) =>
    runAction(reply, { ctx, config }, { done: `${WEBHOOKS}/${request.params.id}` }, async () => {
      await sendTestEvent(ctx, vendorIdOf(request), request.params.id);
      return { kind: "success", message: say(readerOf(request).t, "webhooks.testQueued") };
    }),
  );

  confirmedAction(app, deps, `${WEBHOOKS}/:id/delete`, {
    confirmation: async (request) => ({
      section: "webhooks",
      title: say(readerOf(request).t, "webhooks.deleteTitle", { url: await hookUrl(request) }),
      consequence: say(readerOf(request).t, "webhooks.deleteConsequence"),
      button: say(readerOf(request).t, "webhooks.deleteButton"),
      back: detail(request),
    }),
    act: async (request) => {
      await deleteWebhook(ctx, vendorIdOf(request), request.params.id ?? "");
      return { kind: "success", message: say(readerOf(request).t, "webhooks.deleted") };
    },
    done: () => WEBHOOKS,
  });

  app.post<{ Params: { id: string; deliveryId: string } }>(
    `${WEBHOOKS}/:id/deliveries/:deliveryId/redeliver`,
    post,
    async (request, reply) =>
      runAction(reply, { ctx, config }, { done: `${WEBHOOKS}/${request.params.id}` }, async () => {
        await redeliver(ctx, vendorIdOf(request), request.params.id, request.params.deliveryId);
        return { kind: "success", message: say(readerOf(request).t, "webhooks.redelivered") };
      }),
  );

  app.post<IdParams>(`${WEBHOOKS}/:id/recover`, post, async (request, reply) => {
    const timeZone = await vendorTimeZone(ctx, request);
    const { t } = readerOf(request);
    return runAction(reply, { ctx, config }, { done: `${WEBHOOKS}/${request.params.id}` }, async (form) => {
      const { count } = await recoverDeliveries(ctx, vendorIdOf(request), request.params.id, {
        since: parseSince(field(form, "since"), timeZone, t),
      });
      return { kind: "success", message: say(t, "webhooks.recovered", { count }) };
    });
  });
}
