// Appointments in the dashboard: the upcoming ones (from now on, earliest first) with the
// Confirm / Complete / Cancel buttons the spec 3.1 transition table allows from each status,
// and an appointment's page.

import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ServiceContext } from "../../context.ts";
import type { FieldError } from "../../errors.ts";
import type { Translator } from "../../i18n/translator.ts";
import {
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
import { type Form, field, formErrors, formOf, optional, pageLimit, queryParam } from "../../web/form.ts";
import { runAction, saveForm } from "../../web/form-actions.ts";
import { inputField, otherErrors, selectField, textareaField } from "../../web/form-fields.ts";
import { html, type SafeHtml } from "../../web/html.ts";
import { readerOf } from "../../web/reader.ts";
import { ReaderRefusal } from "../../web/refusal.ts";
import { confirmedAction, confirmLink } from "../confirm-step.ts";
import type { DashboardDeps } from "../deps.ts";
import { dashboardPage, emptyState, type PageContext, pager, shownAt, time } from "../layout.ts";
import { pageContext, vendorIdOf, vendorTimeZone } from "../page-context.ts";
import { appointmentTimeOf, assertFormValidIn, durationOf, humanize } from "./common.ts";
import { withCustomerNotice } from "./customer-notice.ts";

const k = (key: string) => `dashboard.appointments.${key}`;

/** The buttons, in the order shown; each appears only where the transition table allows it. */
const actions: Array<[AppointmentStatus, string, string]> = [
  ["CONFIRMED", "confirm", "primary"],
  ["COMPLETED", "complete", ""],
];
/** The statuses a posted move may ask for, each with its flash. */
const done: Record<string, string> = {
  CONFIRMED: "done.CONFIRMED",
  COMPLETED: "done.COMPLETED",
  CANCELLED: "done.CANCELLED",
};

/** An appointment type as the reader reads it (the Today page's words for the same types). */
function typeName(t: Translator, type: string): string {
  return t.has(`today.appointmentType.${type}`) ? t.t(`today.appointmentType.${type}`) : humanize(type);
}

/** The status badge in the reader's language; the raw code stays in data-status. */
function statusBadge(t: Translator, status: string): SafeHtml {
  const name = t.has(k(`state.${status}`)) ? t.t(k(`state.${status}`)) : humanize(status);
  return html`<span class="badge status" data-status="${status}">${name}</span>`;
}

function actionButtons(t: Translator, a: AppointmentJson, csrf: string, back: string): SafeHtml {
  const moves = allowedAppointmentMoves(a.status);
  const allowed = actions.filter(([to]) => moves.includes(to));
  if (allowed.length === 0) return html``;
  // Cancelling is final: it goes through its confirmation page (confirm-step.ts).
  const oneClick = allowed.filter(([to]) => to !== "CANCELLED");
  return html`${
    oneClick.length > 0
      ? html`<form method="post" action="/dashboard/appointments/${a.id}/status" class="inline">
${csrfField(csrf)}<input type="hidden" name="back" value="${back}">
${oneClick.map(([to, label, cls]) => html`<button type="submit" name="status" value="${to}" class="${cls}">${t.t(k(`action.${label}`))}</button> `)}
</form>`
      : ""
  }${moves.includes("CANCELLED") ? confirmLink(`/dashboard/appointments/${a.id}/cancel`, t.t(k("action.cancel"))) : ""}`;
}

export async function appointmentPages(app: FastifyInstance, deps: DashboardDeps): Promise<void> {
  const { ctx, config } = deps;
  /**
   * The booking form shown again after saveForm refused it (common.ts's showFormAgain, with the
   * flash in the reader's language): what was not done, the form below with its errors marked.
   */
  const showBookingAgain = async (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    form: (page: PageContext) => Promise<SafeHtml>,
  ) => {
    const page = await pageContext(ctx, request, reply);
    page.flash = { kind: "error", message: page.t.t(k("notBooked")) };
    return sendPage(
      reply,
      status,
      dashboardPage(page, "appointments", page.t.t(k("book")), await form(page)),
    );
  };

  app.get("/dashboard/appointments", { schema: { hide: true } }, async (request, reply) => {
    const vendorId = vendorIdOf(request);
    const limit = pageLimit(queryParam(request.query, "limit"));
    const cursor = queryParam(request.query, "cursor");
    const requested = queryParam(request.query, "day");
    const day: DayView = requested && requested in dayViews ? (requested as DayView) : "upcoming";
    const pageCtx = await pageContext(ctx, request, reply);
    const { t } = pageCtx;
    const range = dayRange(day, ctx.now(), pageCtx.timeZone);
    const page = await listAppointments(ctx, vendorId, { ...range, limit, cursor });
    const names = await customerNames(
      ctx,
      vendorId,
      page.appointments.map((a) => a.customerId),
    );
    const params: Record<string, string> = day === "upcoming" ? {} : { day };
    if (limit !== 25) params.limit = String(limit);
    const tabs = html`<div class="toolbar"><a class="button primary" href="/dashboard/appointments/new">${t.t(k("book"))}</a></div>
<nav class="tabs" aria-label="${t.t(k("views"))}">${Object.keys(dayViews).map(
      (key) =>
        html`<a href="/dashboard/appointments${key === "upcoming" ? "" : `?day=${key}`}"${key === day ? html` aria-current="page"` : ""}>${t.t(k(`view.${key}`))}</a>`,
    )}</nav>`;
    const list =
      page.appointments.length === 0
        ? emptyState(t.t(k(cursor ? "empty.more" : `empty.${day}`)))
        : html`<div class="table-wrap"><table class="appointments cards">
<thead><tr><th>${t.t(k("whenIn"), { zone: pageCtx.timeZone })}</th><th>${t.t(k("customer"))}</th><th>${t.t(k("type"))}</th><th>${t.t(k("status"))}</th><th>${t.t(k("actions"))}</th></tr></thead>
<tbody>${page.appointments.map(
            (a) => html`<tr data-id="${a.id}">
<td><a href="/dashboard/appointments/${a.id}">${time(a.date, pageCtx.timeZone, t)}</a><div class="muted">${t.t(k("minutes"), { minutes: a.duration })}</div></td>
<td><a href="/dashboard/customers/${a.customerId}">${names.get(a.customerId) ?? "–"}</a></td>
<td>${typeName(t, a.type)}${a.notes ? html`<div class="muted prose">${a.notes}</div>` : ""}</td>
<td>${statusBadge(t, a.status)}</td>
<td>${actionButtons(t, a, pageCtx.csrf, "/dashboard/appointments")}</td></tr>`,
          )}</tbody></table></div>
${pager(pageCtx.t, "/dashboard/appointments", page.nextCursor, params)}`;
    const title = t.t(k(`title.${day}`));
    return sendPage(reply, 200, dashboardPage(pageCtx, "appointments", title, html`${tabs}${list}`));
  });

  app.get("/dashboard/appointments/new", { schema: { hide: true } }, async (request, reply) => {
    const vendorId = vendorIdOf(request);
    const pageCtx = await pageContext(ctx, request, reply);
    const { t } = pageCtx;
    const form: BookingForm = { ...emptyBooking, customerId: queryParam(request.query, "customerId") ?? "" };
    return sendPage(
      reply,
      200,
      dashboardPage(
        pageCtx,
        "appointments",
        t.t(k("book")),
        bookingForm(
          t,
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
      const { t } = readerOf(request);
      const timeZone = await vendorTimeZone(ctx, request);
      const posted = formOf(request);
      const form = Object.fromEntries(
        (Object.keys(emptyBooking) as Array<keyof BookingForm>).map((k) => [k, field(posted, k)]),
      ) as unknown as BookingForm;
      const errors: FieldError[] = [];
      const date = fromLocalInput(form.date, timeZone);
      if (!date) errors.push({ field: "date", message: t.t(k("errors.date")) });
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
        return { message: t.t(k("booked")), location: `/dashboard/appointments/${created.id}` };
      };
      return saveForm(reply, config, errors, save, (status, errors) =>
        showBookingAgain(request, reply, status, async (page) =>
          bookingForm(
            t,
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
      const { t } = readerOf(request);
      const timeZone = await vendorTimeZone(ctx, request);
      return runAction(reply, { ctx, config }, { done: back }, async (form) => {
        if (!fromLocalInput(field(form, "date"), timeZone))
          throw new ReaderRefusal("validation_failed", t.t(k("errors.when")));
        const input = appointmentTimeOf(form, timeZone, t);
        assertFormValidIn(t, UpdateAppointmentBody, input, {
          date: t.t(k("when")),
          duration: t.t(k("duration")),
          notes: t.t("common.notes"),
        });
        const { notice } = await updateAppointmentTelling(
          ctx,
          vendorId,
          request.params.id,
          input as UpdateAppointmentBody,
        );
        return { kind: "success", message: withCustomerNotice(t.t(k("saved")), notice) };
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
      const { t } = pageCtx;
      const body = html`<p>${statusBadge(t, a.status)}</p>
<dl class="facts">
<dt>${t.t(k("when"))}</dt><dd>${time(a.date, pageCtx.timeZone, t)} <span class="muted">(${t.t(k("minutes"), { minutes: a.duration })})</span></dd>
<dt>${t.t(k("customer"))}</dt><dd><a href="/dashboard/customers/${a.customerId}">${names.get(a.customerId) ?? "–"}</a></dd>
${a.orderId ? html`<dt>${t.t(k("order"))}</dt><dd><a href="/dashboard/orders/${a.orderId}">${t.t(k("openOrder"))}</a></dd>` : ""}
<dt>${t.t("common.notes")}</dt><dd class="prose">${a.notes ?? "–"}</dd>
</dl>
<div class="actions">${actionButtons(t, a, pageCtx.csrf, `/dashboard/appointments/${a.id}`)}</div>
<details class="edit"><summary>${t.t(k("edit"))}</summary>
<form method="post" action="/dashboard/appointments/${a.id}/edit" class="edit-form">
${csrfField(pageCtx.csrf)}
${inputField({ name: "date", id: "edit-date", label: t.t(k("whenIn"), { zone: pageCtx.timeZone }), type: "datetime-local", value: toLocalInput(new Date(a.date), pageCtx.timeZone), required: true })}
${inputField({ name: "duration", label: t.t(k("duration")), type: "number", value: String(a.duration), required: true })}
${textareaField({ name: "notes", label: t.t("common.notes"), value: a.notes ?? "", maxLength: 2000 })}
<div class="actions"><button type="submit" class="primary">${t.t("common.save")}</button></div>
</form></details>`;
      return sendPage(
        reply,
        200,
        dashboardPage(
          pageCtx,
          "appointments",
          t.t(k("appointmentTitle"), { type: typeName(t, a.type) }),
          body,
        ),
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
      const { t } = readerOf(request);
      const back = field((request.body ?? {}) as Form, "back") === own ? own : "/dashboard/appointments";
      return runAction(reply, { ctx, config }, { done: back }, async (form) => {
        const status = field(form, "status");
        if (!(status in done)) {
          throw new ReaderRefusal("validation_failed", t.t(k("errors.chooseAction")));
        }
        // A cancellation only from its confirmation page: a post of the old one-click form lands there.
        if (status === "CANCELLED")
          return { kind: "error", message: t.t(k("confirmCancel")), location: `${own}/cancel` };
        const { notice } = await updateAppointmentTelling(ctx, vendorId, id, {
          status: status as AppointmentStatus,
        });
        return { kind: "success", message: withCustomerNotice(t.t(k(done[status] ?? "")), notice) };
      });
    },
  );

  confirmedAction(app, deps, "/dashboard/appointments/:id/cancel", {
    confirmation: async (request) => {
      const vendorId = vendorIdOf(request);
      const a = await getAppointment(ctx, vendorId, request.params.id ?? "");
      const names = await customerNames(ctx, vendorId, [a.customerId]);
      const timeZone = await vendorTimeZone(ctx, request);
      const { t } = readerOf(request);
      const name = names.get(a.customerId);
      return {
        section: "appointments",
        title: name
          ? t.t(k("cancel.title"), { type: a.type, name })
          : t.t(k("cancel.titleUnnamed"), { type: a.type }),
        consequence: t.t(k("cancel.consequence"), { date: shownAt(new Date(a.date), timeZone, t) }),
        button: t.t(k("cancel.button")),
        back: `/dashboard/appointments/${a.id}`,
      };
    },
    act: async (request) => {
      const { t } = readerOf(request);
      const { notice } = await updateAppointmentTelling(ctx, vendorIdOf(request), request.params.id ?? "", {
        status: "CANCELLED",
      });
      return { kind: "success", message: withCustomerNotice(t.t(k("done.CANCELLED")), notice) };
    },
    done: (request) => `/dashboard/appointments/${encodeURIComponent(request.params.id ?? "")}`,
  });
}

/** The list's views, computed on the shop's calendar (its time zone). */
const dayViews = { upcoming: true, today: true, week: true, past: true } as const;
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
  t: Translator,
  customers: ReadonlyArray<readonly [string, string]>,
  form: BookingForm,
  errors: FieldError[],
  csrf: string,
  timeZone: string,
): SafeHtml {
  if (customers.length === 0) {
    return emptyState(
      t.t(k("customerFirst")),
      html`<a class="button primary" href="/dashboard/customers/new">${t.t(k("newCustomer"))}</a>`,
    );
  }
  return html`<form method="post" action="/dashboard/appointments" class="edit-form">
${csrfField(csrf)}
${otherErrors(errors, Object.keys(emptyBooking))}
${selectField({ name: "customerId", label: t.t(k("customer")), value: form.customerId, required: true, errors, options: customers })}
${selectField({ name: "type", label: t.t(k("type")), value: form.type, required: true, errors, options: appointmentTypes.map((type) => [type, typeName(t, type)] as const) })}
${inputField({ name: "date", label: t.t(k("whenIn"), { zone: timeZone }), type: "datetime-local", value: form.date, required: true, errors })}
${inputField({ name: "duration", label: t.t(k("duration")), type: "number", value: form.duration, required: true, errors })}
${textareaField({ name: "notes", label: t.t("common.notes"), value: form.notes, maxLength: 2000, errors })}
<div class="actions"><button type="submit" class="primary">${t.t(k("book"))}</button><a class="button" href="/dashboard/appointments">${t.t("common.cancel")}</a></div>
</form>`;
}
