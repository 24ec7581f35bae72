// Customers in the dashboard: the list (newest first, filter by e-mail), a customer's page with
// their orders and appointments, and the edit form, which reports the service's refusals (an
// e-mail another customer has, malformed JSON) on the form itself.
import type { FastifyInstance } from "fastify";
import { AppError, type FieldError } from "../../errors.ts";
import { listAppointments } from "../../modules/appointments/appointments.service.ts";
import type { CustomerJson } from "../../modules/customers/customers.presenter.ts";
import { UpdateCustomerBody } from "../../modules/customers/customers.schemas.ts";
import { getCustomer, listCustomers, updateCustomer } from "../../modules/customers/customers.service.ts";
import type { OrderSchema as OrderJson } from "../../modules/orders/orders.schemas.ts";
import { listCustomerOrders } from "../../modules/orders/orders.service.ts";
import { sendPage } from "../browser-scope.ts";
import type { DashboardDeps } from "../dashboard.routes.ts";
import { formErrors, formField, optional, pageLimit, queryParam } from "../form.ts";
import { html } from "../html.ts";
import { dashboardPage, emptyState, pager, time } from "../layout.ts";
import { pageContext, vendorIdOf } from "../page-context.ts";
import { humanize, statusBadge, succeeded } from "./common.ts";
import { type CustomerForm, customerEditForm, formFromCustomer, jsonField } from "./customer-form.ts";

export async function customerPages(app: FastifyInstance, { ctx, config }: DashboardDeps): Promise<void> {
  app.get("/dashboard/customers", { schema: { hide: true } }, async (request, reply) => {
    const limit = pageLimit(queryParam(request.query, "limit"));
    const cursor = queryParam(request.query, "cursor");
    const email = queryParam(request.query, "email")?.trim().slice(0, 254) || undefined;
    const page = await listCustomers(ctx, vendorIdOf(request), { limit, cursor, email });
    const params: Record<string, string> = {};
    if (limit !== 25) params.limit = String(limit);
    if (email) params.email = email;
    const filter = html`<form method="get" action="/dashboard/customers" class="filter">
<label for="email-filter">Filter by e-mail</label>
<input id="email-filter" name="email" type="search" value="${email ?? ""}">
<div class="actions"><button type="submit">Filter</button>${email ? html`<a class="button" href="/dashboard/customers">Clear</a>` : ""}</div>
</form>`;
    const list =
      page.customers.length === 0
        ? emptyState(
            email
              ? "No customer has this e-mail address."
              : cursor
                ? "No more customers."
                : "No customers yet.",
          )
        : html`<div class="table-wrap"><table class="customers">
<thead><tr><th>Name</th><th>E-mail</th><th class="optional">Wedding date</th><th class="optional">Added</th></tr></thead>
<tbody>${page.customers.map(
            (c) => html`<tr><td><a href="/dashboard/customers/${c.id}">${c.name}</a></td>
<td>${c.email ?? html`<span class="muted">–</span>`}</td>
<td class="optional">${c.weddingDate ?? ""}</td><td class="optional">${time(c.createdAt)}</td></tr>`,
          )}</tbody></table></div>
${pager("/dashboard/customers", page.nextCursor, params)}`;
    const body = html`${filter}${list}`;
    return sendPage(
      reply,
      200,
      dashboardPage(await pageContext(ctx, request, reply), "customers", "Customers", body),
    );
  });

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
      const body = html`<div class="actions"><a class="button" href="/dashboard/customers/${customer.id}/edit">Edit</a></div>
<dl class="facts">
<dt>E-mail</dt><dd>${customer.email ?? "–"}</dd>
<dt>Phone</dt><dd>${customer.phone ?? "–"}</dd>
<dt>Wedding date</dt><dd>${customer.weddingDate ?? "–"}</dd>
<dt>Notes</dt><dd class="prose">${customer.notes ?? "–"}</dd>
<dt>Added</dt><dd>${time(customer.createdAt)}</dd>
</dl>
${jsonBlock("Measurements", customer.measurements)}
${jsonBlock("Preferences", customer.preferences)}
<h2>Orders (${customer.counts.orders})</h2>
${customer.counts.orders > orders.length ? html`<p class="muted">The ${orders.length} most recently updated.</p>` : ""}
${
  orders.length === 0
    ? emptyState("No orders for this customer.")
    : html`<ul class="plain">${orders.map(
        (o) =>
          html`<li><a href="/dashboard/orders/${o.id}">${o.model ?? humanize(o.type)}</a> ${statusBadge(o.status)} <span class="muted">${time(o.updatedAt)}</span></li>`,
      )}</ul>`
}
<h2>Appointments (${customer.counts.appointments})</h2>
${customer.counts.appointments > appointments.length ? html`<p class="muted">The first ${appointments.length} by date.</p>` : ""}
${
  appointments.length === 0
    ? emptyState("No appointments for this customer.")
    : html`<ul class="plain">${appointments.map(
        (a) =>
          html`<li><a href="/dashboard/appointments/${a.id}">${humanize(a.type)}</a> ${time(a.date)} ${statusBadge(a.status)}</li>`,
      )}</ul>`
}`;
      return sendPage(
        reply,
        200,
        dashboardPage(await pageContext(ctx, request, reply), "customers", customer.name, body),
      );
    },
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
          `Edit ${customer.name}`,
          customerEditForm(customer.id, formFromCustomer(customer), [], pageCtx.csrf),
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
      const form: CustomerForm = {
        name: formField(request.body, "name"),
        email: formField(request.body, "email"),
        phone: formField(request.body, "phone"),
        weddingDate: formField(request.body, "weddingDate"),
        notes: formField(request.body, "notes"),
        measurements: formField(request.body, "measurements"),
        preferences: formField(request.body, "preferences"),
      };
      const errors: FieldError[] = [];
      const measurements = jsonField("measurements", form.measurements, errors);
      const preferences = jsonField("preferences", form.preferences, errors);
      const input = {
        name: form.name.trim(),
        email: optional(form.email),
        phone: optional(form.phone),
        weddingDate: optional(form.weddingDate),
        notes: form.notes.trim() === "" ? null : form.notes,
        measurements,
        preferences,
      };
      errors.push(...formErrors(UpdateCustomerBody, input));
      let status = 400;
      if (errors.length === 0) {
        try {
          await updateCustomer(ctx, vendorId, current.id, input as UpdateCustomerBody);
          return succeeded(reply, config, "Customer saved.", `/dashboard/customers/${current.id}`);
        } catch (error) {
          if (!(error instanceof AppError) || error.status === 404 || error.status >= 500) throw error;
          status = error.status;
          errors.push(...(error.extra.errors ?? [{ field: "(form)", message: error.message }]));
        }
      }
      const pageCtx = await pageContext(ctx, request, reply);
      pageCtx.flash = {
        kind: "error",
        message: "The customer was not saved: please correct the fields marked below.",
      };
      return sendPage(
        reply,
        status,
        dashboardPage(
          pageCtx,
          "customers",
          `Edit ${current.name}`,
          customerEditForm(current.id, form, errors, pageCtx.csrf),
        ),
      );
    },
  );
}

function jsonBlock(label: string, value: CustomerJson["measurements"]) {
  if (!value || Object.keys(value).length === 0) return html``;
  return html`<h2>${label}</h2><pre>${JSON.stringify(value, null, 2)}</pre>`;
}
