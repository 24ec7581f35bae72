// The rental reminder (CONTRACT 12, Dates of an order): the day before a RENTAL is due back, in
// the customer's language (customers.language, else the shop's), through the catalogues' `rentals`
// section. Written once per order by the day sweep (src/modules/orders/order-alerts.service.ts).
import { translator } from "../../i18n/translator.ts";
import { html } from "../../lib/html.ts";
import { defineMail, oneLine } from "../template.ts";
import { mailFrame, mailLink } from "./frame.ts";

export interface RentalDueBackMailData {
  shopName: string;
  contactEmail: string | null;
  replyTo?: string | null;
  timeZone: string;
  customerName: string;
  number: number;
  model: string | null;
  /** YYYY-MM-DD, a day in the shop's zone. */
  dueBackDate: string;
  trackingToken: string;
  language: string;
}

export const rentalDueBackMail = defineMail<RentalDueBackMailData>({
  audience: "customer",
  budgeted: true,
  render(data, ctx) {
    const t = translator(data.language);
    // A calendar day: formatted at noon UTC in UTC, so no zone moves it to another day.
    const date = t.date(new Date(`${data.dueBackDate}T12:00:00Z`), "UTC", { dateStyle: "full" });
    const tracking = `${ctx.publicUrl}/track/${encodeURIComponent(data.trackingToken)}`;
    const unsubscribe = `${ctx.publicUrl}/unsubscribe/${encodeURIComponent(ctx.secret ?? "")}`;
    const values = { shop: data.shopName, number: data.number, model: data.model ?? "", date };
    const subject = t.t("rentals.reminder.subject", values);
    const hello = t.t("rentals.reminder.hello", { name: data.customerName });
    const body = t.t("rentals.reminder.body", values);
    const follow = t.t("rentals.reminder.follow");
    const footer = t.t("rentals.reminder.footer", { shop: data.shopName });
    const unsubscribeLabel = t.t("rentals.reminder.unsubscribe");
    return {
      subject: oneLine(subject),
      fromName: data.shopName,
      replyTo: data.replyTo ?? null,
      unsubscribable: true,
      text: `${hello}\n\n${body}\n\n${follow}: ${tracking}\n\n--\n${footer} ${unsubscribeLabel}: ${unsubscribe}\n`,
      html: mailFrame({
        heading: subject,
        body: html`<p>${hello}</p>
<p>${body}</p>
${mailLink(tracking, follow)}`,
        footer: html`${footer} <a href="${unsubscribe}">${unsubscribeLabel}</a>`,
      }),
    };
  },
});
