// Orders in the dashboard: the list (most recently updated first), an order's page with its
// history timeline, the status form (only moves the workflow table allows) and the tracking link.

import type { FastifyInstance } from "fastify";
import { AppError, type FieldError } from "../../errors.ts";
import { searchTerm } from "../../lib/search.ts";
import { formatInZone } from "../../lib/time-zone.ts";
import {
  type PickableCustomer,
  pickableCustomer,
  pickCustomers,
} from "../../modules/customers/customer-picker.service.ts";
import type { OrderSchema as OrderJson, UpdateOrderStatusBody } from "../../modules/orders/orders.schemas.ts";
import {
  CreateOrderBody,
  UpdateOrderBody,
  UpdateOrderStatusBody as UpdateOrderStatusSchema,
} from "../../modules/orders/orders.schemas.ts";
import {
  createOrder,
  getOrder,
  getOrderTrackingToken,
  listOrders,
  updateOrder,
  updateOrderStatus,
} from "../../modules/orders/orders.service.ts";
import {
  allowedOrderMoves,
  type OrderStatus,
  orderStatuses,
  orderTypes,
} from "../../modules/orders/orders.workflow.ts";
import { allowOwnScripts, csrfField, sendPage } from "../../web/browser-scope.ts";
import { toCsv } from "../../web/csv.ts";
import {
  assertFormValid,
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
import type { DashboardDeps } from "../deps.ts";
import { dashboardPage, emptyState, pager, time } from "../layout.ts";
import { pageContext, vendorIdOf, vendorTimeZone } from "../page-context.ts";
import { memberMay, requireMay } from "../permission.ts";
import { humanize, showFormAgain, statusBadge } from "./common.ts";
import { customerSearchForm, customerSelect } from "./customer-picker.ts";
import { datesSection, getOrderRisk } from "./order-dates.section.ts";
import { acceptPhotoForms, MAX_FORM_PHOTOS, PHOTO_FIELD, storeFormPhotos } from "./status-photos.ts";
import { timeline } from "./timeline.ts";

export async function orderPages(app: FastifyInstance, { ctx, config }: DashboardDeps): Promise<void> {
  app.get("/dashboard/orders", { schema: { hide: true } }, async (request, reply) => {
    const limit = pageLimit(queryParam(request.query, "limit"));
    const cursor = queryParam(request.query, "cursor");
    const find = orderFilter(request.query);
    const page = JSON.parse(
      await listOrders(ctx, vendorIdOf(request), {
        limit,
        cursor,
        status: find.status ? [find.status] : undefined,
        search: find.search,
      }),
    ) as {
      orders: OrderJson[];
      nextCursor: string | null;
    };
    const pageCtx = await pageContext(ctx, request, reply);
    const params = filterParams(find);
    if (limit !== 25) params.limit = String(limit);
    const filtered = Boolean(find.status || find.search);
    const toolbar = html`<div class="toolbar"><a class="button primary" href="/dashboard/orders/new">New order</a>
${memberMay(request, "export") ? html`<a class="button" href="/dashboard/orders/export.csv${queryString(filterParams(find))}" download>Export CSV</a>` : ""}</div>
<form method="get" action="/dashboard/orders" class="filter" role="search">
<label for="order-search">Search (order number, name, e-mail, phone, model)</label>
<input id="order-search" name="q" type="search" maxlength="100" value="${find.search ?? ""}">
<label for="order-status">Status</label>
<select id="order-status" name="status"><option value="">Any status</option>
${orderStatuses.map((st) => html`<option value="${st}"${st === find.status ? html` selected` : ""}>${humanize(st)}</option>`)}
</select>
<div class="actions"><button type="submit">Find</button>${filtered ? html`<a class="button" href="/dashboard/orders">Clear</a>` : ""}</div>
</form>`;
    const list =
      page.orders.length === 0
        ? emptyState(
            filtered
              ? "No order matches."
              : cursor
                ? "No more orders."
                : "No orders yet. Create one here, or through the API.",
          )
        : html`<div class="table-wrap"><table class="orders cards">
<thead><tr><th>Order</th><th>Customer</th><th>Status</th><th>Updated</th></tr></thead>
<tbody>${page.orders.map(
            (o) => html`<tr>
<td><a href="/dashboard/orders/${o.id}">#${String(o.number)} ${o.model ?? humanize(o.type)}</a><div class="muted">${humanize(o.type)}</div></td>
<td>${o.customer ? html`${o.customer.name}${o.customer.email ? html`<div class="muted">${o.customer.email}</div>` : ""}` : html`<span class="muted">Erased customer</span>`}</td>
<td>${statusBadge(o.status)}</td>
<td>${time(o.updatedAt, pageCtx.timeZone)}</td></tr>`,
          )}</tbody></table></div>
${pager(pageCtx.t, "/dashboard/orders", page.nextCursor, params)}`;
    return sendPage(reply, 200, dashboardPage(pageCtx, "orders", "Orders", html`${toolbar}${list}`));
  });

  const exportGuard = { schema: { hide: true }, preHandler: requireMay(ctx, "export") };
  app.get("/dashboard/orders/export.csv", exportGuard, async (request, reply) => {
    const vendorId = vendorIdOf(request);
    const find = orderFilter(request.query);
    const timeZone = await vendorTimeZone(ctx, request);
    const rows: string[][] = [];
    let cursor: string | undefined;
    // Bounded: at most EXPORT_MAX_ROWS orders, a page of 100 at a time.
    do {
      const page = JSON.parse(
        await listOrders(ctx, vendorId, {
          limit: 100,
          cursor,
          status: find.status ? [find.status] : undefined,
          search: find.search,
        }),
      ) as { orders: OrderJson[]; nextCursor: string | null };
      for (const o of page.orders) {
        rows.push([
          o.id,
          String(o.number),
          o.status,
          o.type,
          o.model ?? "",
          o.size ?? "",
          o.color ?? "",
          o.customer?.name ?? "",
          o.customer?.email ?? "",
          formatInZone(new Date(o.createdAt), timeZone),
          formatInZone(new Date(o.updatedAt), timeZone),
        ]);
      }
      cursor = page.nextCursor ?? undefined;
    } while (cursor && rows.length < EXPORT_MAX_ROWS);
    const header = [
      "Order ID",
      "Number",
      "Status",
      "Type",
      "Model",
      "Size",
      "Color",
      "Customer",
      "Customer e-mail",
    ];
    return reply
      .type("text/csv; charset=utf-8")
      .header("content-disposition", 'attachment; filename="orders.csv"')
      .send(toCsv([...header, `Created (${timeZone})`, `Updated (${timeZone})`], rows));
  });

  app.get("/dashboard/orders/new", { schema: { hide: true } }, async (request, reply) => {
    const vendorId = vendorIdOf(request);
    const find = searchTerm(queryParam(request.query, "find"));
    const chosen = await pickableCustomer(ctx, vendorId, queryParam(request.query, "customerId"));
    const found = find === undefined ? [] : await pickCustomers(ctx, vendorId, find);
    const options = chosen ? [chosen, ...found.filter((c) => c.id !== chosen.id)] : found;
    const pageCtx = await pageContext(ctx, request, reply);
    // The picker's search-as-you-type is our own file (CSP 'self'); the page works without it.
    allowOwnScripts(reply, { fetch: true });
    const form = newOrderForm(
      { customerId: chosen?.id ?? (found.length === 1 ? found[0]?.id : "") },
      [],
      pageCtx.csrf,
      options,
    );
    return sendPage(
      reply,
      200,
      dashboardPage(
        pageCtx,
        "orders",
        "New order",
        html`${customerSearchForm(find, find === undefined ? undefined : found.length)}${form}`,
      ),
    );
  });

  app.post(
    "/dashboard/orders",
    { schema: { hide: true }, preHandler: app.csrfProtection },
    async (request, reply) => {
      const vendorId = vendorIdOf(request);
      const posted = formOf(request);
      const form = Object.fromEntries(newOrderFields.map((f) => [f, field(posted, f)])) as NewOrderForm;
      // A customer picked: the new-customer fields are left aside (CONTRACT 12: not both).
      const customer = form.customerId
        ? { customerId: form.customerId }
        : {
            customerName: form.customerName.trim() || undefined,
            customerEmail: optional(form.customerEmail),
            customerPhone: optional(form.customerPhone),
            weddingDate: optional(form.weddingDate),
          };
      const picked = await pickableCustomer(ctx, vendorId, form.customerId || undefined);
      const input = {
        ...customer,
        type: form.type,
        model: optional(form.model),
        size: optional(form.size),
        color: optional(form.color),
        description: optional(form.description),
        specialRequests: optional(form.specialRequests),
      };
      const save = async () => {
        const { id } = await createOrder(ctx, vendorId, input as CreateOrderBody);
        return { message: "Order created.", location: `/dashboard/orders/${id}` };
      };
      return saveForm(reply, config, formErrors(CreateOrderBody, input), save, (status, errors) =>
        showFormAgain(
          ctx,
          request,
          reply,
          status,
          { section: "orders", title: "New order", notDone: "The order was not created" },
          (page) => newOrderForm(form, errors, page.csrf, picked ? [picked] : []),
        ),
      );
    },
  );

  app.post<{ Params: { id: string } }>(
    "/dashboard/orders/:id/details",
    { schema: { hide: true }, preHandler: app.csrfProtection },
    async (request, reply) => {
      const vendorId = vendorIdOf(request);
      const back = `/dashboard/orders/${encodeURIComponent(request.params.id)}`;
      return runAction(reply, { ctx, config }, { done: back }, async (form) => {
        const input = Object.fromEntries(detailFields.map(([name]) => [name, optional(field(form, name))]));
        assertFormValid(UpdateOrderBody, input, fieldLabels);
        await updateOrder(ctx, vendorId, request.params.id, input as UpdateOrderBody);
        return { kind: "success", message: "Order details saved." };
      });
    },
  );

  app.get<{ Params: { id: string } }>(
    "/dashboard/orders/:id",
    { schema: { hide: true } },
    async (request, reply) => {
      const vendorId = vendorIdOf(request);
      const order = JSON.parse(await getOrder(ctx, vendorId, request.params.id)) as OrderJson;
      const token = await getOrderTrackingToken(ctx, vendorId, order.id);
      const pageCtx = await pageContext(ctx, request, reply);
      const dates = datesSection(order, await getOrderRisk(ctx, vendorId, order.id), pageCtx.csrf);
      // The tracking link's Copy button is the page's one script (our own file, CSP 'self').
      allowOwnScripts(reply);
      const title = `Order #${order.number} — ${order.model ?? humanize(order.type)}`;
      return sendPage(
        reply,
        200,
        dashboardPage(
          pageCtx,
          "orders",
          title,
          orderBody(order, `${config.publicUrl}/track/${token}`, pageCtx.csrf, pageCtx.timeZone, dates),
        ),
      );
    },
  );

  // The status form is multipart (its photos from the camera): a scope of its own reads it.
  await app.register(async (photoForms) => {
    await acceptPhotoForms(photoForms);
    photoForms.post<{ Params: { id: string } }>(
      "/dashboard/orders/:id/status",
      { schema: { hide: true }, preHandler: app.csrfProtection },
      async (request, reply) => {
        const vendorId = vendorIdOf(request);
        const back = `/dashboard/orders/${encodeURIComponent(request.params.id)}`;
        return runAction(reply, { ctx, config }, { done: back }, async (form) => {
          // Nothing is preselected, so a message alone never moves the order: the status is
          // chosen, never defaulted.
          if (field(form, "status") === "") {
            throw new AppError(
              "validation_failed",
              "Choose the new status, or “no change” to add only a message.",
            );
          }
          const input = {
            status: field(form, "status"),
            message: optional(field(form, "message")),
            imageUrl: optional(field(form, "imageUrl")),
          };
          assertFormValid(UpdateOrderStatusSchema, input, fieldLabels);
          const photoIds = await storeFormPhotos(
            request,
            ctx,
            { publicUrl: config.publicUrl, quotaBytes: config.photoQuotaBytes },
            vendorId,
            request.params.id,
          );
          const result = await updateOrderStatus(ctx, vendorId, request.params.id, {
            ...(input as UpdateOrderStatusBody),
            ...(photoIds.length > 0 ? { photoIds } : {}),
          });
          const photos =
            photoIds.length === 0 ? "" : ` with ${photoIds.length} photo${photoIds.length === 1 ? "" : "s"}`;
          return { kind: "success", message: `Status set to ${humanize(result.moved.status)}${photos}.` };
        });
      },
    );
  });
}

const fieldLabels: Record<string, string> = {
  status: "Status",
  message: "Message",
  imageUrl: "Image URL",
  model: "Model",
  size: "Size",
  color: "Color",
  description: "Description",
  specialRequests: "Special requests",
};

/** At most this many orders in one CSV export. */
export const EXPORT_MAX_ROWS = 10_000;

interface OrderFind {
  status?: OrderStatus | undefined;
  search?: string | undefined;
}

/** The list's search box and status filter from the query string (unknown statuses ignored). */
function orderFilter(query: unknown): OrderFind {
  const status = queryParam(query, "status");
  return {
    status:
      status && (orderStatuses as readonly string[]).includes(status) ? (status as OrderStatus) : undefined,
    search: searchTerm(queryParam(query, "q")),
  };
}

function filterParams(find: OrderFind): Record<string, string> {
  const params: Record<string, string> = {};
  if (find.search) params.q = find.search;
  if (find.status) params.status = find.status;
  return params;
}

function queryString(params: Record<string, string>): string {
  const text = new URLSearchParams(params).toString();
  return text ? `?${text}` : "";
}

const newOrderFields = [
  "customerId",
  "customerName",
  "customerEmail",
  "customerPhone",
  "weddingDate",
  "type",
  "model",
  "size",
  "color",
  "description",
  "specialRequests",
] as const;
type NewOrderForm = Record<(typeof newOrderFields)[number], string>;

function newOrderForm(
  form: Partial<NewOrderForm>,
  errors: FieldError[],
  csrf: string,
  customers: readonly PickableCustomer[],
): SafeHtml {
  return html`<form method="post" action="/dashboard/orders" class="edit-form">
${csrfField(csrf)}
${otherErrors(errors, newOrderFields)}
<fieldset><legend>Customer</legend>
${customerSelect(customers, form.customerId, errors)}
<p class="muted">Or a new customer:</p>
${inputField({ name: "customerName", label: "Name", value: form.customerName, maxLength: 200, errors })}
${inputField({ name: "customerEmail", label: "E-mail (links the order to the customer with this e-mail)", type: "email", value: form.customerEmail, maxLength: 254, errors })}
${inputField({ name: "customerPhone", label: "Phone", type: "tel", value: form.customerPhone, maxLength: 50, errors })}
${inputField({ name: "weddingDate", label: "Wedding date", type: "date", value: form.weddingDate, errors })}
</fieldset>
<fieldset><legend>Order</legend>
${selectField({ name: "type", label: "Type", value: form.type, required: true, errors, options: orderTypes.map((t) => [t, humanize(t)] as const) })}
${inputField({ name: "model", label: "Model", value: form.model, maxLength: 200, errors })}
${inputField({ name: "size", label: "Size", value: form.size, maxLength: 50, errors })}
${inputField({ name: "color", label: "Color", value: form.color, maxLength: 100, errors })}
${textareaField({ name: "description", label: "Description", value: form.description, maxLength: 5000, errors })}
${textareaField({ name: "specialRequests", label: "Special requests", value: form.specialRequests, maxLength: 5000, errors })}
</fieldset>
<div class="actions"><button type="submit" class="primary">Create order</button><a class="button" href="/dashboard/orders">Cancel</a></div>
</form>`;
}

const detailFields = [
  ["model", "Model", 200],
  ["size", "Size", 50],
  ["color", "Color", 100],
  ["description", "Description", 5000],
  ["specialRequests", "Special requests", 5000],
] as const;

function detailsForm(order: OrderJson, csrf: string): SafeHtml {
  return html`<details class="edit"><summary>Edit details</summary>
<form method="post" action="/dashboard/orders/${order.id}/details" class="edit-form">
${csrfField(csrf)}
${detailFields.map(([name, label, max]) =>
  max > 200
    ? textareaField({ name, label, value: order[name] ?? "", maxLength: max })
    : inputField({ name, label, value: order[name] ?? "", maxLength: max }),
)}
<div class="actions"><button type="submit" class="primary">Save details</button></div>
</form></details>`;
}

function orderBody(
  order: OrderJson,
  trackingUrl: string,
  csrf: string,
  timeZone: string,
  dates: SafeHtml,
): SafeHtml {
  const moves = allowedOrderMoves(order.type, order.status);
  return html`<p>${statusBadge(order.status)} <span class="muted">${humanize(order.type)} · updated ${time(order.updatedAt, timeZone)}</span></p>
<dl class="facts">
<dt>Customer</dt><dd>${order.customer ? html`<a href="/dashboard/customers/${order.customerId}">${order.customer.name}</a>${order.customer.email ? html` <span class="muted">${order.customer.email}</span>` : ""}` : html`<span class="muted">Erased on request</span>`}</dd>
${order.size ? html`<dt>Size</dt><dd>${order.size}</dd>` : ""}
${order.color ? html`<dt>Color</dt><dd>${order.color}</dd>` : ""}
${order.description ? html`<dt>Description</dt><dd class="prose">${order.description}</dd>` : ""}
${order.specialRequests ? html`<dt>Special requests</dt><dd class="prose">${order.specialRequests}</dd>` : ""}
</dl>
${detailsForm(order, csrf)}
${dates}
<h2>Tracking link</h2>
<p class="muted">Send this link to the customer: it shows the status and your messages, nothing else.</p>
<label for="tracking-url">Tracking link</label>
<div class="copy-row"><input id="tracking-url" type="text" readonly value="${trackingUrl}" data-copy-source>
<button type="button" data-copy-from="tracking-url" hidden>Copy</button></div>
<p><a href="${trackingUrl}" target="_blank" rel="noopener noreferrer">Open the tracking page</a></p>
<script src="/assets/copy-secret.js" defer></script>
<h2>Update status</h2>
${
  moves.length === 0
    ? html`<p class="muted">${humanize(order.status)} is final: the status cannot change any more.</p>`
    : html`<form method="post" action="/dashboard/orders/${order.id}/status" class="status-form" enctype="multipart/form-data">
${csrfField(csrf)}
<label for="status">New status</label>
<select id="status" name="status" required>
<option value="" selected>Choose…</option>
${moves.map((s) => html`<option value="${s}">${humanize(s)}</option>`)}
<option value="${order.status}">${humanize(order.status)} (no change, add a message)</option>
</select>
<label for="message">Message to the customer</label>
<textarea id="message" name="message" maxlength="2000"></textarea>
<label for="photos">Photos (up to ${String(MAX_FORM_PHOTOS)}, 15 MB each)</label>
<input id="photos" name="${PHOTO_FIELD}" type="file" accept="image/*" capture="environment" multiple>
<p class="muted">Shown to the customer on her tracking page and in the status e-mail, without the camera's location data.</p>
<label for="imageUrl">Or an image URL (progress photo)</label>
<input id="imageUrl" name="imageUrl" type="url" maxlength="2048" placeholder="https://…">
<div class="actions"><button type="submit" class="primary">Update status</button></div>
</form>`
}
<h2>History</h2>
${timeline(order.updates, timeZone)}`;
}
