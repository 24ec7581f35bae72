// A booking made on the shop's booking page or through the public API (CONTRACT 12, Public
// booking): to the bride, in her language, what she booked and whether it waits for the shop; to
// the shop, in its language, who booked what. Times in the shop's zone. Calendar files for
// appointment mail are added where every appointment mail gets them.
import { translator } from "../../i18n/translator.ts";
import { html } from "../../lib/html.ts";
import { defineMail, oneLine, type RenderContext } from "../template.ts";
import { unsubscribeUrl } from "./customer.ts";
import { mailFrame, mailLink, paragraphs } from "./frame.ts";

export interface BookingMailData {
  shopName: string;
  /** The shop's verified contact e-mail, the Reply-To of the bride's mail; null for none. */
  replyTo: string | null;
  timeZone: string;
  /** The shop's address, lines separated by newlines; null when it set none. */
  address: string | null;
  /** The reader's language (the bride's for her mail, the shop's for its own). */
  language: string;
  appointmentId: string;
  appointmentType: string;
  status: "PROPOSED" | "CONFIRMED";
  /** ISO 8601 UTC instant. */
  date: string;
  duration: number;
  customerName: string;
  customerEmail: string;
  customerPhone: string | null;
  weddingDate: string | null;
  notes: string | null;
}

function when(data: BookingMailData) {
  const t = translator(data.language);
  const at = new Date(data.date);
  return { t, when: `${t.dateTime(at, data.timeZone)} (${data.timeZone})` };
}

export const bookingReceivedMail = defineMail<BookingMailData>({
  audience: "customer",
  budgeted: true,
  render(data, ctx: RenderContext) {
    const { t, when: at } = when(data);
    const values = { shop: data.shopName, when: at, type: t.t(`booking.type.${data.appointmentType}`) };
    const subject = t.t(
      data.status === "CONFIRMED" ? "booking.mail.subjectConfirmed" : "booking.mail.subjectProposed",
      values,
    );
    const news = t.t(
      data.status === "CONFIRMED" ? "booking.mail.confirmed" : "booking.mail.proposed",
      values,
    );
    const duration = t.t("booking.mail.duration", { minutes: data.duration });
    const url = unsubscribeUrl(ctx);
    const footer = t.t("booking.mail.footer", { shop: data.shopName });
    return {
      subject: oneLine(subject),
      fromName: data.shopName,
      replyTo: data.replyTo,
      unsubscribable: true,
      text: `${t.t("booking.mail.hello", { name: data.customerName })}

${news}
${duration}
${data.address ? `\n${t.t("booking.mail.address")}\n${data.address}\n` : ""}
--
${footer} ${t.t("booking.mail.unsubscribe")}: ${url}
`,
      html: mailFrame({
        heading: subject,
        body: html`<p>${t.t("booking.mail.hello", { name: data.customerName })}</p>
<p>${news}</p>
<p>${duration}</p>
${data.address ? html`<p><strong>${t.t("booking.mail.address")}</strong></p>${paragraphs(data.address)}` : ""}`,
        footer: html`${footer} <a href="${url}">${t.t("booking.mail.unsubscribe")}</a>`,
      }),
    };
  },
});

export const bookingReceivedShopMail = defineMail<BookingMailData>({
  audience: "shop",
  render(data, ctx: RenderContext) {
    const { t, when: at } = when(data);
    const values = { name: data.customerName, when: at, type: t.t(`booking.type.${data.appointmentType}`) };
    const link = `${ctx.publicUrl}/dashboard/appointments/${encodeURIComponent(data.appointmentId)}`;
    const lines = [
      `${t.t("common.email")}: ${data.customerEmail}`,
      ...(data.customerPhone ? [`${t.t("common.phone")}: ${data.customerPhone}`] : []),
      ...(data.weddingDate ? [`${t.t("common.weddingDate")}: ${data.weddingDate}`] : []),
    ];
    const status = t.t(
      data.status === "CONFIRMED" ? "booking.shopMail.confirmed" : "booking.shopMail.proposed",
    );
    const subject = t.t("booking.shopMail.subject", values);
    return {
      subject: oneLine(subject),
      replyTo: data.customerEmail,
      text: `${t.t("booking.shopMail.intro", values)}
${status}

${lines.join("\n")}
${data.notes ? `\n${data.notes}\n` : ""}
${link}
`,
      html: mailFrame({
        heading: subject,
        body: html`<p>${t.t("booking.shopMail.intro", values)}</p>
<p>${status}</p>
<ul>${lines.map((l) => html`<li>${l}</li>`)}</ul>
${data.notes ? paragraphs(data.notes) : ""}
${mailLink(link, t.t("booking.shopMail.open"))}`,
      }),
    };
  },
});
