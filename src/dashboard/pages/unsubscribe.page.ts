// /unsubscribe/{token}: the List-Unsubscribe URL of every customer mail. A POST unsubscribes at
// once, without CSRF or a session (RFC 8058 one-click: the mail client posts
// "List-Unsubscribe=One-Click", as form or multipart); a GET (a person clicking the footer link)
// shows a button that makes that POST, so a link scanner that only follows links unsubscribes
// nobody.
import type { FastifyInstance } from "fastify";
import { AppError } from "../../errors.ts";
import { registerAddressRateLimit } from "../../http/rate-limit.ts";
import { unsubscribeCustomer } from "../../modules/customers/customer-mail.service.ts";
import { sendPage } from "../../web/browser-scope.ts";
import { html, layout } from "../../web/html.ts";
import type { DashboardDeps } from "../deps.ts";

export async function unsubscribePage(app: FastifyInstance, { ctx }: DashboardDeps): Promise<void> {
  registerAddressRateLimit(app, app.rateLimitStore, { policy: "unsubscribe", maxPerMinute: 60 });
  // Mail clients may post multipart/form-data; the body says nothing we need.
  app.addContentTypeParser("multipart/form-data", { parseAs: "string", bodyLimit: 4096 }, (_r, _b, done) =>
    done(null, {}),
  );
  app.setErrorHandler((error, _request, reply) => {
    if (error instanceof AppError && error.status === 404) {
      return sendPage(
        reply,
        404,
        layout(
          "Link not valid",
          html`<h1>Link not valid</h1><p>This unsubscribe link is not known. Use the link in the latest mail.</p>`,
        ),
      );
    }
    throw error;
  });
  app.get<{ Params: { token: string } }>(
    "/unsubscribe/:token",
    { schema: { hide: true } },
    async (request, reply) =>
      sendPage(
        reply,
        200,
        layout(
          "Unsubscribe",
          html`<h1>Unsubscribe</h1><p>Stop receiving e-mail about your orders and appointments from this shop?</p>
<form method="post" action="/unsubscribe/${request.params.token}"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>`,
        ),
      ),
  );
  app.post<{ Params: { token: string } }>(
    "/unsubscribe/:token",
    { schema: { hide: true } },
    async (request, reply) => {
      const { shopName } = await unsubscribeCustomer(ctx, request.params.token);
      return sendPage(
        reply,
        200,
        layout(
          "Unsubscribed",
          html`<h1>Unsubscribed</h1><p role="status">${shopName} will not e-mail you any more.</p>`,
        ),
      );
    },
  );
}
