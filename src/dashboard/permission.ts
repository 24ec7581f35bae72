// The dashboard's side of src/auth/member-policy.ts: a preHandler that lets the signed-in member
// through only when their role may do `action`, and answers 403 otherwise, on the page and on its
// form POST alike (registered on a whole page group in dashboard.routes.ts, or on one route).
import type { FastifyReply, FastifyRequest } from "fastify";
import { type Action, may } from "../auth/member-policy.ts";
import type { ServiceContext } from "../context.ts";
import { sendPage } from "../web/browser-scope.ts";
import { html } from "../web/html.ts";
import { dashboardPage } from "./layout.ts";
import { memberOf, pageContext } from "./page-context.ts";

/** Whether the signed-in member of this request may do `action`. */
export function memberMay(request: FastifyRequest, action: Action): boolean {
  return may(memberOf(request).role, action);
}

export function requireMay(ctx: ServiceContext, action: Action) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (memberMay(request, action)) return;
    const page = await pageContext(ctx, request, reply);
    const { t } = page;
    const body = html`<p>${t.t("errors.ownersOnly.text")}</p>
<p><a class="button" href="/dashboard/orders">${t.t("errors.ownersOnly.back")}</a></p>`;
    return sendPage(reply, 403, dashboardPage(page, "orders", t.t("errors.ownersOnly.title"), body));
  };
}
