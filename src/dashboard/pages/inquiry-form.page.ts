// Each shop's hosted inquiry page, /inquiry/{shop id}: public (no session), a plain HTML form that
// posts to the public inquiry endpoint (no script), and the thank-you page it lands on. A shop
// links to it from anywhere (social profiles, a website without a form of its own).
import type { FastifyInstance } from "fastify";
import { AppError } from "../../errors.ts";
import { registerAddressRateLimit } from "../../http/rate-limit.ts";
import { isId } from "../../lib/ids.ts";
import { HONEYPOT_FIELD } from "../../modules/inquiries/inquiry-form.ts";
import { findShopSettings } from "../../modules/vendors/shop-settings.ts";
import { sendPage } from "../../web/browser-scope.ts";
import { html, type SafeHtml } from "../../web/html.ts";
import { publicPage } from "../../web/public-page.ts";
import type { DashboardDeps } from "../deps.ts";

export async function inquiryFormPages(app: FastifyInstance, { ctx }: DashboardDeps): Promise<void> {
  registerAddressRateLimit(app, app.rateLimitStore, { policy: "inquiry-page", maxPerMinute: 120 });
  app.setErrorHandler((error, _request, reply) => {
    if (error instanceof AppError && error.code === "rate_limited") {
      return sendPage(
        reply,
        429,
        page("Too many requests", html`<h1>Too many requests</h1><p>Please wait a minute.</p>`),
      );
    }
    throw error;
  });
  const shopName = async (vendorId: string) =>
    isId(vendorId) ? (await findShopSettings(ctx, vendorId))?.name : undefined;
  const notFound = () =>
    page("Not found", html`<h1>Not found</h1><p>There is no such shop. Check the link you followed.</p>`);

  app.get<{ Params: { vendorId: string } }>(
    "/inquiry/:vendorId",
    { schema: { hide: true } },
    async (request, reply) => {
      const { vendorId } = request.params;
      const name = await shopName(vendorId);
      if (!name) return sendPage(reply, 404, notFound());
      return sendPage(reply, 200, page(`Write to ${name}`, form(vendorId, name)));
    },
  );
  app.get<{ Params: { vendorId: string } }>(
    "/inquiry/:vendorId/thanks",
    { schema: { hide: true } },
    async (request, reply) => {
      const { vendorId } = request.params;
      const name = await shopName(vendorId);
      if (!name) return sendPage(reply, 404, notFound());
      return sendPage(
        reply,
        200,
        page(
          `Thank you · ${name}`,
          html`<h1>Thank you</h1><p role="status">Your message is on its way to ${name}. They will answer you by e-mail.</p>
<p><a href="/inquiry/${vendorId}">Write another message</a></p>`,
        ),
      );
    },
  );
}

function form(vendorId: string, name: string): SafeHtml {
  return html`<h1>Write to ${name}</h1>
<form method="post" action="/api/public/vendors/${vendorId}/inquiries" accept-charset="utf-8" class="edit-form">
<p class="trap" aria-hidden="true" style="position:absolute;left:-9999px"><label>Leave this empty <input name="${HONEYPOT_FIELD}" tabindex="-1" autocomplete="off"></label></p>
<label for="name">Your name</label><input id="name" name="name" required maxlength="200" autocomplete="name">
<label for="email">E-mail</label><input id="email" name="email" type="email" required maxlength="254" autocomplete="email">
<label for="phone">Phone (optional)</label><input id="phone" name="phone" type="tel" maxlength="50" autocomplete="tel">
<label for="weddingDate">Wedding date (optional)</label><input id="weddingDate" name="weddingDate" type="date">
<label for="message">Message</label><textarea id="message" name="message" required maxlength="5000" rows="6"></textarea>
<div class="actions"><button type="submit" class="primary">Send</button></div>
</form>`;
}

function page(title: string, body: SafeHtml): string {
  return publicPage(title, body, { indexable: true });
}
