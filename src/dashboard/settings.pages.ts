// Settings: the shop (name, contact e-mail, time zone), where its notifications go
// (notification-email.section.ts), and a link to the account (password,
// sign-out). The time zone changes every time the dashboard and the tracking page show, and how
// typed dates are read; the API stays UTC.
import type { FastifyInstance } from "fastify";
import { timeZones } from "../lib/time-zone.ts";
import { getNotificationSettings } from "../modules/vendors/notification-email.service.ts";
import { getShopSettings, updateShopSettings } from "../modules/vendors/shop-settings.ts";
import { allowOwnScripts, csrfField } from "../web/browser-scope.ts";
import { field } from "../web/form.ts";
import { runAction } from "../web/form-actions.ts";
import { inputField, selectField } from "../web/form-fields.ts";
import { html, SafeHtml } from "../web/html.ts";
import type { DashboardDeps } from "./deps.ts";
import { inquiryEmbed } from "./inquiry-embed.ts";
import { dashboardPage, time } from "./layout.ts";
import { notificationEmailActions, notificationSection } from "./notification-email.section.ts";
import { pageContext, vendorIdOf } from "./page-context.ts";
import { recentMail } from "./recent-mail.ts";

const BASE = "/dashboard/settings";

export async function settingsPages(app: FastifyInstance, deps: DashboardDeps): Promise<void> {
  const { ctx, config } = deps;
  await notificationEmailActions(app, deps);
  app.get(BASE, { schema: { hide: true } }, async (request, reply) => {
    const page = await pageContext(ctx, request, reply);
    const [shop, notifications] = await Promise.all([
      getShopSettings(ctx, vendorIdOf(request)),
      getNotificationSettings(ctx, vendorIdOf(request)),
    ]);
    allowOwnScripts(reply);
    const body = html`<h2>Shop</h2>
<form method="post" action="${BASE}" class="edit-form">${csrfField(page.csrf)}
${inputField({ name: "name", label: "Shop name", value: shop.name, required: true, maxLength: 200 })}
${inputField({ name: "contactEmail", label: "Contact e-mail (for customers)", type: "email", value: shop.contactEmail ?? "", maxLength: 254 })}
${inputField({ name: "website", label: "Website", type: "url", value: shop.website ?? "", maxLength: 200 })}
<p class="muted">Your inquiry form may send visitors back to a page of this site after they write.</p>
${selectField({ name: "timeZone", label: "Time zone", value: shop.timeZone, required: true, options: timeZones.map((z) => [z, z.replaceAll("_", " ")] as const) })}
<p class="muted">Times in the dashboard and on tracking pages are shown in this zone, and dates you type are read in it. Now: ${time(ctx.now(), shop.timeZone)}. The API always uses UTC.</p>
<label class="check"><input type="checkbox" name="customerMail" value="on"${shop.customerMail ? new SafeHtml(" checked") : ""}> E-mail customers about their orders and appointments</label>
<p class="muted">When on, a status change with a message and a confirmed or cancelled appointment are mailed to the customer (with a calendar invitation for appointments), from your shop's name, answered to your contact e-mail. Each mail lets the customer unsubscribe in one click.</p>
<div class="actions"><button type="submit" class="primary">Save settings</button></div>
</form>
${notificationSection(notifications, page.csrf, shop.timeZone)}
${inquiryEmbed(shop, vendorIdOf(request), config.publicUrl, notifications.address)}
${await recentMail(ctx, vendorIdOf(request), shop.timeZone, config.publicUrl)}
<h2>Team</h2>
<p class="muted">Invite the people who work with you, each with their own sign-in, as owners or staff.</p>
<p><a class="button" href="/dashboard/settings/team">Team</a></p>
<h2>Account</h2>
<p><a class="button" href="/dashboard/account">Password and sign-out</a></p>`;
    return reply.type("text/html; charset=utf-8").send(dashboardPage(page, "settings", "Settings", body));
  });

  app.post(BASE, { schema: { hide: true }, preHandler: app.csrfProtection }, async (request, reply) => {
    return runAction(reply, { ctx, config }, { done: BASE }, async (form) => {
      const saved = await updateShopSettings(ctx, vendorIdOf(request), {
        name: field(form, "name"),
        contactEmail: field(form, "contactEmail"),
        timeZone: field(form, "timeZone"),
        website: field(form, "website"),
        customerMail: field(form, "customerMail") === "on",
      });
      return { kind: "success", message: `Settings saved. Times are shown in ${saved.timeZone}.` };
    });
  });
}
