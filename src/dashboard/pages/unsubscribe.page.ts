// /unsubscribe/{token}: the List-Unsubscribe URL of every customer mail. A POST unsubscribes at
// once, without CSRF or a session (RFC 8058 one-click: the mail client posts
// "List-Unsubscribe=One-Click", as form or multipart); a GET (a person clicking the footer link)
// shows a button that makes that POST, so a link scanner that only follows links unsubscribes
// nobody. In the customer's language (else the shop's), under the shop's brand.
import type { FastifyInstance } from "fastify";
import { AppError } from "../../errors.ts";
import { registerAddressRateLimit } from "../../http/rate-limit.ts";
import type { Translator } from "../../i18n/translator.ts";
import {
  findSubscription,
  type Subscription,
  unsubscribeCustomer,
} from "../../modules/customers/customer-mail.service.ts";
import { sendPage } from "../../web/browser-scope.ts";
import { html, type SafeHtml } from "../../web/html.ts";
import { publicPage } from "../../web/public-page.ts";
import type { DashboardDeps } from "../deps.ts";
import { customerReader, pageBrand } from "./customer-page.ts";

const page = (t: Translator, title: string, body: SafeHtml, shop?: Subscription): string =>
  publicPage(title, body, {
    indexable: false,
    lang: t.language,
    brand: shop ? pageBrand(t, shop.shopName, shop) : null,
  });

export async function unsubscribePage(app: FastifyInstance, { ctx }: DashboardDeps): Promise<void> {
  registerAddressRateLimit(app, app.rateLimitStore, { policy: "unsubscribe", maxPerMinute: 60 });
  // Mail clients may post multipart/form-data; the body says nothing we need.
  app.addContentTypeParser("multipart/form-data", { parseAs: "string", bodyLimit: 4096 }, (_r, _b, done) =>
    done(null, {}),
  );
  app.setErrorHandler((error, request, reply) => {
    if (error instanceof AppError && error.status === 404) {
      const t = customerReader(request, { shop: "en", negotiate: true });
      return sendPage(
        reply,
        404,
        page(
          t,
          t.t("customer.unsubscribe.invalidTitle"),
          html`<h1>${t.t("customer.unsubscribe.invalidTitle")}</h1><p>${t.t("customer.unsubscribe.invalid")}</p>`,
        ),
      );
    }
    throw error;
  });
  app.get<{ Params: { token: string } }>(
    "/unsubscribe/:token",
    { schema: { hide: true } },
    async (request, reply) => {
      const shop = await findSubscription(ctx, request.params.token);
      const t = customerReader(request, { stored: shop.language, shop: shop.language });
      return sendPage(
        reply,
        200,
        page(
          t,
          t.t("customer.unsubscribe.title"),
          html`<h1>${t.t("customer.unsubscribe.title")}</h1><p>${t.t("customer.unsubscribe.question", { shopName: shop.shopName })}</p>
<form method="post" action="/unsubscribe/${request.params.token}"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit" class="primary">${t.t("customer.unsubscribe.button")}</button></form>`,
          shop,
        ),
      );
    },
  );
  app.post<{ Params: { token: string } }>(
    "/unsubscribe/:token",
    { schema: { hide: true } },
    async (request, reply) => {
      const shop = await unsubscribeCustomer(ctx, request.params.token);
      const t = customerReader(request, { stored: shop.language, shop: shop.language });
      return sendPage(
        reply,
        200,
        page(
          t,
          t.t("customer.unsubscribe.doneTitle"),
          html`<h1>${t.t("customer.unsubscribe.doneTitle")}</h1><p role="status">${t.t("customer.unsubscribe.done", { shopName: shop.shopName })}</p>`,
          shop,
        ),
      );
    },
  );
}
