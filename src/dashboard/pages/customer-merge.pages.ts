// Duplicate customers in the dashboard (CONTRACT 12, one customer, one record): the page of
// likely duplicates (the same e-mail in any case, the same phone in E.164, or the same name) and
// the merge, behind a confirmation page (confirm-step.ts). A merge deletes a record and cannot be
// undone, so it is the owner's, as erasure is (auth/member-policy.ts). Also the picker's answer
// for the New order page's search-as-you-type (customer-picker.ts).
import type { FastifyInstance } from "fastify";
import { mergeCustomers } from "../../modules/customers/customer-merge.service.ts";
import { likelyDuplicates, pickCustomers } from "../../modules/customers/customer-picker.service.ts";
import { getCustomer } from "../../modules/customers/customers.service.ts";
import { sendPage } from "../../web/browser-scope.ts";
import { queryParam } from "../../web/form.ts";
import { html } from "../../web/html.ts";
import { readerOf } from "../../web/reader.ts";
import { confirmedAction, confirmLink } from "../confirm-step.ts";
import type { DashboardDeps } from "../deps.ts";
import { dashboardPage, emptyState } from "../layout.ts";
import { pageContext, vendorIdOf } from "../page-context.ts";
import { memberMay, requireMay } from "../permission.ts";
import { pickerLabel } from "./customer-picker.ts";

export async function customerMergePages(app: FastifyInstance, deps: DashboardDeps): Promise<void> {
  const { ctx } = deps;

  // JSON for the picker's script; the same search as the page's Find button.
  app.get("/dashboard/customers/pick", { schema: { hide: true } }, async (request) => {
    const found = await pickCustomers(ctx, vendorIdOf(request), queryParam(request.query, "q"));
    return { customers: found.map((c) => ({ id: c.id, label: pickerLabel(c) })) };
  });

  app.get("/dashboard/customers/duplicates", { schema: { hide: true } }, async (request, reply) => {
    const pairs = await likelyDuplicates(ctx, vendorIdOf(request));
    const pageCtx = await pageContext(ctx, request, reply);
    const k = (key: string) => pageCtx.t.t(`dashboard.customers.merge.${key}`);
    const mayMerge = memberMay(request, "merge");
    const merge = (keep: string, from: string, label: string) =>
      mayMerge ? confirmLink(`/dashboard/customers/${keep}/merge/${from}`, label) : "";
    const body =
      pairs.length === 0
        ? emptyState(k("none"))
        : html`<p class="muted">${k("intro")}${mayMerge ? "" : ` ${k("ownerOnly")}`}</p>
<div class="table-wrap"><table class="duplicates cards">
<thead><tr><th>${k("why")}</th><th>${k("customer")}</th><th>${k("customer")}</th><th>${k("merge")}</th></tr></thead>
<tbody>${pairs.map(
            (p) => html`<tr data-pair="${p.a.id} ${p.b.id}"><td>${k(`reason.${p.reason}`)}</td>
<td><a href="/dashboard/customers/${p.a.id}">${pickerLabel(p.a)}</a></td>
<td><a href="/dashboard/customers/${p.b.id}">${pickerLabel(p.b)}</a></td>
<td>${merge(p.a.id, p.b.id, k("keepFirst"))} ${merge(p.b.id, p.a.id, k("keepSecond"))}</td></tr>`,
          )}</tbody></table></div>`;
    return sendPage(
      reply,
      200,
      dashboardPage(pageCtx, "customers", pageCtx.t.t("dashboard.customers.duplicates"), body),
    );
  });

  confirmedAction(
    app,
    deps,
    "/dashboard/customers/:id/merge/:from",
    {
      confirmation: async (request) => {
        const vendorId = vendorIdOf(request);
        const kept = await getCustomer(ctx, vendorId, request.params.id ?? "");
        const other = await getCustomer(ctx, vendorId, request.params.from ?? "");
        const { t } = readerOf(request);
        const names = { other: other.name, kept: kept.name };
        return {
          section: "customers",
          title: t.t("dashboard.customers.merge.title", names),
          consequence: t.t("dashboard.customers.merge.consequence", { ...names, ...other.counts }),
          button: t.t("dashboard.customers.merge.button"),
          back: "/dashboard/customers/duplicates",
        };
      },
      act: async (request) => {
        const kept = await mergeCustomers(
          ctx,
          vendorIdOf(request),
          request.params.id ?? "",
          request.params.from ?? "",
        );
        return {
          kind: "success",
          message: readerOf(request).t.t("dashboard.customers.merge.done", { name: kept.name }),
          location: `/dashboard/customers/${kept.id}`,
        };
      },
      done: (request) => `/dashboard/customers/${encodeURIComponent(request.params.id ?? "")}`,
    },
    { preHandler: requireMay(ctx, "merge") },
  );
}
