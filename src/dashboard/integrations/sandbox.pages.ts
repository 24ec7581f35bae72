// Integrations → Sandbox (CONTRACT 11): the shop's test data, read-only under a "Test data" banner,
// one kind of record at a time (orders, customers, appointments, inquiries, webhooks), and "Reset
// sandbox data" behind a confirmation step. Every read names the signed-in shop's own sandbox
// (looked up by the shop's id), so no URL can reach another shop's.
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ServiceContext } from "../../context.ts";
import { notFound } from "../../errors.ts";
import { listAppointments } from "../../modules/appointments/appointments.service.ts";
import { listCustomers } from "../../modules/customers/customers.service.ts";
import { listInquiries } from "../../modules/inquiries/inquiries.service.ts";
import { listOrders } from "../../modules/orders/orders.service.ts";
import { resetSandbox, sandboxOfShop, sandboxSummary } from "../../modules/sandbox/sandbox.service.ts";
import { listWebhooks } from "../../modules/webhooks/webhooks.service.ts";
import { sendPage } from "../../web/browser-scope.ts";
import { pageLimit, queryParam } from "../../web/form.ts";
import { html, type SafeHtml } from "../../web/html.ts";
import { confirmedAction, confirmLink } from "../confirm-step.ts";
import type { DashboardDeps } from "../deps.ts";
import { dashboardPage, emptyState, pager, time } from "../layout.ts";
import { pageContext, vendorIdOf } from "../page-context.ts";
import { humanize, statusBadge } from "../pages/common.ts";

export const SANDBOX_PAGE = "/dashboard/integrations/sandbox";

const views = ["orders", "customers", "appointments", "inquiries", "webhooks"] as const;
type View = (typeof views)[number];

type Counts = Awaited<ReturnType<typeof sandboxSummary>>;

const banner = html`<div class="test-data" role="note"><strong>Test data.</strong> These records belong to your
sandbox, which only test keys (<code>vk_test_…</code>) reach. Your shop's live orders, customers and
webhooks never appear here, and nothing here is ever mailed to anyone.</div>`;

/** One page of the view's records, as table rows, and the cursor of the next page. */
async function viewRows(
  ctx: ServiceContext,
  sandboxId: string,
  view: View,
  query: { limit: number; cursor: string | undefined },
  timeZone: string,
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
        head: html`<th>Customer</th><th>Type</th><th>Model</th><th>Status</th><th>Updated</th>`,
        rows: page.orders.map(
          (o) =>
            html`<tr><td>${o.customer?.name ?? "–"}<div class="muted"><code>${o.id}</code></div></td><td>${humanize(o.type)}</td><td>${o.model ?? "–"}</td><td>${statusBadge(o.status)}</td><td>${time(o.updatedAt, timeZone)}</td></tr>`,
        ),
        nextCursor: page.nextCursor,
      };
    }
    case "customers": {
      const page = await listCustomers(ctx, sandboxId, query);
      return {
        head: html`<th>Name</th><th>E-mail</th><th>Phone</th><th>Created</th>`,
        rows: page.customers.map(
          (c) =>
            html`<tr><td>${c.name}<div class="muted"><code>${c.id}</code></div></td><td>${c.email ?? "–"}</td><td>${c.phone ?? "–"}</td><td>${time(c.createdAt, timeZone)}</td></tr>`,
        ),
        nextCursor: page.nextCursor,
      };
    }
    case "appointments": {
      const page = await listAppointments(ctx, sandboxId, query);
      return {
        head: html`<th>When</th><th>Type</th><th>Status</th><th>Customer</th>`,
        rows: page.appointments.map(
          (a) =>
            html`<tr><td>${time(a.date, timeZone)}<div class="muted"><code>${a.id}</code></div></td><td>${humanize(a.type)}</td><td>${statusBadge(a.status)}</td><td><code>${a.customerId}</code></td></tr>`,
        ),
        nextCursor: page.nextCursor,
      };
    }
    case "inquiries": {
      const page = await listInquiries(ctx, sandboxId, query);
      return {
        head: html`<th>From</th><th>Message</th><th>Received</th>`,
        rows: page.inquiries.map(
          (q) =>
            html`<tr><td>${q.name}<div class="muted">${q.email}</div></td><td>${q.message.slice(0, 80)}</td><td>${time(q.createdAt, timeZone)}</td></tr>`,
        ),
        nextCursor: page.nextCursor,
      };
    }
    case "webhooks": {
      const page = await listWebhooks(ctx, sandboxId, query);
      return {
        head: html`<th>URL</th><th>Events</th><th>Status</th>`,
        rows: page.webhooks.map(
          (w) =>
            html`<tr><td><code>${w.url}</code></td><td>${w.events.map((e) => html`<span class="badge">${e}</span> `)}</td><td>${statusBadge(w.status)}</td></tr>`,
        ),
        nextCursor: page.nextCursor,
      };
    }
  }
}

function viewTabs(view: View, counts: Counts): SafeHtml {
  return html`<nav class="tabs" aria-label="Test data">${views.map(
    (v) =>
      html`<a href="${SANDBOX_PAGE}?view=${v}"${v === view ? html` aria-current="page"` : ""}>${humanize(v)} (${counts[v]})</a>`,
  )}</nav>`;
}

export async function sandboxPages(app: FastifyInstance, deps: DashboardDeps): Promise<void> {
  const { ctx } = deps;
  const sandboxOf = async (request: FastifyRequest) => sandboxOfShop(ctx, vendorIdOf(request));

  app.get(SANDBOX_PAGE, { schema: { hide: true } }, async (request, reply) => {
    const page = await pageContext(ctx, request, reply);
    const sandbox = await sandboxOf(request);
    if (!sandbox) {
      const body = html`<p>Your sandbox is a separate copy of the API for trying an integration: its own
orders, customers, appointments, inquiries, webhooks and events, reached only with test keys.</p>
${emptyState(
  "No sandbox yet. It is made with your first test key.",
  html`<a class="button primary" href="/dashboard/integrations/api-keys">Create a test key</a>`,
)}`;
      return sendPage(reply, 200, dashboardPage(page, "sandbox", "Sandbox", body));
    }
    const requested = queryParam(request.query, "view");
    const view: View = views.find((v) => v === requested) ?? "orders";
    const limit = pageLimit(queryParam(request.query, "limit"));
    const cursor = queryParam(request.query, "cursor");
    const counts = await sandboxSummary(ctx, sandbox.id);
    const list = await viewRows(ctx, sandbox.id, view, { limit, cursor }, page.timeZone);
    const table =
      list.rows.length === 0
        ? emptyState(cursor ? `No more ${view}.` : `No ${view} in the sandbox.`)
        : html`<div class="table-wrap"><table class="cards"><thead><tr>${list.head}</tr></thead><tbody>${list.rows}</tbody></table></div>
${pager(page.t, SANDBOX_PAGE, list.nextCursor, { view, ...(limit === 25 ? {} : { limit: String(limit) }) })}`;
    const body = html`${banner}
<p class="muted">Sandbox id <code>${sandbox.id}</code>: the vendor id of its public inquiry form. ${counts.events} events.</p>
${viewTabs(view, counts)}
${table}
<h2>Reset</h2>
<p>Deletes every order, customer, appointment, inquiry and event of the sandbox, with their webhook
deliveries. Your test keys and the sandbox's webhook endpoints stay.</p>
<div class="actions">${confirmLink(`${SANDBOX_PAGE}/reset`, "Reset sandbox data")}</div>`;
    return sendPage(reply, 200, dashboardPage(page, "sandbox", "Sandbox · test data", body));
  });

  confirmedAction(app, deps, `${SANDBOX_PAGE}/reset`, {
    confirmation: async (request) => {
      const sandbox = await sandboxOf(request);
      if (!sandbox) throw notFound("Sandbox");
      const c = await sandboxSummary(ctx, sandbox.id);
      return {
        section: "sandbox",
        title: "Reset the sandbox's data?",
        consequence: `All test data goes: ${c.orders} orders, ${c.customers} customers, ${c.appointments} appointments, ${c.inquiries} inquiries and ${c.events} events, with their webhook deliveries. Your test keys and the sandbox's ${c.webhooks} webhook endpoints stay. Live data is not touched.`,
        button: "Reset sandbox data",
        back: SANDBOX_PAGE,
      };
    },
    act: async (request) => {
      if (!(await resetSandbox(ctx, vendorIdOf(request)))) throw notFound("Sandbox");
      return {
        kind: "success",
        message: "Sandbox data reset: the sandbox is empty, its test keys still work.",
      };
    },
    done: () => SANDBOX_PAGE,
  });
}
