// Settings → Notifications (owners only, the Settings scope): where the shop's own mail goes,
// as it is now, a change waiting for its link, and the notice that it moved off a member who was
// removed or demoted. Changing it mails a confirmation link to the new address; the setting
// changes only when that link is followed (notification-email.service.ts, CONTRACT 12).
import type { FastifyInstance } from "fastify";
import type { Translator } from "../i18n/translator.ts";
import {
  type NotificationSettings,
  requestNotificationEmailChange,
} from "../modules/vendors/notification-email.service.ts";
import { csrfField } from "../web/browser-scope.ts";
import { field } from "../web/form.ts";
import { runAction } from "../web/form-actions.ts";
import { inputField } from "../web/form-fields.ts";
import { html, type SafeHtml } from "../web/html.ts";
import { readerOf } from "../web/reader.ts";
import type { DashboardDeps } from "./deps.ts";
import { time } from "./layout.ts";
import { memberOf, vendorIdOf } from "./page-context.ts";
import { richMessage } from "./rich-message.ts";

export const NOTIFICATION_EMAIL_PATH = "/dashboard/settings/notification-email";

export function notificationSection(
  t: Translator,
  settings: NotificationSettings,
  csrf: string,
  timeZone: string,
): SafeHtml {
  const k = (key: string) => `dashboard.notificationEmail.${key}`;
  const address = html`<strong>${settings.address}</strong>`;
  const moved = settings.movedAt
    ? html`<p class="flash error" data-notice="notification-email-moved">${richMessage(t, k("moved"), {}, { time: time(settings.movedAt, timeZone, t), address })}</p>`
    : html``;
  const pending = settings.pending
    ? html`<p class="muted" data-pending-notification-email>${richMessage(
        t,
        k("pending"),
        { address: settings.address },
        {
          email: html`<strong>${settings.pending.email}</strong>`,
          time: time(settings.pending.expiresAt, timeZone, t),
        },
      )}</p>`
    : html``;
  return html`<h2 id="notifications">${t.t(k("title"))}</h2>
${moved}
<p>${richMessage(t, k("current"), {}, { address: html`<strong data-notification-email>${settings.address}</strong>` })}</p>
${pending}
<form method="post" action="${NOTIFICATION_EMAIL_PATH}" class="edit-form">${csrfField(csrf)}
${inputField({ name: "notificationEmail", label: t.t(k("field")), type: "email", required: true, maxLength: 254 })}
<p class="muted">${t.t(k("hint"))}</p>
<div class="actions"><button type="submit">${t.t(k("send"))}</button></div>
</form>`;
}

export async function notificationEmailActions(
  app: FastifyInstance,
  { ctx, config }: DashboardDeps,
): Promise<void> {
  app.post(
    NOTIFICATION_EMAIL_PATH,
    { schema: { hide: true }, preHandler: app.csrfProtection },
    async (request, reply) =>
      runAction(reply, { ctx, config }, { done: "/dashboard/settings" }, async (form) => {
        const me = memberOf(request);
        const { t } = readerOf(request);
        const { email, current } = await requestNotificationEmailChange(
          ctx,
          vendorIdOf(request),
          { id: me.id, name: me.name },
          { email: field(form, "notificationEmail") },
        );
        return {
          kind: "success",
          message: t.t("dashboard.notificationEmail.sent", { email, current }),
        };
      }),
  );
}
