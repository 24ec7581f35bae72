// Integrations → Sandbox (CONTRACT 11): the shop's test data, read-only under a "Test data" banner,
// one kind of record at a time (orders, customers, appointments, inquiries, webhooks), and "Reset
// sandbox data" behind a confirmation step. Every read names the signed-in shop's own sandbox
// (looked up by the shop's id), so no URL can reach another shop's.
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ServiceContext } from "../../context.ts";
import { notFound } from "../../errors.ts";
import type { Translator } from "../../i18n/translator.ts";
import { listAppointments } from "../../modules/appointments/appointments.service.ts";
import { listCustomers } from "../../modules/customers/customers.service.ts";
import { listInquiries } from "../../modules/inquiries/inquiries.service.ts";
import { listOrders } from "../../modules/orders/orders.service.ts";
import { sandboxOfShop, sandboxSummary } from "../../modules/sandbox/sandbox.service.ts";
import { resetSandbox } from "../../modules/use-cases/sandbox-reset.service.ts";
import { listWebhooks } from "../../modules/webhooks/webhooks.service.ts";
import { sendPage } from "../../web/browser-scope.ts";
import { pageLimit, queryParam } from "../../web/form.ts";
import { html, type SafeHtml } from "../../web/html.ts";
import { readerOf } from "../../web/reader.ts";
import { confirmedAction, confirmLink } from "../confirm-step.ts";
import type { DashboardDeps } from "../deps.ts";
import { dashboardPage, emptyState, pager, time } from "../layout.ts";
import { pageContext, vendorIdOf } from "../page-context.ts";
import { say, statusBadge } from "./text.ts";

export const SANDBOX_PAGE = "/dashboard/integrations/sandbox";

const views = ["orders", "customers", "appointments", "inquiries", "webhooks"] as const;
type View = (typeof views)[number];

type Counts = Awaited<ReturnType<typeof sandboxSummary>>;

/** The view's name as the main menu says it ("Orders"). */
const viewName = (t: Translator, view: View) => t.t(`dashboard.nav.${view}`);

const banner = (t: Translator) =>
  html`<div class="test-data" role="note"><strong>${say(t, "sandbox.bannerTitle")}</strong> ${say(t, "sandbox.bannerBefore")}<code>vk_test_…</code>${say(t, "sandbox.bannerAfter")}</div>`;

/** One page of the view's records, as table rows, and the cursor of the next page. */
async function viewRows(
  ctx: ServiceContext,
  sandboxId: string,
  view: View,
  query: { limit: number; cursor: string | undefined },
  timeZone: string,
  t: Translator,
): Promise<{ head: SafeHtml; rows: SafeHtml[]; nextCursor: string | null }> {
  switch (view) {
    case "orders": {
      const page = JSON.parse(await listOrders(ctx, sandboxId, query)) as {
        orders: Array<{
          id: string;
          type: string;
          status: string;
          model: string | null;
          customer: { name: string } | null;
          updatedAt: string;
        }>;
        nextCursor: string | null;
      };
      return {
        head: html`<th>${say(t, "column.customer")}</th><th>${say(t, "column.type")}</th><th>${say(t, "column.model")}</th><th>${t.t("common.status")}</th><th>${say(t, "column.updated")}</th>`,
        rows: page.orders.map(
          (o) =>
            html`<tr><td>${o.customer?.name ?? "–"}<div class="muted"><code>${o.id}</code></div></td><td>${t.t(`customer.orderType.${o.type}`)}</td><td>${o.model ?? "–"}</td><td>${statusBadge(t, o.status)}</td><td>${time(o.updatedAt, timeZone, t)}</td></tr>`,
        ),
        nextCursor: page.nextCursor,
      };
    }
    case "customers": {
      const page = await listCustomers(ctx, sandboxId, query);
      return {
        head: html`<th>${t.t("common.name")}</th><th>${t.t("common.email")}</th><th>${t.t("common.phone")}</th><th>${say(t, "column.created")}</th>`,
        rows: page.customers.map(
          (c) =>
            html`<tr><td>${c.name}<div class="muted"><code>${c.id}</code></div></td><td>${c.email ?? "–"}</td><td>${c.phone ?? "–"}</td><td>${time(c.createdAt, timeZone, t)}</td></tr>`,
        ),
        nextCursor: page.nextCursor,
      };
    }
    case "appointments": {
      const page = await listAppointments(ctx, sandboxId, query);
      return {
        head: html`<th>${say(t, "column.when")}</th><th>${say(t, "column.type")}</th><th>${t.t("common.status")}</th><th>${say(t, "column.customer")}</th>`,
        rows: page.appointments.map(
          (a) =>
            html`<tr><td>${time(a.date, timeZone, t)}<div class="muted"><code>${a.id}</code></div></td><td>${t.t(`appointments.types.${a.type}`)}</td><td>${statusBadge(t, a.status)}</td><td><code>${a.customerId}</code></td></tr>`,
        ),
        nextCursor: page.nextCursor,
      };
    }
    case "inquiries": {
      const page = await listInquiries(ctx, sandboxId, query);
      return {
        head: html`<th>${say(t, "column.from")}</th><th>${say(t, "column.message")}</th><th>${say(t, "column.received")}</th>`,
        rows: page.inquiries.map(
          (q) =>
            html`<tr><td>${q.name}<div class="muted">${q.email}</div></td><td>${q.message.slice(0, 80)}</td><td>${time(q.createdAt, timeZone, t)}</td></tr>`,
        ),
        nextCursor: page.nextCursor,
      };
    }
    case "webhooks": {
      const page = await listWebhooks(ctx, sandboxId, query);
      return {
        head: html`<th>${say(t, "column.url")}</th><th>${say(t, "column.events")}</th><th>${t.t("common.status")}</th>`,
        rows: page.webhooks.map(
          (w) =>
            html`<tr><td><code>${w.url}</code></td><td>${w.events.map((e) => html`<span class="badge">${e}</span> `)}</td><td>${statusBadge(t, w.status)}</td></tr>`,
        ),
        nextCursor: page.nextCursor,
      };
    }
  }
}

function viewTabs(view: View, counts: Counts, t: Translator): SafeHtml {
  return html`<nav class="tabs" aria-label="${say(t, "sandbox.tabsLabel")}">${views.map(
    (v) =>
      html`<a href="${SANDBOX_PAGE}?view=${v}"${v === view ? html` aria-current="page"` : ""}>${viewName(t, v)} (${t.number(counts[v])})</a>`,
  )}</nav>`;
}

export async function sandboxPages(app: FastifyInstance, deps: DashboardDeps): Promise<void> {
  const { ctx } = deps;
  const sandboxOf = async (request: FastifyRequest) => sandboxOfShop(ctx, vendorIdOf(request));

  app.get(SANDBOX_PAGE, { schema: { hide: true } }, async (request, reply) => {
    const page = await pageContext(ctx, request, reply);
    const { t } = page;
    const sandbox = await sandboxOf(request);
    if (!sandbox) {
      const body = html`<p>${say(t, "sandbox.intro")}</p>
${emptyState(
  say(t, "sandbox.noSandbox"),
  html`<a class="button primary" href="/dashboard/integrations/api-keys">${say(t, "sandbox.createTestKey")}</a>`,
)}`;
      return sendPage(reply, 200, dashboardPage(page, "sandbox", t.t("dashboard.nav.sandbox"), body));
    }
    const requested = queryParam(request.query, "view");
    const view: View = views.find((v) => v === requested) ?? "orders";
    const limit = pageLimit(queryParam(request.query, "limit"));
    const cursor = queryParam(request.query, "cursor");
    const counts = await sandboxSummary(ctx, sandbox.id);
    const list = await viewRows(ctx, sandbox.id, view, { limit, cursor }, page.timeZone, t);
    const table =
      list.rows.length === 0
        ? emptyState(say(t, cursor ? "sandbox.noMore" : "sandbox.none", { view }))
        : html`<div class="table-wrap"><table class="cards"><thead><tr>${list.head}</tr></thead><tbody>${list.rows}</tbody></table></div>
${pager(page.t, SANDBOX_PAGE, list.nextCursor, { view, ...(limit === 25 ? {} : { limit: String(limit) }) })}`;
    const body = html`${banner(t)}
<p class="muted">${say(t, "sandbox.idLabel")} <code>${sandbox.id}</code>${say(t, "sandbox.idHint")} ${say(t, "sandbox.events", { count: counts.events })}</p>
${viewTabs(view, counts, t)}
${table}
<h2>${say(t, "sandbox.resetHeading")}</h2>
<p>${say(t, "sandbox.resetText")}</p>
<div class="actions">${confirmLink(`${SANDBOX_PAGE}/reset`, say(t, "sandbox.resetButton"))}</div>`;
    return sendPage(reply, 200, dashboardPage(page, "sandbox", say(t, "sandbox.titleWithData"), body));
  });

  confirmedAction(app, deps, `${SANDBOX_PAGE}/reset`, {
    confirmation: async (request) => {
      const sandbox = await sandboxOf(request);
      if (!sandbox) throw notFound("Sandbox");
      const c = await sandboxSummary(ctx, sandbox.id);
      const { t } = readerOf(request);
      return {
        section: "sandbox",
        title: say(t, "sandbox.resetTitle"),
        consequence: say(t, "sandbox.resetConsequence", {
          orders: c.orders,
          customers: c.customers,
          appointments: c.appointments,
          inquiries: c.inquiries,
          events: c.events,
          webhooks: c.webhooks,
        }),
        button: say(t, "sandbox.resetButton"),
        back: SANDBOX_PAGE,
      };
    },
    act: async (request) => {
      if (!(await resetSandbox(ctx, vendorIdOf(request)))) throw notFound("Sandbox");
      return {
        kind: "success",
        message: say(readerOf(request).t, "sandbox.resetDone"),
      };
    },
    done: () => SANDBOX_PAGE,
  });
}
