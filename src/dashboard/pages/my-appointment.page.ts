// The customer's own page for an appointment, /my/appointments/{token} (CONTRACT 12): public (no
// session; the link's token is the credential), in the customer's language, phone-first and
// without script. It shows the appointment and, until the shop's cut-off, a form to move it to
// another free start (a week of the shop's calendar at a time, `?from=YYYY-MM-DD`) and one to
// cancel it; both plain POST forms with a CSRF token, like every form here. The rules are the
// service's (modules/appointments/customer-link.service.ts). Not indexed, no Referer.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { AppError } from "../../errors.ts";
import { registerAddressRateLimit } from "../../http/rate-limit.ts";
import { negotiateLanguage } from "../../i18n/languages.ts";
import { type Translator, translator } from "../../i18n/translator.ts";
import { localDate, startOfDayAfter } from "../../lib/time-zone.ts";
import { appointmentTypeName, readerOf } from "../../mail/templates/appointment.ts";
import {
  cancelMyAppointment,
  freeStartsForMyAppointment,
  getMyAppointment,
  type MyAppointment,
  moveMyAppointment,
} from "../../modules/appointments/customer-link.service.ts";
import { csrfField, csrfToken, sendPage } from "../../web/browser-scope.ts";
import { field, formOf, queryParam } from "../../web/form.ts";
import { html, type SafeHtml } from "../../web/html.ts";
import { publicPage } from "../../web/public-page.ts";
import type { DashboardDeps } from "../deps.ts";

/** Per client address: the token's 256 bits make guessing hopeless; this keeps scrapers off the database. */
export const MY_APPOINTMENT_REQUESTS_PER_MINUTE = 60;
/** Days of free starts shown at once. */
const DAYS_SHOWN = 7;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

type Token = { Params: { token: string } };

export async function myAppointmentPage(app: FastifyInstance, { ctx }: DashboardDeps): Promise<void> {
  registerAddressRateLimit(app, app.rateLimitStore, {
    policy: "my-appointment",
    maxPerMinute: MY_APPOINTMENT_REQUESTS_PER_MINUTE,
  });
  app.addHook("onSend", async (_request, reply) => {
    reply.header("x-robots-tag", "noindex, nofollow");
  });
  app.setErrorHandler((error, request, reply) => {
    const t = visitorReader(request);
    if (error instanceof AppError && error.status === 404) {
      return sendPage(
        reply,
        404,
        frame(
          t,
          t.t("appointments.page.goneTitle"),
          html`<h1>${t.t("appointments.page.goneTitle")}</h1><p id="gone">${t.t("appointments.page.goneText")}</p>`,
        ),
      );
    }
    if (error instanceof AppError && error.code === "rate_limited") {
      return sendPage(
        reply,
        429,
        frame(t, t.t("appointments.page.title"), html`<p>${t.t("appointments.page.tooManyRequests")}</p>`),
      );
    }
    throw error;
  });

  const show = async (
    request: FastifyRequest<Token>,
    reply: FastifyReply,
    status: number,
    notice?: { kind: "success" | "error"; text: string },
  ) => {
    const token = request.params.token;
    const a = await getMyAppointment(ctx, token);
    const t = readerOf(a.language);
    const from = weekStart(queryParam(request.query, "from"), a, ctx.now());
    const to = localDate(startOfDayAfter(from.date, a.timeZone, DAYS_SHOWN - 1), a.timeZone);
    const starts = a.changeable ? await freeStartsForMyAppointment(ctx, token, from.day, to) : [];
    const body = appointmentBody(t, a, {
      token,
      csrf: csrfToken(reply),
      starts,
      from: from.day,
      earlier: from.earlier,
      later: localDate(startOfDayAfter(from.date, a.timeZone, DAYS_SHOWN), a.timeZone),
      notice,
    });
    return sendPage(reply, status, frame(t, t.t("appointments.page.title"), body));
  };

  app.get<Token>("/my/appointments/:token", { schema: { hide: true } }, async (request, reply) => {
    const moved = queryParam(request.query, "moved");
    if (moved !== undefined) {
      const a = await getMyAppointment(ctx, request.params.token);
      const t = readerOf(a.language);
      return show(request, reply, 200, {
        kind: "success",
        text: t.t("appointments.page.moved", { when: t.dateTime(a.date, a.timeZone) }),
      });
    }
    return show(request, reply, 200);
  });

  app.post<Token>(
    "/my/appointments/:token/move",
    { schema: { hide: true }, preHandler: app.csrfProtection },
    async (request, reply) => {
      const token = request.params.token;
      const start = field(formOf(request), "start");
      try {
        if (!start) throw new AppError("validation_failed", "start is required");
        await moveMyAppointment(ctx, token, start);
      } catch (error) {
        if (!(error instanceof AppError) || error.status === 404 || error.status >= 500) throw error;
        const a = await getMyAppointment(ctx, token);
        const t = readerOf(a.language);
        const text =
          error.code === "slot_taken"
            ? t.t("appointments.page.slotTaken")
            : error.code === "invalid_transition"
              ? t.t("appointments.page.tooLate", { hours: a.cutoffHours, shop: a.shopName })
              : t.t("appointments.page.chooseSlot");
        return show(request, reply, error.status, { kind: "error", text });
      }
      return reply
        .code(303)
        .header("location", `/my/appointments/${encodeURIComponent(token)}?moved=1`)
        .send();
    },
  );

  app.post<Token>(
    "/my/appointments/:token/cancel",
    { schema: { hide: true }, preHandler: app.csrfProtection },
    async (request, reply) => {
      const token = request.params.token;
      let a: MyAppointment;
      try {
        a = await cancelMyAppointment(ctx, token);
      } catch (error) {
        if (!(error instanceof AppError) || error.code !== "invalid_transition") throw error;
        const current = await getMyAppointment(ctx, token);
        const t = readerOf(current.language);
        return show(request, reply, 409, {
          kind: "error",
          text: t.t("appointments.page.tooLate", { hours: current.cutoffHours, shop: current.shopName }),
        });
      }
      // The link is dead now (the service's rule 1): this page is the last it shows.
      const t = readerOf(a.language);
      return sendPage(
        reply,
        200,
        frame(
          t,
          t.t("appointments.page.title"),
          html`<h1>${t.t("appointments.page.title")}</h1>
<p role="status" class="flash success" id="cancelled">${t.t("appointments.page.cancelled", { shop: a.shopName })}</p>
<p>${whatAndWhen(t, a)}</p>`,
        ),
      );
    },
  );
}

/** A visitor whose link leads nowhere gets the language their browser asks for. */
function visitorReader(request: FastifyRequest): Translator {
  const header = request.headers["accept-language"];
  return translator(negotiateLanguage(typeof header === "string" ? header : undefined, "en"));
}

function frame(t: Translator, title: string, body: SafeHtml): string {
  return publicPage(title, body, { indexable: false, lang: t.language });
}

/** The first day shown: `?from` when it is a day not before today, else today (the shop's calendar). */
function weekStart(
  asked: string | undefined,
  a: MyAppointment,
  now: Date,
): { day: string; date: Date; earlier: string | undefined } {
  const today = localDate(now, a.timeZone);
  const day = asked && DAY.test(asked) && asked > today ? asked : today;
  const date = new Date(`${day}T12:00:00Z`);
  const back = localDate(startOfDayAfter(date, a.timeZone, -DAYS_SHOWN), a.timeZone);
  return { day, date, earlier: day === today ? undefined : back < today ? today : back };
}

function whatAndWhen(t: Translator, a: MyAppointment): string {
  return `${t.t("appointments.calendarTitle", { type: appointmentTypeName(t, a.type), shop: a.shopName })} · ${t.dateTime(a.date, a.timeZone)}`;
}

function appointmentBody(
  t: Translator,
  a: MyAppointment,
  p: {
    token: string;
    csrf: string;
    starts: string[];
    from: string;
    earlier: string | undefined;
    later: string;
    notice: { kind: "success" | "error"; text: string } | undefined;
  },
): SafeHtml {
  const base = `/my/appointments/${encodeURIComponent(p.token)}`;
  const address = (a.shopAddress ?? "").split(/\r?\n/).filter((l) => l.trim());
  const status = `appointments.page.status.${a.status}`;
  const days = new Map<string, string[]>();
  for (const s of p.starts) {
    const day = localDate(new Date(s), a.timeZone);
    days.set(day, [...(days.get(day) ?? []), s]);
  }
  const notice = p.notice
    ? html`<p role="${p.notice.kind === "error" ? "alert" : "status"}" class="flash ${p.notice.kind}" id="notice">${p.notice.text}</p>`
    : "";
  const facts = html`<dl class="facts">
<dt>${t.t("appointments.mail.when")}</dt><dd id="when">${t.dateTime(a.date, a.timeZone)} <span class="muted">(${a.timeZone}, ${t.t("appointments.mail.duration", { minutes: a.duration })})</span></dd>
${address.length > 0 ? html`<dt>${t.t("appointments.page.address")}</dt><dd>${address.map((l, i) => (i === 0 ? l : html`<br>${l}`))}</dd>` : ""}
${t.has(status) ? html`<dt>${t.t("common.status")}</dt><dd id="status" data-status="${a.status}">${t.t(status)}</dd>` : ""}
</dl>`;
  if (!a.changeable) {
    const open = a.status === "PROPOSED" || a.status === "CONFIRMED";
    return html`<h1>${t.t("appointments.page.title")}</h1>
<p class="muted">${t.t("appointments.calendarTitle", { type: appointmentTypeName(t, a.type), shop: a.shopName })}</p>
${notice}${facts}
${open ? html`<p id="too-late">${t.t("appointments.page.tooLate", { hours: a.cutoffHours, shop: a.shopName })}</p>` : ""}`;
  }
  const slotList =
    days.size === 0
      ? html`<p id="no-slots">${t.t("appointments.page.noSlots")}</p>`
      : html`${[...days.values()].map(
          (
            starts,
          ) => html`<fieldset class="slots"><legend>${t.date(new Date(starts[0] as string), a.timeZone, { dateStyle: "full" })}</legend>
${starts.map(
  (s) =>
    html`<label class="slot"><input type="radio" name="start" value="${s}" required> ${t.time(new Date(s), a.timeZone)}</label> `,
)}</fieldset>`,
        )}
<div class="actions"><button type="submit" class="primary">${t.t("appointments.page.moveButton")}</button></div>`;
  return html`<h1>${t.t("appointments.page.title")}</h1>
<p class="muted">${t.t("appointments.calendarTitle", { type: appointmentTypeName(t, a.type), shop: a.shopName })}</p>
${notice}${facts}
<section id="move"><h2>${t.t("appointments.page.move")}</h2>
<p class="muted">${t.t("appointments.page.timesIn", { zone: a.timeZone })}</p>
<form method="post" action="${base}/move" class="edit-form">
${csrfField(p.csrf)}
${slotList}
</form>
<p class="pager">${p.earlier ? html`<a href="${base}?from=${p.earlier}">${t.t("appointments.page.earlierDays")}</a> ` : ""}<a href="${base}?from=${p.later}" id="later">${t.t("appointments.page.laterDays")}</a></p>
</section>
<section id="cancel"><h2>${t.t("appointments.page.cancel")}</h2>
<form method="post" action="${base}/cancel" class="edit-form">
${csrfField(p.csrf)}
<p>${t.t("appointments.page.cancelWarning", { shop: a.shopName })}</p>
<div class="actions"><button type="submit" class="danger">${t.t("appointments.page.cancelButton")}</button></div>
</form></section>`;
}
