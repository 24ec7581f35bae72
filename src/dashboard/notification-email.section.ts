// Settings → Notifications (owners only, the Settings scope): where the shop's own mail goes,
// as it is now, a change waiting for its link, and the notice that it moved off a member who was
// removed or demoted. Changing it mails a confirmation link to the new address; the setting
// changes only when that link is followed (notification-email.service.ts, CONTRACT 12).
import type { FastifyInstance } from "fastify";
import {
  type NotificationSettings,
  requestNotificationEmailChange,
} from "../modules/vendors/notification-email.service.ts";
import { csrfField } from "../web/browser-scope.ts";
import { field } from "../web/form.ts";
import { runAction } from "../web/form-actions.ts";
import { inputField } from "../web/form-fields.ts";
import { html, type SafeHtml } from "../web/html.ts";
import type { DashboardDeps } from "./deps.ts";
import { time } from "./layout.ts";
import { memberOf, vendorIdOf } from "./page-context.ts";

export const NOTIFICATION_EMAIL_PATH = "/dashboard/settings/notification-email";

export function notificationSection(
  settings: NotificationSettings,
  csrf: string,
  timeZone: string,
): SafeHtml {
  const moved = settings.movedAt
    ? html`<p class="flash error" data-notice="notification-email-moved">Since ${time(settings.movedAt, timeZone)}, the shop's notifications go to <strong>${settings.address}</strong>: the member they went to was removed or is no longer an owner (see Activity). Change the address below if another suits better.</p>`
    : html``;
  const pending = settings.pending
    ? html`<p class="muted" data-pending-notification-email>Waiting for confirmation: <strong>${settings.pending.email}</strong> (the link sent there works until ${time(settings.pending.expiresAt, timeZone)}). Until it is followed, notifications keep going to ${settings.address}.</p>`
    : html``;
  return html`<h2 id="notifications">Notifications</h2>
${moved}
<p>New inquiries are mailed to <strong data-notification-email>${settings.address}</strong>.</p>
${pending}
<form method="post" action="${NOTIFICATION_EMAIL_PATH}" class="edit-form">${csrfField(csrf)}
${inputField({ name: "notificationEmail", label: "Send notifications to", type: "email", required: true, maxLength: 254 })}
<p class="muted">We mail a confirmation link to the new address; notifications go there once it is followed.</p>
<div class="actions"><button type="submit">Send confirmation link</button></div>
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
        const { email, current } = await requestNotificationEmailChange(
          ctx,
          vendorIdOf(request),
          { id: me.id, name: me.name },
          { email: field(form, "notificationEmail") },
        );
        return {
          kind: "success",
          message: `A confirmation link was sent to ${email}. Notifications keep going to ${current} until it is followed.`,
        };
      }),
  );
}
