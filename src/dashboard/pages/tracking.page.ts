// The customer-facing tracking page, /track/{token}: public (no session), reachable only through
// the unguessable link the vendor sends. It shows the shop's brand, the order's model and type,
// its status and the status history with the vendor's messages and photos; nothing about the
// customer, and once the customer was erased not the messages or photos either (they often name
// or show her): statuses and dates only. In the customer's language (else the shop's), times in
// the shop's zone. Not indexed (X-Robots-Tag), and no Referer leaks the token to the photo hosts
// (Referrer-Policy: no-referrer, from the page headers).
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { AppError } from "../../errors.ts";
import { registerAddressRateLimit } from "../../http/rate-limit.ts";
import { type Translator, translator } from "../../i18n/translator.ts";
import { getTrackedOrder, type TrackedOrder } from "../../modules/orders/orders.service.ts";
import { sendPage } from "../../web/browser-scope.ts";
import { html, type SafeHtml } from "../../web/html.ts";
import { publicPage as frame, type PageBrand } from "../../web/public-page.ts";
import type { DashboardDeps } from "../deps.ts";
import { richMessage } from "../rich-message.ts";
import { isWebUrl } from "./common.ts";
import { codeText, customerReader, pageBrand } from "./customer-page.ts";
import { calendarDay } from "./today.page.ts";

/**
 * Per client address. The token's 256 bits make guessing hopeless anyway; the limit keeps a
 * scraper from using the page to load the database. Generous, as a shop's customers may share
 * one address (a venue's Wi-Fi) and reload while waiting for news.
 */
export const TRACKING_REQUESTS_PER_MINUTE = 120;

/** The first history entry's message, written by the service when the order was made. */
const CREATED_MESSAGE = "Order created";

export async function trackingPage(app: FastifyInstance, { ctx }: DashboardDeps): Promise<void> {
  registerAddressRateLimit(app, app.rateLimitStore, {
    policy: "tracking",
    maxPerMinute: TRACKING_REQUESTS_PER_MINUTE,
  });
  app.addHook("onSend", async (_request, reply) => {
    reply.header("x-robots-tag", "noindex, nofollow");
  });
  app.setErrorHandler((error, request, reply) => {
    const t = customerReader(request, { shop: "en", negotiate: true });
    if (error instanceof AppError && error.status === 404) return notFoundPage(t, reply);
    if (error instanceof AppError && error.code === "rate_limited") {
      return sendPage(
        reply,
        429,
        publicPage(
          t,
          t.t("customer.tooMany.title"),
          html`<h1>${t.t("customer.tooMany.title")}</h1><p>${t.t("customer.tooMany.body")}</p>`,
        ),
      );
    }
    throw error;
  });

  app.get<{ Params: { token: string } }>(
    "/track/:token",
    { schema: { hide: true } },
    async (request: FastifyRequest<{ Params: { token: string } }>, reply) => {
      const order = await getTrackedOrder(ctx, request.params.token);
      const t = customerReader(request, { stored: order.language, shop: order.language });
      return sendPage(
        reply,
        200,
        publicPage(
          t,
          t.t("customer.tracking.title", { shopName: order.vendorName }),
          trackedBody(t, order),
          pageBrand(t, order.vendorName, order.brand),
        ),
      );
    },
  );
}

function notFoundPage(t: Translator, reply: FastifyReply): FastifyReply {
  return sendPage(
    reply,
    404,
    publicPage(
      t,
      t.t("customer.tracking.notFoundTitle"),
      html`<h1>${t.t("customer.tracking.notFoundTitle")}</h1><p>${t.t("customer.tracking.notFound")}</p>`,
    ),
  );
}

function badge(t: Translator, status: string): SafeHtml {
  return html`<span class="badge status" data-status="${status}">${codeText(t, "orderStatus", status)}</span>`;
}

function when(t: Translator, iso: string, timeZone: string): SafeHtml {
  const at = new Date(iso);
  return html`<time datetime="${at.toISOString()}">${t.dateTime(at, timeZone, { dateStyle: "medium", timeStyle: "short" })}</time>`;
}

function trackedBody(t: Translator, order: TrackedOrder): SafeHtml {
  const type = codeText(t, "orderType", order.type);
  const item = order.model ? `${type} ${order.model}` : type;
  // Newest first: the customer comes for the latest news.
  const updates = [...order.updates].reverse();
  return html`<h1>${t.t("customer.tracking.heading", { orderNumber: String(order.number), item })}</h1>
<p>${type}</p>
<p class="current">${t.t("customer.tracking.current")} ${badge(t, order.status)} <span class="muted">${richMessage(t, "customer.tracking.since", {}, { time: html`<time datetime="${new Date(order.updatedAt).toISOString()}">${t.dateTime(new Date(order.updatedAt), order.timeZone, { dateStyle: "medium", timeStyle: "short" })}</time>` })}</span></p>
${expectedReady(t, order)}
<h2>${t.t("customer.tracking.progress")}</h2>
${order.customerErased ? html`<p class="muted" id="messages-withheld">${t.t("customer.tracking.withheld")}</p>` : ""}
<ol class="timeline">${updates.map(
    (u, i) => html`<li data-status="${u.status}">
<div>${badge(t, u.status)} ${when(t, u.createdAt, order.timeZone)}</div>
${
  u.message
    ? html`<p class="message">${
        u.message === CREATED_MESSAGE && u.status === "ORDERED" && i === updates.length - 1
          ? t.t("customer.tracking.created")
          : u.message
      }</p>`
    : ""
}
${
  isWebUrl(u.imageUrl)
    ? html`<a href="${u.imageUrl}" target="_blank" rel="noopener noreferrer"><img src="${u.imageUrl}" alt="${t.t("customer.tracking.photo", { status: codeText(t, "orderStatus", u.status) })}" loading="lazy"></a>`
    : ""
}
${
  u.photos && u.photos.length > 0
    ? html`<div class="photos">${u.photos.map(
        (p, i) =>
          html`<a href="${p.url}" target="_blank" rel="noopener noreferrer" data-photo="${p.id}"><img src="${p.thumbnailUrl}" alt="${t.t("photos.alt", { number: i + 1 })}" loading="lazy"></a>`,
      )}</div>`
    : ""
}
</li>`,
  )}</ol>`;
}

const publicPage = (t: Translator, title: string, body: SafeHtml, brand?: PageBrand): string =>
  frame(title, body, { indexable: false, lang: t.language, brand: brand ?? null });

/** Statuses in which the order is ready, gone or off: no "expected ready" any more. */
const done = new Set(["READY_FOR_PICKUP", "PICKED_UP", "RETURNED", "COMPLETED", "CANCELLED"]);

/**
 * When the order is expected ready relative to her wedding (CONTRACT 12, Dates of an order), in
 * her language: "expected ready 3 weeks before your wedding"; the date alone without a wedding
 * date. The wedding date itself is not shown (the link may be in anyone's hands).
 */
export function expectedReadySentence(
  order: Pick<TrackedOrder, "dueDate" | "weddingDate" | "language" | "status">,
  t: Translator = translator(order.language),
): string | null {
  if (!order.dueDate || done.has(order.status)) return null;
  if (!order.weddingDate) return t.t("today.tracking.onDate", { date: calendarDay(t, order.dueDate) });
  const days = Math.round((Date.parse(order.weddingDate) - Date.parse(order.dueDate)) / 86_400_000);
  if (days < 0) return t.t("today.tracking.onDate", { date: calendarDay(t, order.dueDate) });
  if (days === 0) return t.t("today.tracking.onDay");
  if (days >= 14 || days % 7 === 0) return t.t("today.tracking.weeksBefore", { count: Math.round(days / 7) });
  return t.t("today.tracking.daysBefore", { count: days });
}

function expectedReady(t: Translator, order: TrackedOrder): SafeHtml {
  const sentence = expectedReadySentence(order, t);
  return sentence ? html`<p class="expected-ready">${sentence}</p>` : html``;
}
