// Settings: the shop (name, contact e-mail, time zone) and a link to the account (password,
// sign-out). The time zone changes every time the dashboard and the tracking page show, and how
// typed dates are read; the API stays UTC.
import type { FastifyInstance } from "fastify";
import { timeZones } from "../lib/time-zone.ts";
import { getShopSettings, updateShopSettings } from "../modules/vendors/shop-settings.ts";
import { csrfField } from "../web/browser-scope.ts";
import { field } from "../web/form.ts";
import { runAction } from "../web/form-actions.ts";
import { inputField, selectField } from "../web/form-fields.ts";
import { html } from "../web/html.ts";
import type { DashboardDeps } from "./deps.ts";
import { dashboardPage, time } from "./layout.ts";
import { pageContext, vendorIdOf } from "./page-context.ts";

const BASE = "/dashboard/settings";

export async function settingsPages(app: FastifyInstance, { ctx, config }: DashboardDeps): Promise<void> {
  app.get(BASE, { schema: { hide: true } }, async (request, reply) => {
    const page = await pageContext(ctx, request, reply);
    const shop = await getShopSettings(ctx, vendorIdOf(request));
    const body = html`<h2>Shop</h2>
<form method="post" action="${BASE}" class="edit-form">${csrfField(page.csrf)}
${inputField({ name: "name", label: "Shop name", value: shop.name, required: true, maxLength: 200 })}
${inputField({ name: "contactEmail", label: "Contact e-mail (for customers)", type: "email", value: shop.contactEmail ?? "", maxLength: 254 })}
${selectField({ name: "timeZone", label: "Time zone", value: shop.timeZone, required: true, options: timeZones.map((z) => [z, z.replaceAll("_", " ")] as const) })}
<p class="muted">Times in the dashboard and on tracking pages are shown in this zone, and dates you type are read in it. Now: ${time(ctx.now(), shop.timeZone)}. The API always uses UTC.</p>
<div class="actions"><button type="submit" class="primary">Save settings</button></div>
</form>
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
      });
      return { kind: "success", message: `Settings saved. Times are shown in ${saved.timeZone}.` };
    });
  });
}
