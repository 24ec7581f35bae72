// Mail to a shop's customers, sent only when the shop turned customer mail on and the customer
// has not unsubscribed (both checked in the statement that writes the row). Each carries the
// shop's name as the sender's, its contact e-mail as Reply-To only when that address is one the
// shop verified (`replyTo`, decided where the row is written: CONTRACT 12; otherwise no Reply-To,
// so nobody can have replies to a shop's mail go to an address of their choosing), and one-click
// unsubscribe.
// Appointment mail, with its calendar invitation, is in appointment.ts.
import { html, type SafeHtml } from "../../lib/html.ts";
import { defineMail, oneLine, type RenderContext } from "../template.ts";
import { mailFrame, mailLink, paragraphs } from "./frame.ts";

interface FromShop {
  shopName: string;
  /** The shop's contact e-mail, null when it set none. */
  contactEmail: string | null;
  /**
   * The contact e-mail when it is an address the shop verified, else null: the only Reply-To
   * (and calendar organizer). Absent in rows written before the rule: no Reply-To.
   */
  replyTo?: string | null;
  timeZone: string;
  customerName: string;
}

const words = (code: string) => {
  const lower = code.toLowerCase().replaceAll("_", " ");
  return lower.charAt(0).toUpperCase() + lower.slice(1);
};

function unsubscribeFooter(data: FromShop, ctx: RenderContext): { text: string; html: SafeHtml } {
  const url = unsubscribeUrl(ctx);
  return {
    text: `\n--\nYou receive this because you are a customer of ${data.shopName}. To receive no more e-mail from them: ${url}\n`,
    html: html`You receive this because you are a customer of ${data.shopName}. <a href="${url}">Unsubscribe</a> from their e-mail.`,
  };
}

/** The one-click unsubscribe URL (RFC 8058) of the mail whose secret is the token. */
export function unsubscribeUrl(ctx: RenderContext): string {
  // An appointment mail's secret also carries its page token after a space (appointment.ts).
  return `${ctx.publicUrl}/unsubscribe/${encodeURIComponent((ctx.secret ?? "").split(" ")[0] ?? "")}`;
}

export interface OrderStatusMailData extends FromShop {
  /** The shop's order number; absent in mail queued before orders had one. */
  number?: number;
  orderType: string;
  model: string | null;
  status: string;
  message: string;
  trackingToken: string;
}

export const orderStatusMail = defineMail<OrderStatusMailData>({
  audience: "customer",
  budgeted: true,
  render(data, ctx) {
    const tracking = `${ctx.publicUrl}/track/${encodeURIComponent(data.trackingToken)}`;
    const item = data.model ? `${words(data.orderType)} ${data.model}` : words(data.orderType);
    const what = typeof data.number === "number" ? `Order #${data.number} (${item})` : item;
    const footer = unsubscribeFooter(data, ctx);
    return {
      subject: oneLine(`${what}: ${words(data.status)}`),
      fromName: data.shopName,
      replyTo: data.replyTo ?? null,
      unsubscribable: true,
      text: `Hello ${data.customerName},

${data.shopName} has news about your order (${what}), now ${words(data.status)}:

${data.message}

Follow your order: ${tracking}
${footer.text}`,
      html: mailFrame({
        heading: `${what}: ${words(data.status)}`,
        body: html`<p>Hello ${data.customerName},</p>
<p>${data.shopName} has news about your order (${what}), now <strong>${words(data.status)}</strong>:</p>
<blockquote style="margin:1rem 0;padding-left:1rem;border-left:3px solid #ccc">${paragraphs(data.message)}</blockquote>
${mailLink(tracking, "Follow your order")}`,
        footer: footer.html,
      }),
    };
  },
});
