// Appointments in the dashboard: the upcoming ones (from now on, earliest first) with the
// Confirm / Complete / Cancel buttons the spec 3.1 transition table allows from each status,
// and an appointment's page.

import type { FastifyInstance } from "fastify";
import type { ServiceContext } from "../../context.ts";
import { AppError, type FieldError } from "../../errors.ts";
import {
  formatInZone,
  fromLocalInput,
  startOfDay,
  startOfDayAfter,
  startOfWeek,
  toLocalInput,
} from "../../lib/time-zone.ts";
import type { AppointmentJson } from "../../modules/appointments/appointments.presenter.ts";
import {
  CreateAppointmentBody,
  UpdateAppointmentBody,
} from "../../modules/appointments/appointments.schemas.ts";
import {
  createAppointment,
  getAppointment,
  listAppointments,
  updateAppointmentTelling,
} from "../../modules/appointments/appointments.service.ts";
import {
  type AppointmentStatus,
  allowedAppointmentMoves,
  appointmentTypes,
} from "../../modules/appointments/appointments.workflow.ts";
import { customerNames, getCustomer, listCustomers } from "../../modules/customers/customers.service.ts";
import { csrfField, sendPage } from "../../web/browser-scope.ts";
import {
  assertFormValid,
  type Form,
  field,
  formErrors,
  formOf,
  optional,
  pageLimit,
  queryParam,
} from "../../web/form.ts";
import { runAction, saveForm } from "../../web/form-actions.ts";
import { inputField, otherErrors, selectField, textareaField } from "../../web/form-fields.ts";
import { html, type SafeHtml } from "../../web/html.ts";
import { confirmedAction, confirmLink } from "../confirm-step.ts";
import type { DashboardDeps } from "../deps.ts";
import { dashboardPage, emptyState, pager, time } from "../layout.ts";
import { pageContext, vendorIdOf, vendorTimeZone } from "../page-context.ts";
import { appointmentTimeOf, durationOf, humanize, showFormAgain, statusBadge } from "./common.ts";
import { withCustomerNotice } from "./customer-notice.ts";

/** The buttons, in the order shown; each appears only where the transition table allows it. */
const actions: Array<[AppointmentStatus, string, string]> = [
  ["CONFIRMED", "Confirm", "primary"],
  ["COMPLETED", "Complete", ""],
];
const done: Record<string, string> = {
  CONFIRMED: "confirmed",
  COMPLETED: "completed",
  CANCELLED: "cancelled",
};

function actionButtons(a: AppointmentJson, csrf: string, back: string): SafeHtml {
  const moves = allowedAppointmentMoves(a.status);
  const allowed = actions.filter(([to]) => moves.includes(to));
  if (allowed.length === 0) return html``;
  // Cancelling is final: it goes through its confirmation page (confirm-step.ts).
  const oneClick = allowed.filter(([to]) => to !== "CANCELLED");
  return html`${
    oneClick.length > 0
      ? html`<form method="post" action="/dashboard/appointments/${a.id}/status" class="inline">
${csrfField(csrf)}<input type="hidden" name="back" value="${back}">
${oneClick.map(([to, label, cls]) => html`<button type="submit" name="status" value="${to}" class="${cls}">${label}</button> `)}
</form>`
      : ""
  }${moves.includes("CANCELLED") ? confirmLink(`/dashboard/appointments/${a.id}/cancel`, "Cancel") : ""}`;
}

export async function appointmentPages(app: FastifyInstance, deps: DashboardDeps): Promise<void> {
  const { ctx, config } = deps;
  app.get("/dashboard/appointments", { schema: { hide: true } }, async (request, reply) => {
    const vendorId = vendorIdOf(request);
    const limit = pageLimit(queryParam(request.query, "limit"));
    const cursor = queryParam(request.query, "cursor");
    const requested = queryParam(request.query, "day");
    const day: DayView = requested && requested in dayViews ? (requested as DayView) : "upcoming";
    const pageCtx = await pageContext(ctx, request, reply);
    const range = dayRange(day, ctx.now(), pageCtx.timeZone);
    const page = await listAppointments(ctx, vendorId, { ...range, limit, cursor });
    const names = await customerNames(
      ctx,
      vendorId,
      page.appointments.map((a) => a.customerId),
    );
    const params: Record<string, string> = day === "upcoming" ? {} : { day };
    if (limit !== 25) params.limit = String(limit);
    const tabs = html`<div class="toolbar"><a class="button primary" href="/dashboard/appointments/new">Book appointment</a></div>
<nav class="tabs" aria-label="Which appointments">${Object.entries(dayViews).map(
      ([key, label]) =>
        html`<a href="/dashboard/appointments${key === "upcoming" ? "" : `?day=${key}`}"${key === day ? html` aria-current="page"` : ""}>${label}</a>`,
    )}</nav>`;
    const list =
      page.appointments.length === 0
        ? emptyState(cursor ? "No more appointments." : emptyMessages[day])
        : html`<div class="table-wrap"><table class="appointments cards">
<thead><tr><th>When (${pageCtx.timeZone})</th><th>Customer</th><th>Type</th><th>Status</th><th>Actions</th></tr></thead>
<tbody>${page.appointments.map(
            (a) => html`<tr data-id="${a.id}">
<td><a href="/dashboard/appointments/${a.id}">${time(a.date, pageCtx.timeZone)}</a><div class="muted">${a.duration} min</div></td>
<td><a href="/dashboard/customers/${a.customerId}">${names.get(a.customerId) ?? "–"}</a></td>
<td>${humanize(a.type)}${a.notes ? html`<div class="muted prose">${a.notes}</div>` : ""}</td>
<td>${statusBadge(a.status)}</td>
<td>${actionButtons(a, pageCtx.csrf, "/dashboard/appointments")}</td></tr>`,
          )}</tbody></table></div>
${pager(pageCtx.t, "/dashboard/appointments", page.nextCursor, params)}`;
    const title =
      day === "upcoming" ? "Upcoming appointments" : `Appointments ${dayViews[day].toLowerCase()}`;
    return sendPage(reply, 200, dashboardPage(pageCtx, "appointments", title, html`${tabs}${list}`));
  });

  app.get("/dashboard/appointments/new", { schema: { hide: true } }, async (request, reply) => {
    const vendorId = vendorIdOf(request);
    const pageCtx = await pageContext(ctx, request, reply);
    const form: BookingForm = { ...emptyBooking, customerId: queryParam(request.query, "customerId") ?? "" };
    return sendPage(
      reply,
      200,
      dashboardPage(
        pageCtx,
        "appointments",
        "Book appointment",
        bookingForm(
          await customerOptions(ctx, vendorId, form.customerId),
          form,
          [],
          pageCtx.csrf,
          pageCtx.timeZone,
        ),
      ),
    );
  });

  app.post(
    "/dashboard/appointments",
    { schema: { hide: true }, preHandler: app.csrfProtection },
    async (request, reply) => {
      const vendorId = vendorIdOf(request);
      const timeZone = await vendorTimeZone(ctx, request);
      const posted = formOf(request);
      const form = Object.fromEntries(
        (Object.keys(emptyBooking) as Array<keyof BookingForm>).map((k) => [k, field(posted, k)]),
      ) as unknown as BookingForm;
      const errors: FieldError[] = [];
      const date = fromLocalInput(form.date, timeZone);
      if (!date) errors.push({ field: "date", message: "must be a date and time" });
      const input = {
        customerId: form.customerId,
        type: form.type,
        date: date?.toISOString() ?? "",
        duration: durationOf(form.duration),
        notes: optional(form.notes),
      };
      if (date) errors.push(...formErrors(CreateAppointmentBody, input));
      const save = async () => {
        const created = await createAppointment(ctx, vendorId, input as CreateAppointmentBody);
        return { message: "Appointment booked.", location: `/dashboard/appointments/${created.id}` };
      };
      return saveForm(reply, config, errors, save, (status, errors) =>
        showFormAgain(
          ctx,
          request,
          reply,
          status,
          { section: "appointments", title: "Book appointment", notDone: "The appointment was not booked" },
          async (page) =>
            bookingForm(
              await customerOptions(ctx, vendorId, form.customerId),
              form,
              errors,
              page.csrf,
              timeZone,
            ),
        ),
      );
    },
  );

  app.post<{ Params: { id: string } }>(
    "/dashboard/appointments/:id/edit",
    { schema: { hide: true }, preHandler: app.csrfProtection },
    async (request, reply) => {
      const vendorId = vendorIdOf(request);
      const back = `/dashboard/appointments/${encodeURIComponent(request.params.id)}`;
      const timeZone = await vendorTimeZone(ctx, request);
      return runAction(reply, { ctx, config }, { done: back }, async (form) => {
        const input = appointmentTimeOf(form, timeZone);
        assertFormValid(UpdateAppointmentBody, input);
        const { notice } = await updateAppointmentTelling(
          ctx,
          vendorId,
          request.params.id,
          input as UpdateAppointmentBody,
        );
        return { kind: "success", message: withCustomerNotice("Appointment saved.", notice) };
      });
    },
  );

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
<dt>When</dt><dd>${time(a.date, pageCtx.timeZone)} <span class="muted">(${a.duration} min)</span></dd>
<dt>Customer</dt><dd><a href="/dashboard/customers/${a.customerId}">${names.get(a.customerId) ?? "–"}</a></dd>
${a.orderId ? html`<dt>Order</dt><dd><a href="/dashboard/orders/${a.orderId}">Open the order</a></dd>` : ""}
<dt>Notes</dt><dd class="prose">${a.notes ?? "–"}</dd>
</dl>
<div class="actions">${actionButtons(a, pageCtx.csrf, `/dashboard/appointments/${a.id}`)}</div>
<details class="edit"><summary>Reschedule or edit</summary>
<form method="post" action="/dashboard/appointments/${a.id}/edit" class="edit-form">
${csrfField(pageCtx.csrf)}
${inputField({ name: "date", id: "edit-date", label: `When (${pageCtx.timeZone})`, type: "datetime-local", value: toLocalInput(new Date(a.date), pageCtx.timeZone), required: true })}
${inputField({ name: "duration", label: "Duration (minutes, 15-480)", type: "number", value: String(a.duration), required: true })}
${textareaField({ name: "notes", label: "Notes", value: a.notes ?? "", maxLength: 2000 })}
<div class="actions"><button type="submit" class="primary">Save</button></div>
</form></details>`;
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
      // Only back to one of our own pages (never an open redirect). Compared with a fixed path,
      // so it is read before the form is checked: a refused form still goes back there.
      const own = `/dashboard/appointments/${id}`;
      const back = field((request.body ?? {}) as Form, "back") === own ? own : "/dashboard/appointments";
      return runAction(reply, { ctx, config }, { done: back }, async (form) => {
        const status = field(form, "status");
        if (!(status in done)) {
          throw new AppError("validation_failed", "Choose Confirm, Complete or Cancel.");
        }
        // A cancellation only from its confirmation page: a post of the old one-click form lands there.
        if (status === "CANCELLED")
          return { kind: "error", message: "Confirm the cancellation below.", location: `${own}/cancel` };
        const { notice } = await updateAppointmentTelling(ctx, vendorId, id, {
          status: status as AppointmentStatus,
        });
        return { kind: "success", message: withCustomerNotice(`Appointment ${done[status]}.`, notice) };
      });
    },
  );

  confirmedAction(app, deps, "/dashboard/appointments/:id/cancel", {
    confirmation: async (request) => {
      const vendorId = vendorIdOf(request);
      const a = await getAppointment(ctx, vendorId, request.params.id ?? "");
      const names = await customerNames(ctx, vendorId, [a.customerId]);
      const timeZone = await vendorTimeZone(ctx, request);
      return {
        section: "appointments",
        title: `Cancel the ${humanize(a.type).toLowerCase()} appointment of ${names.get(a.customerId) ?? "this customer"}?`,
        consequence: `The appointment on ${formatInZone(new Date(a.date), timeZone)} is cancelled for good: a cancelled appointment cannot be confirmed again.`,
        button: "Cancel appointment",
        back: `/dashboard/appointments/${a.id}`,
      };
    },
    act: async (request) => {
      const { notice } = await updateAppointmentTelling(ctx, vendorIdOf(request), request.params.id ?? "", {
        status: "CANCELLED",
      });
      return { kind: "success", message: withCustomerNotice("Appointment cancelled.", notice) };
    },
    done: (request) => `/dashboard/appointments/${encodeURIComponent(request.params.id ?? "")}`,
  });
}

/** The list's views, computed on the shop's calendar (its time zone). */
const dayViews = { upcoming: "Upcoming", today: "Today", week: "This week", past: "Past" } as const;
const emptyMessages = {
  upcoming: "No upcoming appointments.",
  today: "No appointments today.",
  week: "No appointments this week.",
  past: "No past appointments.",
} as const;
type DayView = keyof typeof dayViews;

function dayRange(day: DayView, now: Date, timeZone: string): { from?: string; to?: string } {
  const justBefore = (d: Date) => new Date(d.getTime() - 1).toISOString();
  switch (day) {
    case "today":
      return {
        from: startOfDay(now, timeZone).toISOString(),
        to: justBefore(startOfDayAfter(now, timeZone, 1)),
      };
    case "week": {
      const monday = startOfWeek(now, timeZone);
      return { from: monday.toISOString(), to: justBefore(startOfDayAfter(monday, timeZone, 7)) };
    }
    case "past":
      return { to: justBefore(now) };
    default:
      return { from: now.toISOString() };
  }
}

interface BookingForm {
  customerId: string;
  type: string;
  date: string;
  duration: string;
  notes: string;
}
const emptyBooking: BookingForm = { customerId: "", type: "FITTING", date: "", duration: "60", notes: "" };

/** The customers to pick from: the vendor's 100 newest, plus the one asked for (404 if not theirs). */
async function customerOptions(
  ctx: ServiceContext,
  vendorId: string,
  wanted: string,
): Promise<Array<readonly [string, string]>> {
  const { customers } = await listCustomers(ctx, vendorId, { limit: 100 });
  const options = customers.map((c) => [c.id, c.email ? `${c.name} (${c.email})` : c.name] as const);
  if (wanted && !customers.some((c) => c.id === wanted)) {
    const c = await getCustomer(ctx, vendorId, wanted);
    options.unshift([c.id, c.email ? `${c.name} (${c.email})` : c.name]);
  }
  return options;
}

function bookingForm(
  customers: ReadonlyArray<readonly [string, string]>,
  form: BookingForm,
  errors: FieldError[],
  csrf: string,
  timeZone: string,
): SafeHtml {
  if (customers.length === 0) {
    return emptyState(
      "Add a customer first: an appointment is always with a customer.",
      html`<a class="button primary" href="/dashboard/customers/new">New customer</a>`,
    );
  }
  return html`<form method="post" action="/dashboard/appointments" class="edit-form">
${csrfField(csrf)}
${otherErrors(errors, Object.keys(emptyBooking))}
${selectField({ name: "customerId", label: "Customer", value: form.customerId, required: true, errors, options: customers })}
${selectField({ name: "type", label: "Type", value: form.type, required: true, errors, options: appointmentTypes.map((t) => [t, humanize(t)] as const) })}
${inputField({ name: "date", label: `When (${timeZone})`, type: "datetime-local", value: form.date, required: true, errors })}
${inputField({ name: "duration", label: "Duration (minutes, 15-480)", type: "number", value: form.duration, required: true, errors })}
${textareaField({ name: "notes", label: "Notes", value: form.notes, maxLength: 2000, errors })}
<div class="actions"><button type="submit" class="primary">Book appointment</button><a class="button" href="/dashboard/appointments">Cancel</a></div>
</form>`;
}
