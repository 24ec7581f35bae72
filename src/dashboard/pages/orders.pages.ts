// Orders in the dashboard: the list (most recently updated first), an order's page with its
// history timeline, the status form (only moves the workflow table allows) and the tracking link.

import type { FastifyInstance } from "fastify";
import { AppError, type FieldError } from "../../errors.ts";
import type { Translator } from "../../i18n/translator.ts";
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
import { field, formErrors, formOf, optional, pageLimit, queryParam } from "../../web/form.ts";
import { runAction, saveForm } from "../../web/form-actions.ts";
import { inputField, otherErrors, selectField, textareaField } from "../../web/form-fields.ts";
import { html, type SafeHtml } from "../../web/html.ts";
import { readerOf } from "../../web/reader.ts";
import { ReaderRefusal } from "../../web/refusal.ts";
import type { DashboardDeps } from "../deps.ts";
import { dashboardPage, emptyState, pager, time } from "../layout.ts";
import { pageContext, vendorIdOf, vendorTimeZone } from "../page-context.ts";
import { memberMay, requireMay } from "../permission.ts";
import {
  assertFormValidIn,
  localizedErrors,
  messageWithHtml,
  orderStatusName,
  orderTypeName,
  showFormAgain,
  statusBadge,
} from "./common.ts";
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
    const { t } = pageCtx;
    const k = (key: string) => t.t(`dashboard.orders.${key}`);
    const params = filterParams(find);
    if (limit !== 25) params.limit = String(limit);
    const filtered = Boolean(find.status || find.search);
    const toolbar = html`<div class="toolbar"><a class="button primary" href="/dashboard/orders/new">${k("new")}</a>
${memberMay(request, "export") ? html`<a class="button" href="/dashboard/orders/export.csv${queryString(filterParams(find))}" download>${k("list.export")}</a>` : ""}</div>
<form method="get" action="/dashboard/orders" class="filter" role="search">
<label for="order-search">${k("list.search")}</label>
<input id="order-search" name="q" type="search" maxlength="100" value="${find.search ?? ""}">
<label for="order-status">${t.t("common.status")}</label>
<select id="order-status" name="status"><option value="">${k("list.anyStatus")}</option>
${orderStatuses.map((st) => html`<option value="${st}"${st === find.status ? html` selected` : ""}>${orderStatusName(t, st)}</option>`)}
</select>
<div class="actions"><button type="submit">${k("list.find")}</button>${filtered ? html`<a class="button" href="/dashboard/orders">${k("list.clear")}</a>` : ""}</div>
</form>`;
    const list =
      page.orders.length === 0
        ? emptyState(filtered ? k("list.noMatch") : cursor ? k("list.noMore") : k("list.none"))
        : html`<div class="table-wrap"><table class="orders cards">
<thead><tr><th>${k("list.order")}</th><th>${k("list.customer")}</th><th>${t.t("common.status")}</th><th>${k("list.updated")}</th></tr></thead>
<tbody>${page.orders.map(
            (o) => html`<tr>
<td><a href="/dashboard/orders/${o.id}">#${String(o.number)} ${o.model ?? orderTypeName(t, o.type)}</a><div class="muted">${orderTypeName(t, o.type)}</div></td>
<td>${o.customer ? html`${o.customer.name}${o.customer.email ? html`<div class="muted">${o.customer.email}</div>` : ""}` : html`<span class="muted">${k("list.erasedCustomer")}</span>`}</td>
<td>${statusBadge(o.status, orderStatusName(t, o.status))}</td>
<td>${time(o.updatedAt, pageCtx.timeZone, t)}</td></tr>`,
          )}</tbody></table></div>
${pager(t, "/dashboard/orders", page.nextCursor, params)}`;
    return sendPage(reply, 200, dashboardPage(pageCtx, "orders", k("title"), html`${toolbar}${list}`));
  });

  const exportGuard = { schema: { hide: true }, preHandler: requireMay(ctx, "export") };
  app.get("/dashboard/orders/export.csv", exportGuard, async (request, reply) => {
    const vendorId = vendorIdOf(request);
    const find = orderFilter(request.query);
    const timeZone = await vendorTimeZone(ctx, request);
    const { t } = readerOf(request);
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
      "orderId",
      "number",
      "status",
      "type",
      "model",
      "size",
      "color",
      "customer",
      "customerEmail",
    ].map((name) => t.t(`dashboard.orders.csv.${name}`));
    const times = [
      t.t("dashboard.orders.csv.created", { timeZone }),
      t.t("dashboard.orders.csv.updated", { timeZone }),
    ];
    return reply
      .type("text/csv; charset=utf-8")
      .header("content-disposition", 'attachment; filename="orders.csv"')
      .send(toCsv([...header, ...times], rows));
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
      pageCtx.t,
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
        pageCtx.t.t("dashboard.orders.new"),
        html`${customerSearchForm(find, find === undefined ? undefined : found.length, pageCtx.t)}${form}`,
      ),
    );
  });

  app.post(
    "/dashboard/orders",
    { schema: { hide: true }, preHandler: app.csrfProtection },
    async (request, reply) => {
      const vendorId = vendorIdOf(request);
      const { t } = readerOf(request);
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
        return { message: t.t("dashboard.orders.created"), location: `/dashboard/orders/${id}` };
      };
      return saveForm(reply, config, formErrors(CreateOrderBody, input), save, (status, errors) =>
        showFormAgain(
          ctx,
          request,
          reply,
          status,
          {
            section: "orders",
            title: t.t("dashboard.orders.new"),
            notDone: t.t("dashboard.orders.notCreated"),
          },
          (page) =>
            newOrderForm(page.t, form, localizedErrors(page.t, errors), page.csrf, picked ? [picked] : []),
        ),
      );
    },
  );

  app.post<{ Params: { id: string } }>(
    "/dashboard/orders/:id/details",
    { schema: { hide: true }, preHandler: app.csrfProtection },
    async (request, reply) => {
      const vendorId = vendorIdOf(request);
      const { t } = readerOf(request);
      const back = `/dashboard/orders/${encodeURIComponent(request.params.id)}`;
      return runAction(reply, { ctx, config }, { done: back }, async (form) => {
        const input = Object.fromEntries(detailFields.map((name) => [name, optional(field(form, name))]));
        assertFormValidIn(t, UpdateOrderBody, input, fieldLabels(t));
        await updateOrder(ctx, vendorId, request.params.id, input as UpdateOrderBody);
        return { kind: "success", message: t.t("dashboard.orders.detailsSaved") };
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
      const dates = datesSection(pageCtx.t, order, await getOrderRisk(ctx, vendorId, order.id), pageCtx.csrf);
      // The tracking link's Copy button is the page's one script (our own file, CSP 'self').
      allowOwnScripts(reply);
      const { t } = pageCtx;
      const title = t.t("dashboard.orders.page.title", {
        number: String(order.number),
        item: order.model ?? orderTypeName(t, order.type),
      });
      return sendPage(
        reply,
        200,
        dashboardPage(
          pageCtx,
          "orders",
          title,
          orderBody(t, order, `${config.publicUrl}/track/${token}`, pageCtx.csrf, pageCtx.timeZone, dates),
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
        const { t } = readerOf(request);
        const back = `/dashboard/orders/${encodeURIComponent(request.params.id)}`;
        return runAction(reply, { ctx, config }, { done: back }, async (form) => {
          // Nothing is preselected, so a message alone never moves the order: the status is
          // chosen, never defaulted.
          if (field(form, "status") === "") {
            throw new ReaderRefusal("validation_failed", t.t("dashboard.orders.statusForm.chooseStatus"));
          }
          const input = {
            status: field(form, "status"),
            message: optional(field(form, "message")),
            imageUrl: optional(field(form, "imageUrl")),
          };
          assertFormValidIn(t, UpdateOrderStatusSchema, input, fieldLabels(t));
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
          }).catch(async (error: unknown) => {
            throw await refusedMove(t, error, ctx, vendorId, request.params.id, input.status);
          });
          const status = orderStatusName(t, result.moved.status);
          return {
            kind: "success",
            message: t.t("dashboard.orders.statusForm.statusSet", { status, count: photoIds.length }),
          };
        });
      },
    );
  });
}

type LabelledField =
  | "status"
  | "message"
  | "imageUrl"
  | "model"
  | "size"
  | "color"
  | "description"
  | "specialRequests";

/** The fields' names in a refusal's flash ("Image URL must be a valid absolute URL"). */
function fieldLabels(t: Translator): Record<LabelledField, string> {
  const k = (key: string) => t.t(`dashboard.orders.field.${key}`);
  return {
    status: t.t("common.status"),
    message: k("message"),
    imageUrl: k("imageUrl"),
    model: k("model"),
    size: k("size"),
    color: k("color"),
    description: k("description"),
    specialRequests: k("specialRequests"),
  };
}

/**
 * A move the workflow refused (someone else moved the order meanwhile, or a hand-made post) in
 * the member's language; the statuses stay codes, as the workflow names them.
 */
async function refusedMove(
  t: Translator,
  error: unknown,
  ctx: DashboardDeps["ctx"],
  vendorId: string,
  orderId: string,
  to: string,
): Promise<unknown> {
  if (!(error instanceof AppError) || error.code !== "invalid_transition") return error;
  const { currentStatus, allowedStatuses } = error.extra as {
    currentStatus?: string;
    allowedStatuses?: string[];
  };
  if (currentStatus === undefined || allowedStatuses === undefined) return error;
  const order = JSON.parse(await getOrder(ctx, vendorId, orderId)) as OrderJson;
  const message =
    allowedStatuses.length > 0
      ? t.t("dashboard.orders.statusForm.cannotMove", {
          type: orderTypeName(t, order.type),
          from: orderStatusName(t, currentStatus),
          to: orderStatusName(t, to),
          allowed: t.list(
            allowedStatuses.map((s) => orderStatusName(t, s)),
            "disjunction",
          ),
        })
      : t.t("dashboard.orders.statusForm.finalCannotMove", {
          from: orderStatusName(t, currentStatus),
          to: orderStatusName(t, to),
        });
  return new ReaderRefusal("invalid_transition", message, error.extra);
}

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
  t: Translator,
  form: Partial<NewOrderForm>,
  errors: FieldError[],
  csrf: string,
  customers: readonly PickableCustomer[],
): SafeHtml {
  const k = (key: string) => t.t(`dashboard.orders.${key}`);
  const label = fieldLabels(t);
  return html`<form method="post" action="/dashboard/orders" class="edit-form">
${csrfField(csrf)}
${otherErrors(errors, newOrderFields)}
<fieldset><legend>${k("list.customer")}</legend>
${customerSelect(customers, form.customerId, errors, t)}
<p class="muted">${k("form.orNewCustomer")}</p>
${inputField({ name: "customerName", label: t.t("common.name"), value: form.customerName, maxLength: 200, errors })}
${inputField({ name: "customerEmail", label: k("form.email"), type: "email", value: form.customerEmail, maxLength: 254, errors })}
${inputField({ name: "customerPhone", label: t.t("common.phone"), type: "tel", value: form.customerPhone, maxLength: 50, errors })}
${inputField({ name: "weddingDate", label: t.t("common.weddingDate"), type: "date", value: form.weddingDate, errors })}
</fieldset>
<fieldset><legend>${k("list.order")}</legend>
${selectField({ name: "type", label: k("field.type"), value: form.type, required: true, errors, options: orderTypes.map((type) => [type, orderTypeName(t, type)] as const) })}
${inputField({ name: "model", label: label.model, value: form.model, maxLength: 200, errors })}
${inputField({ name: "size", label: label.size, value: form.size, maxLength: 50, errors })}
${inputField({ name: "color", label: label.color, value: form.color, maxLength: 100, errors })}
${textareaField({ name: "description", label: label.description, value: form.description, maxLength: 5000, errors })}
${textareaField({ name: "specialRequests", label: label.specialRequests, value: form.specialRequests, maxLength: 5000, errors })}
</fieldset>
<div class="actions"><button type="submit" class="primary">${k("form.create")}</button><a class="button" href="/dashboard/orders">${t.t("common.cancel")}</a></div>
</form>`;
}

/** The details form's fields: a limit above 200 characters is a text area. */
const detailFields = ["model", "size", "color", "description", "specialRequests"] as const;
const detailMax: Record<(typeof detailFields)[number], number> = {
  model: 200,
  size: 50,
  color: 100,
  description: 5000,
  specialRequests: 5000,
};

function detailsForm(t: Translator, order: OrderJson, csrf: string): SafeHtml {
  const labels = fieldLabels(t);
  return html`<details class="edit"><summary>${t.t("dashboard.orders.page.editDetails")}</summary>
<form method="post" action="/dashboard/orders/${order.id}/details" class="edit-form">
${csrfField(csrf)}
${detailFields.map((name) => {
  const [label, max] = [labels[name], detailMax[name]];
  return max > 200
    ? textareaField({ name, label, value: order[name] ?? "", maxLength: max })
    : inputField({ name, label, value: order[name] ?? "", maxLength: max });
})}
<div class="actions"><button type="submit" class="primary">${t.t("dashboard.orders.page.saveDetails")}</button></div>
</form></details>`;
}

function orderBody(
  t: Translator,
  order: OrderJson,
  trackingUrl: string,
  csrf: string,
  timeZone: string,
  dates: SafeHtml,
): SafeHtml {
  const k = (key: string, values?: Record<string, string | number>) => t.t(`dashboard.orders.${key}`, values);
  const labels = fieldLabels(t);
  const moves = allowedOrderMoves(order.type, order.status);
  const current = orderStatusName(t, order.status);
  return html`<p>${statusBadge(order.status, current)} <span class="muted">${messageWithHtml(t, "dashboard.orders.page.typeUpdated", { type: orderTypeName(t, order.type) }, { time: time(order.updatedAt, timeZone, t) })}</span></p>
<dl class="facts">
<dt>${k("list.customer")}</dt><dd>${order.customer ? html`<a href="/dashboard/customers/${order.customerId}">${order.customer.name}</a>${order.customer.email ? html` <span class="muted">${order.customer.email}</span>` : ""}` : html`<span class="muted">${k("page.erased")}</span>`}</dd>
${order.size ? html`<dt>${labels.size}</dt><dd>${order.size}</dd>` : ""}
${order.color ? html`<dt>${labels.color}</dt><dd>${order.color}</dd>` : ""}
${order.description ? html`<dt>${labels.description}</dt><dd class="prose">${order.description}</dd>` : ""}
${order.specialRequests ? html`<dt>${labels.specialRequests}</dt><dd class="prose">${order.specialRequests}</dd>` : ""}
</dl>
${detailsForm(t, order, csrf)}
${dates}
<h2>${k("tracking.title")}</h2>
<p class="muted">${k("tracking.hint")}</p>
<label for="tracking-url">${k("tracking.title")}</label>
<div class="copy-row"><input id="tracking-url" type="text" readonly value="${trackingUrl}" data-copy-source>
<button type="button" data-copy-from="tracking-url" hidden>${k("tracking.copy")}</button></div>
<p><a href="${trackingUrl}" target="_blank" rel="noopener noreferrer">${k("tracking.open")}</a></p>
<script src="/assets/copy-secret.js" defer></script>
<h2>${k("statusForm.title")}</h2>
${
  moves.length === 0
    ? html`<p class="muted">${k("statusForm.final", { status: current })}</p>`
    : html`<form method="post" action="/dashboard/orders/${order.id}/status" class="status-form" enctype="multipart/form-data">
${csrfField(csrf)}
<label for="status">${k("statusForm.newStatus")}</label>
<select id="status" name="status" required>
<option value="" selected>${k("statusForm.choose")}</option>
${moves.map((st) => html`<option value="${st}">${orderStatusName(t, st)}</option>`)}
<option value="${order.status}">${k("statusForm.noChange", { status: current })}</option>
</select>
<label for="message">${k("statusForm.message")}</label>
<textarea id="message" name="message" maxlength="2000"></textarea>
<label for="photos">${k("statusForm.photos", { max: MAX_FORM_PHOTOS, size: 15 })}</label>
<input id="photos" name="${PHOTO_FIELD}" type="file" accept="image/*" capture="environment" multiple>
<p class="muted">${k("statusForm.photosHint")}</p>
<label for="imageUrl">${k("statusForm.imageUrl")}</label>
<input id="imageUrl" name="imageUrl" type="url" maxlength="2048" placeholder="https://…">
<div class="actions"><button type="submit" class="primary">${k("statusForm.title")}</button></div>
</form>`
}
<h2>${k("page.history")}</h2>
${timeline(order.updates, timeZone, t)}`;
}
