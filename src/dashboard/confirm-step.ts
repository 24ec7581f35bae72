// Nothing irreversible in one click, and the confirmation works without JavaScript:
// the button of an irreversible action is a link to a confirmation page (a GET, which changes
// nothing) at the action's own path; that page's form posts `confirmed=yes` there. A post without
// it (an old page still open, a hand-made form) is sent to the confirmation page, never acted on.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { csrfField, sendPage } from "../web/browser-scope.ts";
import type { Flash } from "../web/flash.ts";
import { type Form, field } from "../web/form.ts";
import { runAction } from "../web/form-actions.ts";
import { html, type SafeHtml } from "../web/html.ts";
import type { DashboardDeps } from "./deps.ts";
import { dashboardPage, type Section } from "./layout.ts";
import { pageContext } from "./page-context.ts";

export const CONFIRMED_FIELD = "confirmed";

/** The button that starts an irreversible action: a link to its confirmation page. */
export function confirmLink(href: string, label: string): SafeHtml {
  return html`<a class="button danger" href="${href}">${label}…</a>`;
}

/** What the confirmation page says: what will happen, and what cannot be undone. */
export interface Confirmation {
  section: Section;
  /** The page's title, a question: "Revoke the API key “Shop POS”?" */
  title: string;
  /** What happens, in a sentence or two. */
  consequence: string;
  /** The confirming button's label ("Revoke key"). */
  button: string;
  /** Where "Keep it" goes back to. */
  back: string;
  /** Hidden fields the action needs besides the confirmation. */
  fields?: Record<string, string>;
}

type Params = { Params: Record<string, string> };

/**
 * Registers GET `path` (the confirmation page; `confirmation` loads the record, so another shop's
 * id is the 404 page) and POST `path` (the action, once confirmed; `act` runs as a form action).
 */
export function confirmedAction(
  app: FastifyInstance,
  { ctx, config }: DashboardDeps,
  path: string,
  steps: {
    confirmation: (request: FastifyRequest<Params>) => Promise<Confirmation>;
    act: (request: FastifyRequest<Params>, form: Form) => Promise<Flash & { location?: string }>;
    /** Where the action's flash is shown, on success and on refusal. */
    done: (request: FastifyRequest<Params>) => string;
  },
  options: { preHandler?: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown> } = {},
): void {
  const guard = options.preHandler ? [options.preHandler] : [];
  app.get<Params>(path, { schema: { hide: true }, preHandler: guard }, async (request, reply) => {
    const c = await steps.confirmation(request);
    const page = await pageContext(ctx, request, reply);
    const { t } = page;
    const body = html`<p>${c.consequence}</p><p><strong>${t.t("dashboard.confirm.cannotUndo")}</strong></p>
<form method="post" action="${request.url.split("?")[0]}">${csrfField(page.csrf)}<input type="hidden" name="${CONFIRMED_FIELD}" value="yes">
${Object.entries(c.fields ?? {}).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<div class="actions"><button type="submit" class="danger">${c.button}</button><a class="button" href="${c.back}">${t.t("dashboard.confirm.keepIt")}</a></div>
</form>`;
    return sendPage(reply, 200, dashboardPage(page, c.section, c.title, body));
  });
  app.post<Params>(
    path,
    { schema: { hide: true }, preHandler: [...guard, app.csrfProtection] },
    async (request, reply) => {
      const form = (request.body ?? {}) as Form;
      if (field(form, CONFIRMED_FIELD) !== "yes") {
        return reply.code(303).header("location", request.url.split("?")[0]).send();
      }
      return runAction(reply, { ctx, config }, { done: steps.done(request) }, (posted) =>
        steps.act(request, posted),
      );
    },
  );
}
