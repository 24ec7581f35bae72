// Following the link that confirms a shop's new notification e-mail (CONTRACT 12):
// `/notification-email/confirm?token=…` names the shop and the address and asks for one click
// (a POST, so a mail scanner fetching the link changes nothing); the POST makes the address the
// shop's notification e-mail and uses the link up. No session needed: the link's token proves that
// whoever follows it reads the address. Registered in the sign-in pages' scope: same per-address
// rate limit, CSRF, 303 after a POST. The request log drops query strings; pages send no Referer.
import type { FastifyInstance } from "fastify";
import type { Config } from "../config.ts";
import type { ServiceContext } from "../context.ts";
import {
  confirmNotificationEmailChange,
  findNotificationEmailChange,
} from "../modules/vendors/notification-email.service.ts";
import { CSRF_FIELD, csrfToken, sendPage } from "../web/browser-scope.ts";
import { field, formOf } from "../web/form.ts";
import { html, layout } from "../web/html.ts";

const PATH = "/notification-email/confirm";
const CONFIRMED = "/notification-email/confirmed";

function confirmPage(input: { csrf: string; token: string; shopName: string; email: string }): string {
  return layout(
    "Confirm the address",
    html`<h1>Notifications of ${input.shopName}</h1>
<p>Send ${input.shopName}'s notifications (new inquiries from its website) to <strong>${input.email}</strong>?</p>
<form method="post" action="${PATH}">
<input type="hidden" name="${CSRF_FIELD}" value="${input.csrf}">
<input type="hidden" name="token" value="${input.token}">
<button type="submit">Confirm this address</button>
</form>`,
  );
}

function confirmedPage(): string {
  return layout(
    "Address confirmed",
    html`<h1>Address confirmed</h1>
<p role="status">The shop's notifications now come to this address.</p>`,
  );
}

function linkInvalidPage(): string {
  return layout(
    "Link no longer valid",
    html`<h1>Link no longer valid</h1>
<p class="error" role="alert">This confirmation link is no longer valid: it was used, replaced by a newer one or has expired, or the owner who asked for it is no longer an owner.</p>
<p class="muted">An owner of the shop can send a new one from Settings.</p>`,
  );
}

export async function notificationEmailRoutes(
  app: FastifyInstance,
  { ctx }: { ctx: ServiceContext; config: Config },
) {
  app.get(PATH, { schema: { hide: true } }, async (request, reply) => {
    const token = String((request.query as Record<string, unknown>).token ?? "");
    const change = await findNotificationEmailChange(ctx, token);
    if (!change) return sendPage(reply, 400, linkInvalidPage());
    return sendPage(reply, 200, confirmPage({ csrf: csrfToken(reply), token, ...change }));
  });

  app.post(PATH, { schema: { hide: true }, preHandler: app.csrfProtection }, async (request, reply) => {
    const done = await confirmNotificationEmailChange(ctx, field(formOf(request), "token"));
    if (!done) return sendPage(reply, 400, linkInvalidPage());
    return reply.code(303).header("location", CONFIRMED).send();
  });

  app.get(CONFIRMED, { schema: { hide: true } }, async (_request, reply) =>
    sendPage(reply, 200, confirmedPage()),
  );
}
