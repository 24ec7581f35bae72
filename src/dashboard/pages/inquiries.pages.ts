// Inquiries sent through the public form: the list (newest first) and an inquiry's page.
import type { FastifyInstance } from "fastify";
import { getInquiry, listInquiries } from "../../modules/inquiries/inquiries.service.ts";
import { sendPage } from "../browser-scope.ts";
import type { DashboardDeps } from "../dashboard.routes.ts";
import { pageLimit, queryParam } from "../form.ts";
import { html } from "../html.ts";
import { dashboardPage, emptyState, pager, time } from "../layout.ts";
import { pageContext, vendorIdOf } from "../page-context.ts";

/** The first line of a message, shortened for the list. */
function excerpt(message: string): string {
  const line = message.split("\n", 1)[0] ?? "";
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

export async function inquiryPages(app: FastifyInstance, { ctx }: DashboardDeps): Promise<void> {
  app.get("/dashboard/inquiries", { schema: { hide: true } }, async (request, reply) => {
    const limit = pageLimit(queryParam(request.query, "limit"));
    const cursor = queryParam(request.query, "cursor");
    const page = await listInquiries(ctx, vendorIdOf(request), { limit, cursor });
    const body =
      page.inquiries.length === 0
        ? emptyState(
            cursor
              ? "No more inquiries."
              : "No inquiries yet. Messages sent through your inquiry form appear here.",
          )
        : html`<div class="table-wrap"><table class="inquiries">
<thead><tr><th>From</th><th>Message</th><th class="optional">Received</th></tr></thead>
<tbody>${page.inquiries.map(
            (
              q,
            ) => html`<tr><td><a href="/dashboard/inquiries/${q.id}">${q.name}</a><div class="muted">${q.email}</div></td>
<td>${excerpt(q.message)}</td><td class="optional">${time(q.createdAt)}</td></tr>`,
          )}</tbody></table></div>
${pager("/dashboard/inquiries", page.nextCursor, limit === 25 ? {} : { limit: String(limit) })}`;
    return sendPage(
      reply,
      200,
      dashboardPage(await pageContext(ctx, request, reply), "inquiries", "Inquiries", body),
    );
  });

  app.get<{ Params: { id: string } }>(
    "/dashboard/inquiries/:id",
    { schema: { hide: true } },
    async (request, reply) => {
      const q = await getInquiry(ctx, vendorIdOf(request), request.params.id);
      const body = html`<dl class="facts">
<dt>From</dt><dd>${q.name}</dd>
<dt>E-mail</dt><dd><a href="mailto:${q.email}">${q.email}</a></dd>
<dt>Phone</dt><dd>${q.phone ?? "–"}</dd>
<dt>Wedding date</dt><dd>${q.weddingDate ?? "–"}</dd>
<dt>Received</dt><dd>${time(q.createdAt)}</dd>
</dl>
<h2>Message</h2>
<p class="prose">${q.message}</p>`;
      return sendPage(
        reply,
        200,
        dashboardPage(await pageContext(ctx, request, reply), "inquiries", `Inquiry from ${q.name}`, body),
      );
    },
  );
}
