// Each shop's hosted booking page, /book/{shop id} (CONTRACT 12, Public booking): public (no
// session), phone-first and server-rendered, so it works without script: pick a type, a day and a
// free time, then give name, e-mail, phone, wedding date and notes. Times are the shop's wall
// clock; a small script (assets/booking-zone.js) adds the visitor's own when her zone differs.
// The form posts to this page (CSRF-protected, anonymous), which books through the same service
// as POST /api/public/vendors/{id}/bookings: a time taken meanwhile shows the day again.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { AppointmentTypeName } from "../../db/schema/booking.ts";
import { AppError } from "../../errors.ts";
import { registerAddressRateLimit } from "../../http/rate-limit.ts";
import { isLanguage, negotiateLanguage } from "../../i18n/languages.ts";
import { type Translator, translator } from "../../i18n/translator.ts";
import { parseDate, parseDateTime } from "../../lib/instants.ts";
import { localDate } from "../../lib/time-zone.ts";
import { BookingBody } from "../../modules/booking/booking.schemas.ts";
import { bookingPageShop, bookSlot, readAvailability } from "../../modules/use-cases/booking.service.ts";
import { allowOwnScripts, csrfField, csrfToken, sendPage } from "../../web/browser-scope.ts";
import { field, formErrors, formOf, optional } from "../../web/form.ts";
import { errorPage, html, type SafeHtml } from "../../web/html.ts";
import { readerOf } from "../../web/reader.ts";
import type { DashboardDeps } from "../deps.ts";

const TYPES: readonly AppointmentTypeName[] = ["CONSULTATION", "FITTING", "PICKUP"];
const WINDOW_DAYS = 14;
type Shop = NonNullable<Awaited<ReturnType<typeof bookingPageShop>>>;
type Query = { type?: string; from?: string; day?: string; slot?: string; lang?: string };

const addDays = (day: string, days: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

function languageOf(request: FastifyRequest, shop: Shop, asked: string | undefined): string {
  if (asked && isLanguage(asked)) return asked;
  return negotiateLanguage(request.headers["accept-language"], shop.language);
}

function frame(t: Translator, shop: Shop, lang: string, body: SafeHtml): string {
  const zone = shop.settings.timeZone;
  return html`<!doctype html>
<html lang="${t.language}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${t.t("booking.page.title", { shop: shop.name })}</title>
<link rel="stylesheet" href="/assets/dashboard.css">
<style>.slots{display:flex;flex-wrap:wrap;gap:.5rem;padding:0;list-style:none}.slots a{display:inline-block;padding:.6rem .9rem;border:1px solid #345;border-radius:6px;text-decoration:none;min-width:5.5rem;text-align:center}.slots a[aria-current]{background:#234;color:#fff}.types a{display:block;padding:.8rem;border:1px solid #345;border-radius:6px;margin:.5rem 0;text-decoration:none}.your-time{color:#555}</style></head>
<body class="public">
<main class="narrow" data-shop-zone="${zone}" data-your-time="${t.t("booking.page.yourTime", { time: "{time}" })}" data-lang="${lang}">
<h1>${t.t("booking.page.title", { shop: shop.name })}</h1>
${body}
</main>
<script src="/assets/booking-zone.js" defer></script>
</body></html>`.value;
}

function link(vendorId: string, lang: string, q: Query): string {
  const params = new URLSearchParams({ lang, ...Object.fromEntries(Object.entries(q).filter(([, v]) => v)) });
  return `/book/${vendorId}?${params}`;
}

function typeList(t: Translator, shop: Shop, vendorId: string, lang: string): SafeHtml {
  const online = TYPES.filter((type) => shop.settings.types[type].online);
  if (online.length === 0) return html`<p>${t.t("booking.page.nothingOnline")}</p>`;
  return html`<h2>${t.t("booking.page.chooseType")}</h2>
<nav class="types">${online.map(
    (type) =>
      html`<a href="${link(vendorId, lang, { type })}"><strong>${t.t(`booking.type.${type}`)}</strong> · ${t.t("booking.page.minutes", { minutes: shop.settings.types[type].duration })}</a>`,
  )}</nav>`;
}

async function daysAndTimes(
  deps: DashboardDeps,
  t: Translator,
  shop: Shop,
  vendorId: string,
  lang: string,
  type: AppointmentTypeName,
  q: Query,
  notice?: SafeHtml,
): Promise<SafeHtml> {
  const zone = shop.settings.timeZone;
  const today = localDate(deps.ctx.now(), zone);
  const from = q.from && parseDate(q.from) && q.from >= today ? q.from : today;
  const free = await readAvailability(
    deps.ctx,
    vendorId,
    { type, from, to: addDays(from, WINDOW_DAYS - 1) },
    { onlineOnly: true },
  );
  const byDay = new Map<string, string[]>();
  for (const slot of free.slots) {
    const day = localDate(new Date(slot), zone);
    byDay.set(day, [...(byDay.get(day) ?? []), slot]);
  }
  const day = q.day && byDay.has(q.day) ? q.day : undefined;
  const earlier = from > today ? addDays(from, -WINDOW_DAYS) : undefined;
  const nav = html`<p>${earlier ? html`<a href="${link(vendorId, lang, { type, from: earlier < today ? today : earlier })}">← ${t.t("booking.page.earlier")}</a> · ` : ""}<a href="${link(vendorId, lang, { type, from: addDays(from, WINDOW_DAYS) })}">${t.t("booking.page.later")} →</a></p>`;
  const dayLabel = (d: string) =>
    t.date(new Date(`${d}T12:00:00Z`), "UTC", { weekday: "short", day: "numeric", month: "short" });
  return html`<p><a href="${link(vendorId, lang, {})}">← ${t.t(`booking.type.${type}`)} · ${t.t("booking.page.minutes", { minutes: free.duration })}</a></p>
${notice ?? ""}
<h2>${t.t("booking.page.chooseDay")}</h2>
<p class="muted">${t.t("booking.page.timesIn", { zone })}</p>
${
  byDay.size === 0
    ? html`<p>${t.t("booking.page.noSlots")}</p>`
    : html`<ul class="slots" aria-label="${t.t("booking.page.chooseDay")}">${[...byDay.keys()].map(
        (d) =>
          html`<li><a href="${link(vendorId, lang, { type, from, day: d })}#times"${d === day ? html` aria-current="date"` : ""}>${dayLabel(d)}</a></li>`,
      )}</ul>`
}
${
  day
    ? html`<h2 id="times">${t.t("booking.page.chooseTime")}: ${dayLabel(day)}</h2>
<ul class="slots">${(byDay.get(day) ?? []).map(
        (slot) =>
          html`<li><a href="${link(vendorId, lang, { type, from, day, slot })}" data-at="${slot}">${t.time(new Date(slot), zone)}</a></li>`,
      )}</ul>`
    : ""
}
${nav}`;
}

function detailsForm(
  t: Translator,
  vendorId: string,
  lang: string,
  type: AppointmentTypeName,
  slot: string,
  zone: string,
  csrf: string,
  values: Record<string, string> = {},
  problem?: string,
): SafeHtml {
  const when = t.dateTime(new Date(slot), zone);
  const v = (name: string) => values[name] ?? "";
  return html`<p><a href="${link(vendorId, lang, { type, day: localDate(new Date(slot), zone) })}">← ${t.t("booking.page.change")}</a></p>
<h2>${t.t("booking.page.details")}</h2>
<p><strong data-at="${slot}">${t.t("booking.page.chosen", { type: t.t(`booking.type.${type}`), when })}</strong></p>
${problem ? html`<p class="error" role="alert">${problem}</p>` : ""}
<form method="post" action="/book/${vendorId}?lang=${lang}" accept-charset="utf-8" class="edit-form">
${csrfField(csrf)}
<input type="hidden" name="type" value="${type}"><input type="hidden" name="start" value="${slot}"><input type="hidden" name="language" value="${lang}">
<label for="name">${t.t("common.name")}</label><input id="name" name="name" required maxlength="200" autocomplete="name" value="${v("name")}">
<label for="email">${t.t("common.email")}</label><input id="email" name="email" type="email" required maxlength="254" autocomplete="email" value="${v("email")}">
<label for="phone">${t.t("common.phone")} (${t.t("common.optional")})</label><input id="phone" name="phone" type="tel" maxlength="40" autocomplete="tel" value="${v("phone")}">
<label for="weddingDate">${t.t("common.weddingDate")} (${t.t("common.optional")})</label><input id="weddingDate" name="weddingDate" type="date" value="${v("weddingDate")}">
<label for="notes">${t.t("common.notes")} (${t.t("common.optional")})</label><textarea id="notes" name="notes" maxlength="2000" rows="4">${v("notes")}</textarea>
<div class="actions"><button type="submit" class="primary">${t.t("booking.page.submit")}</button></div>
</form>`;
}

export async function bookingPages(app: FastifyInstance, deps: DashboardDeps): Promise<void> {
  const { ctx } = deps;
  registerAddressRateLimit(app, app.rateLimitStore, { policy: "booking-page", maxPerMinute: 120 });
  // An unknown shop: the error page in the visitor's language (Accept-Language).
  const notFound = (reply: FastifyReply) => {
    const reader = readerOf(reply.request);
    return sendPage(
      reply,
      404,
      errorPage(reader.t.t("errors.notFound.title"), reader.t.t("errors.notFound.text"), reader),
    );
  };

  app.get<{ Params: { vendorId: string }; Querystring: Query }>(
    "/book/:vendorId",
    { schema: { hide: true } },
    async (request, reply) => {
      const { vendorId } = request.params;
      const shop = await bookingPageShop(ctx, vendorId);
      if (!shop) return notFound(reply);
      const q = request.query;
      const lang = languageOf(request, shop, q.lang);
      const t = translator(lang);
      allowOwnScripts(reply);
      const type = TYPES.find((x) => x === q.type && shop.settings.types[x].online);
      const online = TYPES.filter((x) => shop.settings.types[x].online);
      const chosen = type ?? (online.length === 1 ? online[0] : undefined);
      if (!chosen) return sendPage(reply, 200, frame(t, shop, lang, typeList(t, shop, vendorId, lang)));
      const slot = q.slot ? parseDateTime(q.slot) : undefined;
      if (slot) {
        const body = detailsForm(
          t,
          vendorId,
          lang,
          chosen,
          slot.toISOString(),
          shop.settings.timeZone,
          csrfToken(reply),
        );
        return sendPage(reply, 200, frame(t, shop, lang, body));
      }
      return sendPage(
        reply,
        200,
        frame(t, shop, lang, await daysAndTimes(deps, t, shop, vendorId, lang, chosen, q)),
      );
    },
  );

  app.post<{ Params: { vendorId: string }; Querystring: Query }>(
    "/book/:vendorId",
    { schema: { hide: true }, preHandler: app.csrfProtection },
    async (request, reply) => {
      const { vendorId } = request.params;
      const shop = await bookingPageShop(ctx, vendorId);
      if (!shop) return notFound(reply);
      const form = formOf(request);
      const lang = languageOf(request, shop, field(form, "language") || request.query.lang);
      const t = translator(lang);
      allowOwnScripts(reply);
      const type = TYPES.find((x) => x === field(form, "type")) ?? "CONSULTATION";
      const start = field(form, "start");
      const values = Object.fromEntries(
        ["name", "email", "phone", "weddingDate", "notes"].map((n) => [n, field(form, n)]),
      );
      try {
        const input = {
          type,
          start,
          name: (values.name ?? "").trim(),
          email: (values.email ?? "").trim(),
          phone: optional(values.phone ?? ""),
          weddingDate: optional(values.weddingDate ?? ""),
          notes: optional(values.notes ?? ""),
          language: lang,
        };
        // The API's own body schema, so the page refuses exactly what the API refuses.
        const errors = formErrors(BookingBody, input);
        if (errors.length > 0) throw new AppError("validation_failed", "booking form", { errors });
        const booked = await bookSlot(ctx, vendorId, input);
        const when = t.dateTime(new Date(booked.start), shop.settings.timeZone);
        const done =
          booked.status === "CONFIRMED" ? "booking.page.thanksConfirmed" : "booking.page.thanksProposed";
        return sendPage(
          reply,
          201,
          frame(
            t,
            shop,
            lang,
            html`<h2>${t.t("booking.page.thanks")}</h2><p role="status" data-at="${booked.start}">${t.t(done, { when })}</p>`,
          ),
        );
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        if (error.code === "slot_taken") {
          const notice = html`<p class="error" role="alert">${t.t("booking.page.taken")}</p>`;
          const day = parseDateTime(start)
            ? localDate(parseDateTime(start) as Date, shop.settings.timeZone)
            : undefined;
          return sendPage(
            reply,
            409,
            frame(t, shop, lang, await daysAndTimes(deps, t, shop, vendorId, lang, type, { day }, notice)),
          );
        }
        if (error.code === "validation_failed" && parseDateTime(start)) {
          const labels: Record<string, string> = {
            name: t.t("common.name"),
            email: t.t("common.email"),
            phone: t.t("common.phone"),
            weddingDate: t.t("common.weddingDate"),
            notes: t.t("common.notes"),
          };
          const named = (error.extra.errors ?? []).map((e) => labels[e.field] ?? e.field);
          const problem = t.t("booking.page.invalid", { fields: t.list(named.length ? named : ["?"]) });
          const body = detailsForm(
            t,
            vendorId,
            lang,
            type,
            start,
            shop.settings.timeZone,
            csrfToken(reply),
            values,
            problem,
          );
          return sendPage(reply, 400, frame(t, shop, lang, body));
        }
        throw error;
      }
    },
  );
}
