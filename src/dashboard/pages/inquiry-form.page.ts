// Each shop's hosted inquiry page, /inquiry/{shop id}: public (no session), a plain HTML form that
// posts to the public inquiry endpoint (no script), and the thank-you page it lands on. A shop
// links to it from anywhere (social profiles, a website without a form of its own). In the
// visitor's language (Accept-Language matched to ours, else the shop's), which the form sends
// along: the customer the inquiry becomes keeps it for the shop's mail.
import type { FastifyInstance, FastifyRequest } from "fastify";
import { AppError } from "../../errors.ts";
import { registerAddressRateLimit } from "../../http/rate-limit.ts";
import { isLanguage } from "../../i18n/languages.ts";
import type { Translator } from "../../i18n/translator.ts";
import { isId } from "../../lib/ids.ts";
import { HONEYPOT_FIELD } from "../../modules/inquiries/inquiry-form.ts";
import { findShopBrand, type ShopBrand } from "../../modules/vendors/shop-brand.ts";
import { sendPage } from "../../web/browser-scope.ts";
import { html, type SafeHtml } from "../../web/html.ts";
import { type PageBrand, publicPage } from "../../web/public-page.ts";
import type { DashboardDeps } from "../deps.ts";
import { customerReader, pageBrand } from "./customer-page.ts";

export async function inquiryFormPages(app: FastifyInstance, { ctx }: DashboardDeps): Promise<void> {
  registerAddressRateLimit(app, app.rateLimitStore, { policy: "inquiry-page", maxPerMinute: 120 });
  app.setErrorHandler((error, request, reply) => {
    if (error instanceof AppError && error.code === "rate_limited") {
      const t = customerReader(request, { shop: "en", negotiate: true });
      return sendPage(
        reply,
        429,
        page(
          t,
          t.t("customer.tooMany.title"),
          html`<h1>${t.t("customer.tooMany.title")}</h1><p>${t.t("customer.tooMany.body")}</p>`,
        ),
      );
    }
    throw error;
  });
  const shopOf = async (vendorId: string) =>
    isId(vendorId) ? await findShopBrand(ctx, vendorId) : undefined;
  const reader = (request: FastifyRequest, shop: ShopBrand | undefined) =>
    customerReader(request, { shop: shop?.language ?? "en", negotiate: true });
  const notFound = (t: Translator) =>
    page(
      t,
      t.t("customer.inquiry.notFoundTitle"),
      html`<h1>${t.t("customer.inquiry.notFoundTitle")}</h1><p>${t.t("customer.inquiry.notFound")}</p>`,
    );

  app.get<{ Params: { vendorId: string } }>(
    "/inquiry/:vendorId",
    { schema: { hide: true } },
    async (request, reply) => {
      const { vendorId } = request.params;
      const shop = await shopOf(vendorId);
      const t = reader(request, shop);
      if (!shop) return sendPage(reply, 404, notFound(t));
      return sendPage(
        reply,
        200,
        page(
          t,
          t.t("customer.inquiry.title", { shopName: shop.name }),
          form(t, vendorId, shop),
          brandOf(t, shop),
        ),
      );
    },
  );
  app.get<{ Params: { vendorId: string } }>(
    "/inquiry/:vendorId/thanks",
    { schema: { hide: true } },
    async (request, reply) => {
      const { vendorId } = request.params;
      const shop = await shopOf(vendorId);
      const t = reader(request, shop);
      if (!shop) return sendPage(reply, 404, notFound(t));
      return sendPage(
        reply,
        200,
        page(
          t,
          t.t("customer.inquiry.thanksTitle", { shopName: shop.name }),
          html`<h1>${t.t("customer.inquiry.thanks")}</h1><p role="status">${t.t("customer.inquiry.thanksBody", { shopName: shop.name })}</p>
<p><a href="/inquiry/${vendorId}">${t.t("customer.inquiry.another")}</a></p>`,
          brandOf(t, shop),
        ),
      );
    },
  );
}

const brandOf = (t: Translator, shop: ShopBrand): PageBrand => pageBrand(t, shop.name, shop);

function form(t: Translator, vendorId: string, shop: ShopBrand): SafeHtml {
  // The page's language goes with the inquiry (the pseudo-locale is no language: left out).
  const language = isLanguage(t.locale)
    ? html`<input type="hidden" name="language" value="${t.locale}">`
    : "";
  return html`<h1>${t.t("customer.inquiry.title", { shopName: shop.name })}</h1>
<p>${t.t("customer.inquiry.intro")}</p>
<form method="post" action="/api/public/vendors/${vendorId}/inquiries" accept-charset="utf-8" class="edit-form">${language}
<p class="trap" aria-hidden="true" style="position:absolute;left:-9999px"><label>${t.t("customer.inquiry.trap")} <input name="${HONEYPOT_FIELD}" tabindex="-1" autocomplete="off"></label></p>
<label for="name">${t.t("customer.inquiry.name")}</label><input id="name" name="name" required maxlength="200" autocomplete="name">
<label for="email">${t.t("customer.inquiry.email")}</label><input id="email" name="email" type="email" required maxlength="254" autocomplete="email">
<label for="phone">${t.t("customer.inquiry.phone")}</label><input id="phone" name="phone" type="tel" maxlength="50" autocomplete="tel">
<label for="weddingDate">${t.t("customer.inquiry.weddingDate")}</label><input id="weddingDate" name="weddingDate" type="date">
<label for="message">${t.t("customer.inquiry.message")}</label><textarea id="message" name="message" required maxlength="5000" rows="6"></textarea>
<div class="actions"><button type="submit" class="primary">${t.t("customer.inquiry.send")}</button></div>
</form>`;
}

function page(t: Translator, title: string, body: SafeHtml, brand?: PageBrand): string {
  return publicPage(title, body, { indexable: true, lang: t.language, brand: brand ?? null });
}
