// The customer-facing tracking page, /track/{token}: public (no session), reachable only through
// the unguessable link the vendor sends. It shows the vendor's name, the order's model and type,
// its status and the status history with the vendor's messages and photos; nothing about the
// customer, and once the customer was erased not the messages or photos either (they often name
// or show her): statuses and dates only. Not indexed (X-Robots-Tag), and no Referer leaks the token to the photo hosts
// (Referrer-Policy: no-referrer, from the page headers).
import type { FastifyInstance, FastifyReply } from "fastify";
import { AppError } from "../../errors.ts";
import { registerAddressRateLimit } from "../../http/rate-limit.ts";
import { getTrackedOrder, type TrackedOrder } from "../../modules/orders/orders.service.ts";
import { sendPage } from "../../web/browser-scope.ts";
import { html, type SafeHtml } from "../../web/html.ts";
import { publicPage as frame } from "../../web/public-page.ts";
import type { DashboardDeps } from "../deps.ts";
import { time } from "../layout.ts";
import { humanize, statusBadge } from "./common.ts";
import { timeline } from "./timeline.ts";

/**
 * Per client address. The token's 256 bits make guessing hopeless anyway; the limit keeps a
 * scraper from using the page to load the database. Generous, as a shop's customers may share
 * one address (a venue's Wi-Fi) and reload while waiting for news.
 */
export const TRACKING_REQUESTS_PER_MINUTE = 120;

export async function trackingPage(app: FastifyInstance, { ctx }: DashboardDeps): Promise<void> {
  registerAddressRateLimit(app, app.rateLimitStore, {
    policy: "tracking",
    maxPerMinute: TRACKING_REQUESTS_PER_MINUTE,
  });
  app.addHook("onSend", async (_request, reply) => {
    reply.header("x-robots-tag", "noindex, nofollow");
  });
  app.setErrorHandler((error, _request, reply) => {
    if (error instanceof AppError && error.status === 404) return notFoundPage(reply);
    if (error instanceof AppError && error.code === "rate_limited") {
      return sendPage(
        reply,
        429,
        publicPage(
          "Too many requests",
          html`<h1>Too many requests</h1><p>Please wait a minute, then reload this page.</p>`,
        ),
      );
    }
    throw error;
  });

  app.get<{ Params: { token: string } }>(
    "/track/:token",
    { schema: { hide: true } },
    async (request, reply) => {
      const order = await getTrackedOrder(ctx, request.params.token);
      return sendPage(reply, 200, publicPage(`Order status · ${order.vendorName}`, trackedBody(order)));
    },
  );
}

function notFoundPage(reply: FastifyReply): FastifyReply {
  return sendPage(
    reply,
    404,
    publicPage(
      "Order not found",
      html`<h1>Order not found</h1><p>This tracking link is not valid. Please check the link you received, or ask the shop for a new one.</p>`,
    ),
  );
}

function trackedBody(order: TrackedOrder): SafeHtml {
  return html`<p class="muted">${order.vendorName}</p>
<h1>Order #${String(order.number)} — ${order.model ?? humanize(order.type)}</h1>
<p>${humanize(order.type)}</p>
<p class="current">Current status: ${statusBadge(order.status)} <span class="muted">since ${time(order.updatedAt, order.timeZone)}</span></p>
<h2>Progress</h2>
${order.customerErased ? html`<p class="muted" id="messages-withheld">The shop's messages about this order are no longer shown here.</p>` : ""}
${timeline([...order.updates].reverse(), order.timeZone)}`; // newest first: the customer comes for the latest news
}

const publicPage = (title: string, body: SafeHtml): string => frame(title, body, { indexable: false });
