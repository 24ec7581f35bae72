// Today: the landing page after sign-in for owners and staff, phone first. What the
// shop has to do today, each line one tap from its action: the order, the appointment, the
// inquiry, booking the fitting, the failing webhook. One statement answers it all
// (src/modules/today/today.repository.ts); every text goes through src/i18n (`today` section).
import type { FastifyInstance } from "fastify";
import { type Translator, translator } from "../../i18n/translator.ts";
import { getToday, type TodayOrderLine, type TodayView } from "../../modules/today/today.service.ts";
import { sendPage } from "../../web/browser-scope.ts";
import { html, type SafeHtml } from "../../web/html.ts";
import type { DashboardDeps } from "../deps.ts";
import { dashboardPage } from "../layout.ts";
import { memberOf, pageContext, vendorIdOf } from "../page-context.ts";
import { memberMay } from "../permission.ts";

/** A calendar day (YYYY-MM-DD) in the reader's language; noon UTC, so no zone moves it. */
export function calendarDay(t: Translator, day: string): string {
  return t.date(new Date(`${day}T12:00:00Z`), "UTC", { dateStyle: "medium" });
}

function orderLabel(t: Translator, o: TodayOrderLine): SafeHtml {
  const what = [t.t(`today.type.${o.type}`), o.model].filter(Boolean).join(" ");
  return html`<strong>#${o.number}</strong> ${o.customerName ?? t.t("today.unknownCustomer")} <span class="muted">· ${what}</span>`;
}

function orderItem(t: Translator, o: TodayOrderLine, detail: string): SafeHtml {
  return html`<li><a href="/dashboard/orders/${o.id}">${orderLabel(t, o)}<br><span class="muted">${detail}</span></a></li>`;
}

function section<T>(
  t: Translator,
  key: string,
  part: { items: T[]; count: number },
  line: (item: T) => SafeHtml,
  more?: string,
): SafeHtml {
  if (part.count === 0) return html``;
  const rest = part.count - part.items.length;
  return html`<section class="today card" data-section="${key}">
<h2>${t.t(`today.${key}`)} <span class="badge">${t.number(part.count)}</span></h2>
<ul class="today-lines">${part.items.map(line)}</ul>
${rest > 0 ? html`<p class="muted">${more ? html`<a href="${more}">${t.t("today.more", { count: rest })}</a>` : t.t("today.more", { count: rest })}</p>` : ""}
</section>`;
}

export function todayBody(t: Translator, view: TodayView): SafeHtml {
  const status = (s: string) => (t.has(`today.status.${s}`) ? t.t(`today.status.${s}`) : s);
  const firstUpcoming = view.appointments.items.find((a) => !a.past)?.id;
  const sections = [
    section(t, "appointments", view.appointments, (a) => {
      const next = a.id === firstUpcoming ? html` <span class="badge">${t.t("today.next")}</span>` : "";
      return html`<li${a.past ? html` class="past"` : ""}><a href="/dashboard/appointments/${a.id}"><strong>${t.time(new Date(a.date), view.timeZone)}</strong> ${a.customerName}${next}<br><span class="muted">${t.t(`today.appointmentType.${a.type}`)}</span></a></li>`;
    }),
    section(t, "atRisk", view.atRisk, (o) =>
      orderItem(
        t,
        o,
        t.t("today.riskLine", {
          date: calendarDay(t, o.weddingDate ?? view.today),
          status: status(o.rule?.status ?? ""),
          days: o.rule?.daysBefore ?? 0,
        }),
      ),
    ),
    section(
      t,
      "overdue",
      view.overdue,
      (o) => orderItem(t, o, t.t("today.overdueDays", { days: o.daysOverdue ?? 0 })),
      "/dashboard/orders?status=PICKED_UP",
    ),
    section(t, "pickups", view.pickups, (o) =>
      orderItem(
        t,
        o,
        o.pickupDate ? t.t("today.pickupOn", { date: calendarDay(t, o.pickupDate) }) : status(o.status),
      ),
    ),
    section(t, "dueBack", view.dueBack, (o) =>
      orderItem(t, o, t.t("today.dueBackOn", { date: calendarDay(t, o.dueBackDate ?? view.today) })),
    ),
    section(t, "fittings", view.fittings, (o) =>
      o.customerId
        ? html`<li><a href="/dashboard/appointments/new?customerId=${o.customerId}">${orderLabel(t, o)}<br><span class="muted">${t.t("today.bookFitting")}</span></a></li>`
        : orderItem(t, o, status(o.status)),
    ),
    section(
      t,
      "inquiries",
      view.inquiries,
      (q) =>
        html`<li><a href="/dashboard/inquiries/${q.id}"><strong>${q.name}</strong><br><span class="muted">${q.message.split("\n", 1)[0]}</span></a></li>`,
      "/dashboard/inquiries",
    ),
    section(
      t,
      "integrations",
      view.integrations,
      (w) =>
        html`<li><a href="/dashboard/integrations/webhooks/${w.id}"><strong>${w.url}</strong><br><span class="muted">${
          w.status === "DISABLED"
            ? t.t("today.webhookDisabled")
            : t.t("today.webhookFailing", {
                date: w.failingSince
                  ? t.dateTime(new Date(w.failingSince), view.timeZone, {
                      dateStyle: "medium",
                      timeStyle: "short",
                    })
                  : "",
              })
        }</span></a></li>`,
      "/dashboard/integrations/webhooks",
    ),
  ];
  const any = sections.some((s) => s.value.length > 0);
  return html`<p class="muted">${t.date(new Date(`${view.today}T12:00:00Z`), "UTC", { dateStyle: "full" })}</p>
${any ? sections : html`<div class="empty"><p>${t.t("today.nothing")}</p></div>`}`;
}

export async function todayPage(app: FastifyInstance, { ctx }: DashboardDeps): Promise<void> {
  app.get("/dashboard/today", { schema: { hide: true } }, async (request, reply) => {
    const view = await getToday(ctx, {
      vendorId: vendorIdOf(request),
      memberId: memberOf(request).id,
      owner: memberMay(request, "integrations"),
    });
    const page = { ...(await pageContext(ctx, request, reply)), language: view.language };
    const t = translator(view.language);
    return sendPage(reply, 200, dashboardPage(page, "today", t.t("today.title"), todayBody(t, view)));
  });
}
