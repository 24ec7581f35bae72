// The order page's dates (CONTRACT 12, Dates of an order): the due date (set, or derived from the
// wedding date), a rental's pickup and due-back dates, the risk rules the order misses now and
// whether it is overdue, and the form that edits the dates (POST /dashboard/orders/:id/dates,
// through the same PATCH rules as the API). Texts through src/i18n, section `today.order`.
import type { FastifyInstance } from "fastify";
import type { Translator } from "../../i18n/translator.ts";
import { getOrderRisk } from "../../modules/orders/order-alerts.service.ts";
import type { OrderSchema as OrderJson } from "../../modules/orders/orders.schemas.ts";
import {
  type UpdateOrderBody,
  UpdateOrderBody as UpdateOrderSchema,
} from "../../modules/orders/orders.schemas.ts";
import { updateOrder } from "../../modules/orders/orders.service.ts";
import { csrfField } from "../../web/browser-scope.ts";
import { field } from "../../web/form.ts";
import { runAction } from "../../web/form-actions.ts";
import { inputField } from "../../web/form-fields.ts";
import { html, type SafeHtml } from "../../web/html.ts";
import { readerOf } from "../../web/reader.ts";
import type { DashboardDeps } from "../deps.ts";
import { vendorIdOf } from "../page-context.ts";
import { assertFormValidIn } from "./common.ts";
import { calendarDay } from "./today.page.ts";

type Risk = Awaited<ReturnType<typeof getOrderRisk>>;

export { getOrderRisk };

/** The section in the reader's language (the member's, as the rest of the page). */
export function datesSection(t: Translator, order: OrderJson, risk: Risk, csrf: string): SafeHtml {
  const status = (s: string) => (t.has(`today.status.${s}`) ? t.t(`today.status.${s}`) : s);
  const rental = order.type === "RENTAL";
  const fields: Array<[keyof Pick<OrderJson, "dueDate" | "pickupDate" | "dueBackDate">, string]> = [
    ["dueDate", t.t("today.order.dueDate")],
    ...(rental
      ? ([
          ["pickupDate", t.t("today.order.pickupDate")],
          ["dueBackDate", t.t("today.order.dueBackDate")],
        ] as Array<[keyof Pick<OrderJson, "dueDate" | "pickupDate" | "dueBackDate">, string]>)
      : []),
  ];
  return html`<section class="order-dates">
<h2>${t.t("today.order.dates")}${risk.rules.length > 0 ? html` <span class="badge status" data-status="AT_RISK">${t.t("today.order.atRisk")}</span>` : ""}${risk.overdue ? html` <span class="badge status" data-status="OVERDUE">${t.t("today.order.overdue")}</span>` : ""}</h2>
${risk.rules.length > 0 ? html`<ul class="plain risk">${risk.rules.map((r) => html`<li>${t.t("today.riskLine", { date: "", status: status(r.status), days: r.daysBefore }).replace(/^[^:]*:\s*/, "")}</li>`)}</ul>` : ""}
<dl class="facts">${fields.map(([name, label]) => html`<dt>${label}</dt><dd>${order[name] ? calendarDay(t, order[name] as string) : html`<span class="muted">–</span>`}</dd>`)}</dl>
<details class="edit"><summary>${t.t("today.order.saveDates")}</summary>
<form method="post" action="/dashboard/orders/${order.id}/dates" class="edit-form">
${csrfField(csrf)}
${fields.map(([name, label]) => inputField({ name, label, type: "date", value: order[name] ?? "" }))}
<p class="muted">${t.t("today.order.dueDateHint")}</p>
<div class="actions"><button type="submit" class="primary">${t.t("today.order.saveDates")}</button></div>
</form></details>
</section>`;
}

export async function orderDatesPages(app: FastifyInstance, { ctx, config }: DashboardDeps): Promise<void> {
  app.post<{ Params: { id: string } }>(
    "/dashboard/orders/:id/dates",
    { schema: { hide: true }, preHandler: app.csrfProtection },
    async (request, reply) => {
      const vendorId = vendorIdOf(request);
      const back = `/dashboard/orders/${encodeURIComponent(request.params.id)}`;
      return runAction(reply, { ctx, config }, { done: back }, async (form) => {
        const input: Record<string, string | null> = {};
        // A rental's form has all three; another order's only dueDate (an empty field clears it).
        for (const name of ["dueDate", "pickupDate", "dueBackDate"] as const) {
          if (form[name] !== undefined) input[name] = field(form, name) === "" ? null : field(form, name);
        }
        const { t } = readerOf(request);
        assertFormValidIn(t, UpdateOrderSchema, input, {
          dueDate: t.t("today.order.dueDate"),
          pickupDate: t.t("today.order.pickupDate"),
          dueBackDate: t.t("today.order.dueBackDate"),
        });
        await updateOrder(ctx, vendorId, request.params.id, input as UpdateOrderBody);
        return { kind: "success", message: t.t("today.order.saved") };
      });
    },
  );
}
