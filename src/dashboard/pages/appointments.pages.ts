// Appointments in the dashboard: the upcoming ones (from now on, earliest first) with the
// Confirm / Complete / Cancel buttons the spec 3.1 transition table allows from each status,
// and an appointment's page.

import type { FastifyInstance } from "fastify";
import { AppError } from "../../errors.ts";
import type { AppointmentJson } from "../../modules/appointments/appointments.presenter.ts";
import {
  getAppointment,
  listAppointments,
  updateAppointment,
} from "../../modules/appointments/appointments.service.ts";
import {
  type AppointmentStatus,
  appointmentTransitions,
} from "../../modules/appointments/appointments.workflow.ts";
import { customerNames } from "../../modules/customers/customers.service.ts";
import { csrfField, sendPage } from "../browser-scope.ts";
import type { DashboardDeps } from "../dashboard.routes.ts";
import { formField, pageLimit, queryParam } from "../form.ts";
import { html, type SafeHtml } from "../html.ts";
import { dashboardPage, emptyState, pager, time } from "../layout.ts";
import { pageContext, vendorIdOf } from "../page-context.ts";
import { humanize, refusedAction, statusBadge, succeeded } from "./common.ts";

/** The buttons, in the order shown; each appears only where the transition table allows it. */
const actions: Array<[AppointmentStatus, string, string]> = [
  ["CONFIRMED", "Confirm", "primary"],
  ["COMPLETED", "Complete", ""],
  ["CANCELLED", "Cancel", "danger"],
];
const done: Record<string, string> = {
  CONFIRMED: "confirmed",
  COMPLETED: "completed",
  CANCELLED: "cancelled",
};

function actionButtons(a: AppointmentJson, csrf: string, back: string): SafeHtml {
  const allowed = actions.filter(([to]) => appointmentTransitions[a.status].includes(to));
  if (allowed.length === 0) return html``;
  return html`<form method="post" action="/dashboard/appointments/${a.id}/status" class="inline">
${csrfField(csrf)}<input type="hidden" name="back" value="${back}">
${allowed.map(([to, label, cls]) => html`<button type="submit" name="status" value="${to}" class="${cls}">${label}</button> `)}
</form>`;
}

export async function appointmentPages(app: FastifyInstance, { ctx, config }: DashboardDeps): Promise<void> {
  app.get("/dashboard/appointments", { schema: { hide: true } }, async (request, reply) => {
    const vendorId = vendorIdOf(request);
    const limit = pageLimit(queryParam(request.query, "limit"));
    const cursor = queryParam(request.query, "cursor");
    const from = ctx.now().toISOString();
    const page = await listAppointments(ctx, vendorId, { from, limit, cursor });
    const names = await customerNames(
      ctx,
      vendorId,
      page.appointments.map((a) => a.customerId),
    );
    const pageCtx = await pageContext(ctx, request, reply);
    const body =
      page.appointments.length === 0
        ? emptyState(cursor ? "No more appointments." : "No upcoming appointments.")
        : html`<div class="table-wrap"><table class="appointments stack">
<thead><tr><th>When (UTC)</th><th>Customer</th><th>Type</th><th>Status</th><th>Actions</th></tr></thead>
<tbody>${page.appointments.map(
            (a) => html`<tr data-id="${a.id}">
<td><a href="/dashboard/appointments/${a.id}">${time(a.date)}</a><div class="muted">${a.duration} min</div></td>
<td><a href="/dashboard/customers/${a.customerId}">${names.get(a.customerId) ?? "–"}</a></td>
<td>${humanize(a.type)}${a.notes ? html`<div class="muted prose">${a.notes}</div>` : ""}</td>
<td>${statusBadge(a.status)}</td>
<td>${actionButtons(a, pageCtx.csrf, "/dashboard/appointments")}</td></tr>`,
          )}</tbody></table></div>
${pager("/dashboard/appointments", page.nextCursor, limit === 25 ? {} : { limit: String(limit) })}`;
    return sendPage(reply, 200, dashboardPage(pageCtx, "appointments", "Upcoming appointments", body));
  });

  app.get<{ Params: { id: string } }>(
    "/dashboard/appointments/:id",
    { schema: { hide: true } },
    async (request, reply) => {
      const vendorId = vendorIdOf(request);
      const a = await getAppointment(ctx, vendorId, request.params.id);
      const names = await customerNames(ctx, vendorId, [a.customerId]);
      const pageCtx = await pageContext(ctx, request, reply);
      const body = html`<p>${statusBadge(a.status)}</p>
<dl class="facts">
<dt>When</dt><dd>${time(a.date)} <span class="muted">(${a.duration} min)</span></dd>
<dt>Customer</dt><dd><a href="/dashboard/customers/${a.customerId}">${names.get(a.customerId) ?? "–"}</a></dd>
${a.orderId ? html`<dt>Order</dt><dd><a href="/dashboard/orders/${a.orderId}">Open the order</a></dd>` : ""}
<dt>Notes</dt><dd class="prose">${a.notes ?? "–"}</dd>
</dl>
<div class="actions">${actionButtons(a, pageCtx.csrf, `/dashboard/appointments/${a.id}`)}</div>`;
      return sendPage(
        reply,
        200,
        dashboardPage(pageCtx, "appointments", `${humanize(a.type)} appointment`, body),
      );
    },
  );

  app.post<{ Params: { id: string } }>(
    "/dashboard/appointments/:id/status",
    { schema: { hide: true }, preHandler: app.csrfProtection },
    async (request, reply) => {
      const vendorId = vendorIdOf(request);
      const id = request.params.id;
      // Only back to one of our own pages (never an open redirect).
      const requested = formField(request.body, "back");
      const back = requested === `/dashboard/appointments/${id}` ? requested : "/dashboard/appointments";
      const status = formField(request.body, "status");
      try {
        if (!(status in done)) {
          throw new AppError("validation_failed", "Choose Confirm, Complete or Cancel.");
        }
        await updateAppointment(ctx, vendorId, id, { status: status as AppointmentStatus });
        return succeeded(reply, config, `Appointment ${done[status]}.`, back);
      } catch (error) {
        return refusedAction(reply, config, error, back);
      }
    },
  );
}
