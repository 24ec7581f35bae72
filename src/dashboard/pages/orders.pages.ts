// Orders in the dashboard: the list (most recently updated first), an order's page with its
// history timeline, the status form (only moves the workflow table allows) and the tracking link.

import type { FastifyInstance } from "fastify";
import { AppError } from "../../errors.ts";
import type { OrderSchema as OrderJson, UpdateOrderStatusBody } from "../../modules/orders/orders.schemas.ts";
import { UpdateOrderStatusBody as UpdateOrderStatusSchema } from "../../modules/orders/orders.schemas.ts";
import {
  getOrder,
  getOrderTrackingToken,
  listOrders,
  updateOrderStatus,
} from "../../modules/orders/orders.service.ts";
import { canTransition, type OrderStatus, orderTransitions } from "../../modules/orders/orders.workflow.ts";
import { csrfField, sendPage } from "../browser-scope.ts";
import type { DashboardDeps } from "../dashboard.routes.ts";
import { formErrors, formField, optional, pageLimit, queryParam } from "../form.ts";
import { html, type SafeHtml } from "../html.ts";
import { dashboardPage, emptyState, pager, time } from "../layout.ts";
import { pageContext, vendorIdOf } from "../page-context.ts";
import { humanize, refusedAction, statusBadge, succeeded } from "./common.ts";
import { timeline } from "./timeline.ts";

/** The statuses an order may move to from its current one (its type considered). */
export function allowedMoves(order: Pick<OrderJson, "type" | "status">): OrderStatus[] {
  return orderTransitions[order.status].filter((to) => canTransition(order.type, order.status, to));
}

export async function orderPages(app: FastifyInstance, { ctx, config }: DashboardDeps): Promise<void> {
  app.get("/dashboard/orders", { schema: { hide: true } }, async (request, reply) => {
    const limit = pageLimit(queryParam(request.query, "limit"));
    const cursor = queryParam(request.query, "cursor");
    const page = JSON.parse(await listOrders(ctx, vendorIdOf(request), { limit, cursor })) as {
      orders: OrderJson[];
      nextCursor: string | null;
    };
    const body =
      page.orders.length === 0
        ? emptyState(
            cursor ? "No more orders." : "No orders yet. Orders created through the API appear here.",
          )
        : html`<div class="table-wrap"><table class="orders">
<thead><tr><th>Order</th><th>Customer</th><th>Status</th><th class="optional">Updated</th></tr></thead>
<tbody>${page.orders.map(
            (o) => html`<tr>
<td><a href="/dashboard/orders/${o.id}">${o.model ?? humanize(o.type)}</a><div class="muted">${humanize(o.type)}</div></td>
<td>${o.customer.name}${o.customer.email ? html`<div class="muted">${o.customer.email}</div>` : ""}</td>
<td>${statusBadge(o.status)}</td>
<td class="optional">${time(o.updatedAt)}</td></tr>`,
          )}</tbody></table></div>
${pager("/dashboard/orders", page.nextCursor, limit === 25 ? {} : { limit: String(limit) })}`;
    return sendPage(
      reply,
      200,
      dashboardPage(await pageContext(ctx, request, reply), "orders", "Orders", body),
    );
  });

  app.get<{ Params: { id: string } }>(
    "/dashboard/orders/:id",
    { schema: { hide: true } },
    async (request, reply) => {
      const vendorId = vendorIdOf(request);
      const order = JSON.parse(await getOrder(ctx, vendorId, request.params.id)) as OrderJson;
      const token = await getOrderTrackingToken(ctx, vendorId, order.id);
      const pageCtx = await pageContext(ctx, request, reply);
      const title = order.model ?? humanize(order.type);
      return sendPage(
        reply,
        200,
        dashboardPage(
          pageCtx,
          "orders",
          title,
          orderBody(order, `${config.publicUrl}/track/${token}`, pageCtx.csrf),
        ),
      );
    },
  );

  app.post<{ Params: { id: string } }>(
    "/dashboard/orders/:id/status",
    { schema: { hide: true }, preHandler: app.csrfProtection },
    async (request, reply) => {
      const vendorId = vendorIdOf(request);
      const back = `/dashboard/orders/${encodeURIComponent(request.params.id)}`;
      const input = {
        status: formField(request.body, "status"),
        message: optional(formField(request.body, "message")),
        imageUrl: optional(formField(request.body, "imageUrl")),
      };
      try {
        const errors = formErrors(UpdateOrderStatusSchema, input);
        if (errors.length > 0) {
          throw new AppError(
            "validation_failed",
            errors.map((e) => `${fieldLabels[e.field] ?? e.field} ${e.message}`).join("; "),
          );
        }
        const result = await updateOrderStatus(
          ctx,
          vendorId,
          request.params.id,
          input as UpdateOrderStatusBody,
        );
        return succeeded(reply, config, `Status set to ${humanize(result.status)}.`, back);
      } catch (error) {
        return refusedAction(reply, config, error, back);
      }
    },
  );
}

const fieldLabels: Record<string, string> = { status: "Status", message: "Message", imageUrl: "Image URL" };

function orderBody(order: OrderJson, trackingUrl: string, csrf: string): SafeHtml {
  const moves = allowedMoves(order);
  return html`<p>${statusBadge(order.status)} <span class="muted">${humanize(order.type)} · updated ${time(order.updatedAt)}</span></p>
<dl class="facts">
<dt>Customer</dt><dd><a href="/dashboard/customers/${order.customerId}">${order.customer.name}</a>${order.customer.email ? html` <span class="muted">${order.customer.email}</span>` : ""}</dd>
${order.size ? html`<dt>Size</dt><dd>${order.size}</dd>` : ""}
${order.color ? html`<dt>Color</dt><dd>${order.color}</dd>` : ""}
${order.description ? html`<dt>Description</dt><dd class="prose">${order.description}</dd>` : ""}
${order.specialRequests ? html`<dt>Special requests</dt><dd class="prose">${order.specialRequests}</dd>` : ""}
</dl>
<h2>Tracking link</h2>
<p class="muted">Send this link to the customer: it shows the status and your messages, nothing else.</p>
<label for="tracking-url">Tracking link</label>
<input id="tracking-url" type="text" readonly value="${trackingUrl}">
<p><a href="${trackingUrl}" target="_blank" rel="noopener noreferrer">Open the tracking page</a></p>
<h2>Update status</h2>
${
  moves.length === 0
    ? html`<p class="muted">${humanize(order.status)} is final: the status cannot change any more.</p>`
    : html`<form method="post" action="/dashboard/orders/${order.id}/status" class="status-form">
${csrfField(csrf)}
<label for="status">New status</label>
<select id="status" name="status" required>
${moves.map((s) => html`<option value="${s}">${humanize(s)}</option>`)}
<option value="${order.status}">${humanize(order.status)} (no change, add a message)</option>
</select>
<label for="message">Message to the customer</label>
<textarea id="message" name="message" maxlength="2000"></textarea>
<label for="imageUrl">Image URL (progress photo)</label>
<input id="imageUrl" name="imageUrl" type="url" maxlength="2048" placeholder="https://…">
<div class="actions"><button type="submit" class="primary">Update status</button></div>
</form>`
}
<h2>History</h2>
${timeline(order.updates)}`;
}
