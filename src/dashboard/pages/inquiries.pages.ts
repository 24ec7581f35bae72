// Inquiries sent through the public form: the list (newest first, open or handled) and an
// inquiry's page, where the vendor turns it into a customer with a first appointment in one step
// or just marks it handled.
import type { FastifyInstance } from "fastify";
import type { Translator } from "../../i18n/translator.ts";
import { CreateAppointmentBody } from "../../modules/appointments/appointments.schemas.ts";
import { appointmentTypes } from "../../modules/appointments/appointments.workflow.ts";
import {
  convertInquiry,
  getInquiryWithHandling,
  listInquiriesWithHandling,
  markInquiryHandled,
} from "../../modules/use-cases/inquiry-handling.ts";
import { csrfField, sendPage } from "../../web/browser-scope.ts";
import { field, pageLimit, queryParam } from "../../web/form.ts";
import { actionButton, runAction } from "../../web/form-actions.ts";
import { inputField, selectField, textareaField } from "../../web/form-fields.ts";
import { html } from "../../web/html.ts";
import { readerOf } from "../../web/reader.ts";
import type { DashboardDeps } from "../deps.ts";
import { dashboardPage, emptyState, pager, time } from "../layout.ts";
import { pageContext, vendorIdOf, vendorTimeZone } from "../page-context.ts";
import { appointmentTimeOf, assertFormValidIn, humanize } from "./common.ts";
import { calendarDay } from "./today.page.ts";

/** The first line of a message, shortened for the list. */
function excerpt(message: string): string {
  const line = message.split("\n", 1)[0] ?? "";
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

function handledBadge(t: Translator, handledAt: string | null) {
  return handledAt
    ? html`<span class="badge status" data-status="HANDLED">${t.t("dashboard.inquiries.handled")}</span>`
    : html`<span class="badge status" data-status="OPEN">${t.t("dashboard.inquiries.open")}</span>`;
}

/** An appointment type's name in the reader's language (appointments.types.*). */
function typeName(t: Translator, type: string): string {
  const key = `appointments.types.${type}`;
  return t.has(key) ? t.t(key) : humanize(type);
}

export async function inquiryPages(app: FastifyInstance, { ctx, config }: DashboardDeps): Promise<void> {
  app.get("/dashboard/inquiries", { schema: { hide: true } }, async (request, reply) => {
    const limit = pageLimit(queryParam(request.query, "limit"));
    const cursor = queryParam(request.query, "cursor");
    const page = await listInquiriesWithHandling(ctx, vendorIdOf(request), { limit, cursor });
    const pageCtx = await pageContext(ctx, request, reply);
    const { t } = pageCtx;
    const k = (key: string) => t.t(`dashboard.inquiries.${key}`);
    const body =
      page.inquiries.length === 0
        ? emptyState(k(cursor ? "empty.more" : "empty.none"))
        : html`<div class="table-wrap"><table class="inquiries cards">
<thead><tr><th>${k("from")}</th><th>${k("message")}</th><th>${t.t("common.status")}</th><th>${k("received")}</th></tr></thead>
<tbody>${page.inquiries.map(
            (
              q,
            ) => html`<tr><td><a href="/dashboard/inquiries/${q.id}">${q.name}</a><div class="muted">${q.email}</div></td>
<td>${excerpt(q.message)}</td><td>${handledBadge(t, q.handledAt)}</td><td>${time(q.createdAt, pageCtx.timeZone, t)}</td></tr>`,
          )}</tbody></table></div>
${pager(pageCtx.t, "/dashboard/inquiries", page.nextCursor, limit === 25 ? {} : { limit: String(limit) })}`;
    return sendPage(reply, 200, dashboardPage(pageCtx, "inquiries", t.t("dashboard.nav.inquiries"), body));
  });

  app.get<{ Params: { id: string } }>(
    "/dashboard/inquiries/:id",
    { schema: { hide: true } },
    async (request, reply) => {
      const q = await getInquiryWithHandling(ctx, vendorIdOf(request), request.params.id);
      const pageCtx = await pageContext(ctx, request, reply);
      const base = `/dashboard/inquiries/${q.id}`;
      const { t } = pageCtx;
      const k = (key: string, values?: Record<string, string>) => t.t(`dashboard.inquiries.${key}`, values);
      const body = html`<p>${handledBadge(t, q.handledAt)}${q.handledAt ? html` <span class="muted">${time(q.handledAt, pageCtx.timeZone, t)}</span>` : ""}</p>
<dl class="facts">
<dt>${k("from")}</dt><dd>${q.name}</dd>
<dt>${t.t("common.email")}</dt><dd><a href="mailto:${q.email}">${q.email}</a></dd>
<dt>${t.t("common.phone")}</dt><dd>${q.phone ?? "–"}</dd>
<dt>${t.t("common.weddingDate")}</dt><dd>${q.weddingDate ? html`<time datetime="${q.weddingDate}">${calendarDay(t, q.weddingDate)}</time>` : "–"}</dd>
<dt>${k("received")}</dt><dd>${time(q.createdAt, pageCtx.timeZone, t)}</dd>
</dl>
<h2>${k("message")}</h2>
<p class="prose">${q.message}</p>
<div class="actions"><a class="button" href="mailto:${q.email}?subject=${encodeURIComponent(k("replySubject"))}">${k("answer")}</a>
${q.handledAt ? "" : actionButton(pageCtx.csrf, `${base}/handled`, k("markHandled"))}</div>
<h2>${k("book")}</h2>
<p class="muted">${k("bookHint", { name: q.name })}</p>
<form method="post" action="${base}/convert" class="edit-form">
${csrfField(pageCtx.csrf)}
${selectField({ name: "type", label: k("type"), value: "CONSULTATION", required: true, options: appointmentTypes.map((type) => [type, typeName(t, type)] as const) })}
${inputField({ name: "date", label: k("when", { zone: pageCtx.timeZone }), type: "datetime-local", required: true })}
${inputField({ name: "duration", label: k("duration"), type: "number", value: "60", required: true })}
${textareaField({ name: "notes", label: t.t("common.notes"), value: "", maxLength: 2000 })}
<div class="actions"><button type="submit" class="primary">${k("convert")}</button></div>
</form>`;
      return sendPage(reply, 200, dashboardPage(pageCtx, "inquiries", k("title", { name: q.name }), body));
    },
  );

  app.post<{ Params: { id: string } }>(
    "/dashboard/inquiries/:id/handled",
    { schema: { hide: true }, preHandler: app.csrfProtection },
    async (request, reply) =>
      runAction(reply, { ctx, config }, { done: `/dashboard/inquiries/${request.params.id}` }, async () => {
        await markInquiryHandled(ctx, vendorIdOf(request), request.params.id);
        return { kind: "success", message: readerOf(request).t.t("dashboard.inquiries.markedHandled") };
      }),
  );

  app.post<{ Params: { id: string } }>(
    "/dashboard/inquiries/:id/convert",
    { schema: { hide: true }, preHandler: app.csrfProtection },
    async (request, reply) => {
      const vendorId = vendorIdOf(request);
      const back = `/dashboard/inquiries/${encodeURIComponent(request.params.id)}`;
      // Another vendor's id (or none) is the 404 page before anything is read from the form.
      await getInquiryWithHandling(ctx, vendorId, request.params.id);
      const timeZone = await vendorTimeZone(ctx, request);
      const { t } = readerOf(request);
      return runAction(reply, { ctx, config }, { done: back }, async (form) => {
        const input = { type: field(form, "type"), ...appointmentTimeOf(form, timeZone, t) };
        assertFormValidIn(
          t,
          CreateAppointmentBody,
          { ...input, customerId: "x" },
          {
            type: t.t("dashboard.appointments.type"),
            date: t.t("dashboard.appointments.when"),
            duration: t.t("dashboard.appointments.duration"),
            notes: t.t("common.notes"),
          },
        );
        const { appointment } = await convertInquiry(
          ctx,
          vendorId,
          request.params.id,
          input as Parameters<typeof convertInquiry>[3],
        );
        return {
          kind: "success",
          message: readerOf(request).t.t("dashboard.inquiries.converted"),
          location: `/dashboard/appointments/${appointment.id}`,
        };
      });
    },
  );
}
