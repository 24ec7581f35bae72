// Customers in the dashboard: the list (newest first, filter by e-mail), a customer's page with
// their orders and appointments, and the edit form, which reports the service's refusals (an
// e-mail another customer has, malformed JSON) on the form itself.

import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { FieldError } from "../../errors.ts";
import { isLanguage, languages } from "../../i18n/languages.ts";
import type { Translator } from "../../i18n/translator.ts";
import { searchTerm } from "../../lib/search.ts";
import { formatInZone } from "../../lib/time-zone.ts";
import { listAppointments } from "../../modules/appointments/appointments.service.ts";
import { customerUnsubscribedAt } from "../../modules/customers/customer-mail.service.ts";
import type { CustomerJson } from "../../modules/customers/customers.presenter.ts";
import { CreateCustomerBody, UpdateCustomerBody } from "../../modules/customers/customers.schemas.ts";
import { createCustomer, getCustomer, listCustomers } from "../../modules/customers/customers.service.ts";
import type { OrderSchema as OrderJson } from "../../modules/orders/orders.schemas.ts";
import { listCustomerOrders } from "../../modules/orders/orders.service.ts";
import { eraseCustomer } from "../../modules/use-cases/customer-erasure.service.ts";
import { updateCustomer } from "../../modules/use-cases/customer-update.service.ts";
import { sendPage } from "../../web/browser-scope.ts";
import { toCsv } from "../../web/csv.ts";
import {
  type Form,
  field,
  fields,
  formErrors,
  formOf,
  optional,
  pageLimit,
  queryParam,
} from "../../web/form.ts";
import { saveForm } from "../../web/form-actions.ts";
import { html, type SafeHtml } from "../../web/html.ts";
import { readerOf } from "../../web/reader.ts";
import { confirmedAction, confirmLink } from "../confirm-step.ts";
import type { DashboardDeps } from "../deps.ts";
import { dashboardPage, emptyState, type PageContext, pager, time } from "../layout.ts";
import { pageContext, vendorIdOf, vendorTimeZone } from "../page-context.ts";
import { memberMay, requireMay } from "../permission.ts";
import { humanize } from "./common.ts";
import {
  ADD_ROWS_FIELD,
  type CustomerForm,
  customerEditForm,
  EMPTY_ROWS,
  formFromCustomer,
  localizedFieldError,
  objectOf,
  postedRows,
  rowFields,
  rowNameField,
  rowsOf,
  rowValueField,
  withEmptyRows,
} from "./customer-form.ts";
import { calendarDay } from "./today.page.ts";

export async function customerPages(app: FastifyInstance, deps: DashboardDeps): Promise<void> {
  const { ctx, config } = deps;
  app.get("/dashboard/customers", { schema: { hide: true } }, async (request, reply) => {
    const limit = pageLimit(queryParam(request.query, "limit"));
    const cursor = queryParam(request.query, "cursor");
    const email = queryParam(request.query, "email")?.trim().slice(0, 254) || undefined;
    const search = searchTerm(queryParam(request.query, "q"));
    const page = await listCustomers(ctx, vendorIdOf(request), { limit, cursor, email, search });
    const pageCtx = await pageContext(ctx, request, reply);
    const { t } = pageCtx;
    const k = (key: string, values?: Record<string, string>) => t.t(`dashboard.customers.${key}`, values);
    const find: Record<string, string> = {};
    if (email) find.email = email;
    if (search) find.q = search;
    const params: Record<string, string> = { ...find };
    if (limit !== 25) params.limit = String(limit);
    const exportQuery = new URLSearchParams(find).toString();
    const filter = html`<div class="toolbar"><a class="button primary" href="/dashboard/customers/new">${k("new")}</a>
<a class="button" href="/dashboard/customers/duplicates">${k("duplicates")}</a>
${memberMay(request, "export") ? html`<a class="button" href="/dashboard/customers/export.csv${exportQuery ? `?${exportQuery}` : ""}" download>${k("exportCsv")}</a>` : ""}</div>
<form method="get" action="/dashboard/customers" class="filter" role="search">
<label for="customer-search">${k("search")}</label>
<input id="customer-search" name="q" type="search" maxlength="100" value="${search ?? ""}">
${email ? html`<input type="hidden" name="email" value="${email}"><p class="muted">${k("onlyEmail", { email })}</p>` : ""}
<div class="actions"><button type="submit">${k("find")}</button>${email || search ? html`<a class="button" href="/dashboard/customers">${k("clear")}</a>` : ""}</div>
</form>`;
    const list =
      page.customers.length === 0
        ? emptyState(
            k(email ? "empty.email" : search ? "empty.search" : cursor ? "empty.more" : "empty.none"),
          )
        : html`<div class="table-wrap"><table class="customers cards">
<thead><tr><th>${t.t("common.name")}</th><th>${t.t("common.email")}</th><th>${t.t("common.phone")}</th><th>${t.t("common.weddingDate")}</th><th>${k("added")}</th></tr></thead>
<tbody>${page.customers.map(
            (c) => html`<tr><td><a href="/dashboard/customers/${c.id}">${c.name}</a></td>
<td>${c.email ?? html`<span class="muted">–</span>`}</td>
<td>${c.phone ?? ""}</td>
<td>${c.weddingDate ? day(t, c.weddingDate) : ""}</td><td>${time(c.createdAt, pageCtx.timeZone, t)}</td></tr>`,
          )}</tbody></table></div>
${pager(pageCtx.t, "/dashboard/customers", page.nextCursor, params)}`;
    const body = html`${filter}${list}`;
    return sendPage(reply, 200, dashboardPage(pageCtx, "customers", t.t("dashboard.nav.customers"), body));
  });

  const exportGuard = { schema: { hide: true }, preHandler: requireMay(ctx, "export") };
  app.get("/dashboard/customers/export.csv", exportGuard, async (request, reply) => {
    const vendorId = vendorIdOf(request);
    const email = queryParam(request.query, "email")?.trim().slice(0, 254) || undefined;
    const search = searchTerm(queryParam(request.query, "q"));
    const timeZone = await vendorTimeZone(ctx, request);
    const { t } = readerOf(request);
    const rows: string[][] = [];
    let cursor: string | undefined;
    // Bounded: at most EXPORT_MAX_ROWS customers, a page of 100 at a time.
    do {
      const page = await listCustomers(ctx, vendorId, { limit: 100, cursor, email, search });
      for (const c of page.customers) {
        rows.push([
          c.id,
          c.name,
          c.email ?? "",
          c.phone ?? "",
          c.weddingDate ?? "",
          c.notes ?? "",
          formatInZone(new Date(c.createdAt), timeZone),
        ]);
      }
      cursor = page.nextCursor ?? undefined;
    } while (cursor && rows.length < EXPORT_MAX_ROWS);
    return reply
      .type("text/csv; charset=utf-8")
      .header("content-disposition", 'attachment; filename="customers.csv"')
      .send(
        toCsv(
          [
            t.t("dashboard.customers.csv.id"),
            t.t("common.name"),
            t.t("common.email"),
            t.t("common.phone"),
            t.t("common.weddingDate"),
            t.t("common.notes"),
            t.t("dashboard.customers.csv.added", { zone: timeZone }),
          ],
          rows,
        ),
      );
  });

  app.get("/dashboard/customers/new", { schema: { hide: true } }, async (request, reply) => {
    const pageCtx = await pageContext(ctx, request, reply);
    return sendPage(
      reply,
      200,
      dashboardPage(
        pageCtx,
        "customers",
        pageCtx.t.t("dashboard.customers.new"),
        customerEditForm(pageCtx.t, null, emptyCustomerForm, [], pageCtx.csrf),
      ),
    );
  });

  app.post(
    "/dashboard/customers",
    { schema: { hide: true }, preHandler: app.csrfProtection },
    async (request, reply) => {
      const vendorId = vendorIdOf(request);
      const { t } = readerOf(request);
      const posted = formOf(request);
      const form = customerFormOf(posted);
      const title = (t: Translator) => t.t("dashboard.customers.new");
      if (addingRows(posted)) {
        const pageCtx = await pageContext(ctx, request, reply);
        const page = customerEditForm(pageCtx.t, null, form, [], pageCtx.csrf);
        return sendPage(reply, 200, dashboardPage(pageCtx, "customers", title(pageCtx.t), page));
      }
      const errors: FieldError[] = [];
      const input = customerInput(t, form, errors);
      errors.push(...formErrors(CreateCustomerBody, input));
      const save = async () => {
        const created = await createCustomer(ctx, vendorId, input as CreateCustomerBody);
        return {
          message: t.t("dashboard.customers.created"),
          location: `/dashboard/customers/${created.id}`,
        };
      };
      return saveForm(reply, config, errors, save, (status, errors) =>
        showAgain(request, reply, status, { title, notDone: "dashboard.customers.notAdded" }, (page) =>
          customerEditForm(
            page.t,
            null,
            form,
            errors.map((e) => localizedFieldError(page.t, e)),
            page.csrf,
          ),
        ),
      );
    },
  );

  app.get<{ Params: { id: string } }>(
    "/dashboard/customers/:id",
    { schema: { hide: true } },
    async (request, reply) => {
      const vendorId = vendorIdOf(request);
      const customer = await getCustomer(ctx, vendorId, request.params.id);
      const orders = (
        JSON.parse(await listCustomerOrders(ctx, vendorId, customer.id)) as { orders: OrderJson[] }
      ).orders;
      const { appointments } = await listAppointments(ctx, vendorId, { customerId: customer.id, limit: 50 });
      const unsubscribedAt = await customerUnsubscribedAt(ctx, vendorId, customer.id);
      const pageCtx = await pageContext(ctx, request, reply);
      const { t } = pageCtx;
      const k = (key: string, values?: Record<string, string | number>) =>
        t.t(`dashboard.customers.${key}`, values);
      const body = html`<div class="actions"><a class="button" href="/dashboard/customers/${customer.id}/edit">${t.t("common.edit")}</a>
<a class="button" href="/dashboard/orders/new?customerId=${customer.id}">${k("newOrder")}</a>
<a class="button" href="/dashboard/appointments/new?customerId=${customer.id}">${k("bookAppointment")}</a>
${memberMay(request, "erase") ? confirmLink(`/dashboard/customers/${customer.id}/erase`, k("erase")) : ""}</div>
<dl class="facts">
<dt>${t.t("common.email")}</dt><dd>${customer.email ?? "–"}${unsubscribedAt ? html` <span class="badge" id="unsubscribed">${around(k("unsubscribed", { time: MARK }), time(unsubscribedAt, pageCtx.timeZone, t))}</span>` : ""}</dd>
<dt>${t.t("common.phone")}</dt><dd>${customer.phone ?? "–"}</dd>
<dt>${t.t("common.weddingDate")}</dt><dd>${customer.weddingDate ? day(t, customer.weddingDate) : "–"}</dd>
<dt>${t.t("common.notes")}</dt><dd class="prose">${customer.notes ?? "–"}</dd>
<dt>${k("added")}</dt><dd>${time(customer.createdAt, pageCtx.timeZone, t)}</dd>
</dl>
${rowsBlock(k("measurements.title"), customer.measurements)}
${rowsBlock(k("preferences.title"), customer.preferences)}
<h2>${k("orders", { count: customer.counts.orders })}</h2>
${customer.counts.orders > orders.length ? html`<p class="muted">${k("ordersShown", { count: orders.length })}</p>` : ""}
${
  orders.length === 0
    ? emptyState(k("noOrders"))
    : html`<ul class="plain">${orders.map(
        (o) =>
          html`<li><a href="/dashboard/orders/${o.id}">#${String(o.number)} ${o.model ?? named(t, `customer.orderType.${o.type}`, o.type)}</a> ${badge(t, "customer.orderStatus", o.status)} <span class="muted">${time(o.updatedAt, pageCtx.timeZone, t)}</span></li>`,
      )}</ul>`
}
<h2>${k("appointments", { count: customer.counts.appointments })}</h2>
${customer.counts.appointments > appointments.length ? html`<p class="muted">${k("appointmentsShown", { count: appointments.length })}</p>` : ""}
${
  appointments.length === 0
    ? emptyState(k("noAppointments"))
    : html`<ul class="plain">${appointments.map(
        (a) =>
          html`<li><a href="/dashboard/appointments/${a.id}">${named(t, `appointments.types.${a.type}`, a.type)}</a> ${time(a.date, pageCtx.timeZone, t)} ${badge(t, "dashboard.customers.appointmentStatus", a.status)}</li>`,
      )}</ul>`
}`;
      return sendPage(reply, 200, dashboardPage(pageCtx, "customers", customer.name, body));
    },
  );

  confirmedAction(
    app,
    deps,
    "/dashboard/customers/:id/erase",
    {
      confirmation: async (request) => {
        const customer = await getCustomer(ctx, vendorIdOf(request), request.params.id ?? "");
        const { t } = readerOf(request);
        const { name, counts } = customer;
        return {
          section: "customers",
          title: t.t("dashboard.customers.eraseTitle", { name }),
          consequence: t.t("dashboard.customers.eraseConsequence", { name, ...counts }),
          button: t.t("dashboard.customers.erase"),
          back: `/dashboard/customers/${customer.id}`,
        };
      },
      act: async (request) => {
        await eraseCustomer(ctx, vendorIdOf(request), request.params.id ?? "");
        return { kind: "success", message: readerOf(request).t.t("dashboard.customers.erased") };
      },
      done: () => "/dashboard/customers",
    },
    { preHandler: requireMay(ctx, "erase") },
  );

  app.get<{ Params: { id: string } }>(
    "/dashboard/customers/:id/edit",
    { schema: { hide: true } },
    async (request, reply) => {
      const customer = await getCustomer(ctx, vendorIdOf(request), request.params.id);
      const pageCtx = await pageContext(ctx, request, reply);
      return sendPage(
        reply,
        200,
        dashboardPage(
          pageCtx,
          "customers",
          pageCtx.t.t("dashboard.customers.editTitle", { name: customer.name }),
          customerEditForm(pageCtx.t, customer.id, formFromCustomer(customer), [], pageCtx.csrf),
        ),
      );
    },
  );

  app.post<{ Params: { id: string } }>(
    "/dashboard/customers/:id",
    { schema: { hide: true }, preHandler: app.csrfProtection },
    async (request, reply) => {
      const vendorId = vendorIdOf(request);
      // Another vendor's id (or none) is the 404 page before anything is read from the form.
      const current = await getCustomer(ctx, vendorId, request.params.id);
      const { t } = readerOf(request);
      const posted = formOf(request);
      const form = customerFormOf(posted);
      const title = (t: Translator) => t.t("dashboard.customers.editTitle", { name: current.name });
      if (addingRows(posted)) {
        const pageCtx = await pageContext(ctx, request, reply);
        const page = customerEditForm(pageCtx.t, current.id, form, [], pageCtx.csrf);
        return sendPage(reply, 200, dashboardPage(pageCtx, "customers", title(pageCtx.t), page));
      }
      const errors: FieldError[] = [];
      const input = customerInput(t, form, errors);
      errors.push(...formErrors(UpdateCustomerBody, input));
      const save = async () => {
        await updateCustomer(ctx, vendorId, current.id, input as UpdateCustomerBody);
        return { message: t.t("dashboard.customers.saved"), location: `/dashboard/customers/${current.id}` };
      };
      return saveForm(reply, config, errors, save, (status, errors) =>
        showAgain(request, reply, status, { title, notDone: "dashboard.customers.notSaved" }, (page) =>
          customerEditForm(
            page.t,
            current.id,
            form,
            errors.map((e) => localizedFieldError(page.t, e)),
            page.csrf,
          ),
        ),
      );
    },
  );

  /**
   * A form shown again after saveForm refused it, as showFormAgain (common.ts) shows one, but with
   * the whole flash sentence from the catalogue (`notDone`) and the API's field errors in the
   * reader's language.
   */
  async function showAgain(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    page: { title: (t: Translator) => string; notDone: string },
    form: (pageCtx: PageContext) => SafeHtml,
  ): Promise<FastifyReply> {
    const pageCtx = await pageContext(ctx, request, reply);
    pageCtx.flash = { kind: "error", message: pageCtx.t.t(page.notDone) };
    return sendPage(reply, status, dashboardPage(pageCtx, "customers", page.title(pageCtx.t), form(pageCtx)));
  }
}

/** A status badge with the status's name in the reader's language; the code stays in data-status. */
function badge(t: Translator, section: string, status: string): SafeHtml {
  return html`<span class="badge status" data-status="${status}">${named(t, `${section}.${status}`, status)}</span>`;
}

/** A code's name from the catalogue (a status or a type), else the code as words. */
function named(t: Translator, key: string, code: string): string {
  return t.has(key) ? t.t(key) : humanize(code);
}

/** Stands for an element inside a catalogue message: the message is split around it. */
const MARK = "\u0000";

/** A message with `element` where it has MARK (the message escaped, the element kept). */
function around(message: string, element: SafeHtml): SafeHtml {
  const [before = "", after = ""] = message.split(MARK);
  return html`${before}${element}${after}`;
}

/** Measurements or preferences as labelled rows (a nested value as JSON text). */
function rowsBlock(label: string, value: CustomerJson["measurements"]) {
  const rows = rowsOf(value);
  if (rows.length === 0) return html``;
  return html`<h2>${label}</h2><dl class="facts">${rows.map((r) => html`<dt>${r.name}</dt><dd>${r.value}</dd>`)}</dl>`;
}

/** At most this many customers in one CSV export. */
export const EXPORT_MAX_ROWS = 10_000;

const emptyCustomerForm: CustomerForm = {
  name: "",
  email: "",
  phone: "",
  weddingDate: "",
  language: "",
  notes: "",
  measurements: withEmptyRows([]),
  preferences: withEmptyRows([]),
};

const textFields = ["name", "email", "phone", "weddingDate", "language", "notes"] as const;

/** The form as posted; the rows of "Add rows"' list get more empty ones. */
function customerFormOf(posted: Form): CustomerForm {
  const form = { ...emptyCustomerForm };
  for (const key of textFields) form[key] = field(posted, key);
  const adding = field(posted, ADD_ROWS_FIELD);
  for (const f of rowFields) {
    const rows = postedRows(fields(posted, rowNameField(f)), fields(posted, rowValueField(f)));
    form[f] = rows;
    if (adding === f) form[f] = withEmptyRows(rows, EMPTY_ROWS * 2);
  }
  return form;
}

/** Whether the form was posted by an "Add rows" button (show it again with more rows, save nothing). */
function addingRows(posted: Form): boolean {
  return (rowFields as readonly string[]).includes(field(posted, ADD_ROWS_FIELD));
}

/** The service input the create and edit forms post (rows made objects, errors collected). */
function customerInput(t: Translator, form: CustomerForm, errors: FieldError[]) {
  const measurements = objectOf(t, "measurements", form.measurements, errors);
  const preferences = objectOf(t, "preferences", form.preferences, errors);
  if (form.language !== "" && !isLanguage(form.language)) {
    errors.push({
      field: "language",
      message: t.t("dashboard.customers.errors.language", { list: languages.join(", ") }),
    });
  }
  return {
    name: form.name.trim(),
    email: optional(form.email),
    phone: optional(form.phone),
    weddingDate: optional(form.weddingDate),
    language: optional(form.language),
    notes: form.notes.trim() === "" ? null : form.notes,
    measurements,
    preferences,
  };
}

/** A calendar date (a wedding) in the reader's language, the ISO date kept in datetime. */
function day(t: Translator, date: string): SafeHtml {
  return html`<time datetime="${date}">${calendarDay(t, date)}</time>`;
}
