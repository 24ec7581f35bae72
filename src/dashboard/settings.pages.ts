// Settings: the shop (name, contact e-mail, time zone), where its notifications go
// (notification-email.section.ts), and a link to the account (password,
// sign-out). The time zone changes every time the dashboard and the tracking page show, and how
// typed dates are read; the API stays UTC.
import type { FastifyInstance } from "fastify";
import { timeZones } from "../lib/time-zone.ts";
import { getNotificationSettings } from "../modules/vendors/notification-email.service.ts";
import { memberLanguages, setShopLanguage } from "../modules/vendors/shop-language.ts";
import { getShopSettings, updateShopSettings } from "../modules/vendors/shop-settings.ts";
import { allowOwnScripts, csrfField } from "../web/browser-scope.ts";
import { field } from "../web/form.ts";
import { runAction } from "../web/form-actions.ts";
import { inputField, selectField } from "../web/form-fields.ts";
import { html, SafeHtml } from "../web/html.ts";

import { translatorFor } from "../web/reader.ts";
import { languageOptions } from "./account-access.pages.ts";
import { bookingSettingsLink } from "./booking-settings.pages.ts";
import { brandSettingsLink } from "./brand.pages.ts";

import type { DashboardDeps } from "./deps.ts";
import { inquiryEmbed } from "./inquiry-embed.ts";
import { dashboardPage, time } from "./layout.ts";
import { notificationEmailActions, notificationSection } from "./notification-email.section.ts";
import { orderDateSettingsLink } from "./order-date-settings.pages.ts";
import { memberOf, pageContext, vendorIdOf } from "./page-context.ts";
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
    const { t } = page;
    const { shop: shopLanguage } = await memberLanguages(ctx, vendorIdOf(request), memberOf(request).id);
    const body = html`<h2>${t.t("dashboard.settings.shop")}</h2>
<form method="post" action="${BASE}" class="edit-form">${csrfField(page.csrf)}
${inputField({ name: "name", label: t.t("dashboard.settings.shopName"), value: shop.name, required: true, maxLength: 200 })}
${inputField({ name: "contactEmail", label: t.t("dashboard.settings.contactEmail"), type: "email", value: shop.contactEmail ?? "", maxLength: 254 })}
${inputField({ name: "website", label: t.t("dashboard.settings.website"), type: "url", value: shop.website ?? "", maxLength: 200 })}
<p class="muted">${t.t("dashboard.settings.websiteHint")}</p>
<label for="language">${t.t("dashboard.settings.language")}</label>
<select id="language" name="language">${languageOptions(shopLanguage)}</select>
<p class="muted">${t.t("dashboard.settings.languageHint")}</p>
${selectField({ name: "timeZone", label: t.t("common.timeZone"), value: shop.timeZone, required: true, options: timeZones.map((z) => [z, z.replaceAll("_", " ")] as const) })}
<p class="muted">${t.t("dashboard.settings.timeZoneHint")} ${t.t("dashboard.settings.now")} ${time(ctx.now(), shop.timeZone, t)}. ${t.t("dashboard.settings.apiUtc")}</p>
<label class="check"><input type="checkbox" name="customerMail" value="on"${shop.customerMail ? new SafeHtml(" checked") : ""}> ${t.t("dashboard.settings.customerMail")}</label>
<p class="muted">${t.t("dashboard.settings.customerMailHint")}</p>
<div class="actions"><button type="submit" class="primary">${t.t("dashboard.settings.save")}</button></div>
</form>
${notificationSection(t, notifications, page.csrf, shop.timeZone)}
${inquiryEmbed(shop, vendorIdOf(request), config.publicUrl, notifications.address)}
${await recentMail(ctx, t, vendorIdOf(request), shop.timeZone, config.publicUrl)}
${brandSettingsLink(t)}
${bookingSettingsLink(t)}
${orderDateSettingsLink(t)}
<h2>${t.t("dashboard.settings.team")}</h2>
<p class="muted">${t.t("dashboard.settings.teamHint")}</p>
<p><a class="button" href="/dashboard/settings/team">${t.t("dashboard.settings.team")}</a></p>
<h2>${t.t("dashboard.nav.account")}</h2>
<p><a class="button" href="/dashboard/account">${t.t("dashboard.settings.accountLink")}</a></p>`;
    return reply
      .type("text/html; charset=utf-8")
      .send(dashboardPage(page, "settings", t.t("dashboard.nav.settings"), body));
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
      // The shop's language: left out (an older form), it keeps its value.
      const language = field(form, "language");
      if (language !== "") await setShopLanguage(ctx, vendorIdOf(request), language);
      // The flash is read on the next page, in the language that page speaks: said in it now.
      const now = await memberLanguages(ctx, vendorIdOf(request), memberOf(request).id);
      const { t } = translatorFor(request, now.member ?? now.shop);
      return { kind: "success", message: t.t("dashboard.settings.saved", { zone: saved.timeZone }) };
    });
  });
}
