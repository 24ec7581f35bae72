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
import { type Reader, readerOf } from "../web/reader.ts";
import { richMessage } from "./rich-message.ts";

const PATH = "/notification-email/confirm";
const CONFIRMED = "/notification-email/confirmed";

const k = (key: string) => `dashboard.notificationEmail.${key}`;

function confirmPage(
  reader: Reader,
  input: { csrf: string; token: string; shopName: string; email: string },
): string {
  const { t } = reader;
  return layout(
    t.t(k("confirmTitle")),
    html`<h1>${t.t(k("confirmHeading"), { shop: input.shopName })}</h1>
<p>${richMessage(t, k("confirmQuestion"), { shop: input.shopName }, { email: html`<strong>${input.email}</strong>` })}</p>
<form method="post" action="${PATH}">
<input type="hidden" name="${CSRF_FIELD}" value="${input.csrf}">
<input type="hidden" name="token" value="${input.token}">
<button type="submit">${t.t(k("confirmButton"))}</button>
</form>`,
    reader,
  );
}

function confirmedPage(reader: Reader): string {
  const { t } = reader;
  return layout(
    t.t(k("confirmedTitle")),
    html`<h1>${t.t(k("confirmedTitle"))}</h1>
<p role="status">${t.t(k("confirmedText"))}</p>`,
    reader,
  );
}

function linkInvalidPage(reader: Reader): string {
  const { t } = reader;
  return layout(
    t.t(k("invalidTitle")),
    html`<h1>${t.t(k("invalidTitle"))}</h1>
<p class="error" role="alert">${t.t(k("invalidText"))}</p>
<p class="muted">${t.t(k("invalidHint"))}</p>`,
    reader,
  );
}

export async function notificationEmailRoutes(
  app: FastifyInstance,
  { ctx }: { ctx: ServiceContext; config: Config },
) {
  app.get(PATH, { schema: { hide: true } }, async (request, reply) => {
    const token = String((request.query as Record<string, unknown>).token ?? "");
    const change = await findNotificationEmailChange(ctx, token);
    if (!change) return sendPage(reply, 400, linkInvalidPage(readerOf(request)));
    return sendPage(reply, 200, confirmPage(readerOf(request), { csrf: csrfToken(reply), token, ...change }));
  });

  app.post(PATH, { schema: { hide: true }, preHandler: app.csrfProtection }, async (request, reply) => {
    const done = await confirmNotificationEmailChange(ctx, field(formOf(request), "token"));
    if (!done) return sendPage(reply, 400, linkInvalidPage(readerOf(request)));
    return reply.code(303).header("location", CONFIRMED).send();
  });

  app.get(CONFIRMED, { schema: { hide: true } }, async (request, reply) =>
    sendPage(reply, 200, confirmedPage(readerOf(request))),
  );
}
