// Mail to a shop's customers, sent only when the shop turned customer mail on and the customer
// has not unsubscribed (both checked in the statement that writes the row). Each carries the
// shop's name as the sender's, its contact e-mail as Reply-To only when that address is one the
// shop verified (`replyTo`, decided where the row is written: CONTRACT 12; otherwise no Reply-To,
// so nobody can have replies to a shop's mail go to an address of their choosing), and one-click
// unsubscribe.
// Times are written in the shop's time zone; the invitation itself speaks UTC.
import { createEvent, type EventAttributes } from "ics";
import { html, type SafeHtml } from "../../lib/html.ts";
import { formatInZone } from "../../lib/time-zone.ts";
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
  return `${ctx.publicUrl}/unsubscribe/${encodeURIComponent(ctx.secret ?? "")}`;
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

export interface AppointmentMailData extends FromShop {
  customerEmail: string;
  appointmentId: string;
  appointmentType: string;
  /** ISO 8601 UTC instant. */
  date: string;
  /** Minutes. */
  duration: number;
  /** When the change was made (ISO): the invitation's DTSTAMP and SEQUENCE come from it. */
  changedAt: string;
}

/** The invitation's UID: the same for the confirmation and the cancellation of one appointment. */
export function appointmentUid(appointmentId: string, publicUrl: string): string {
  return `appointment-${appointmentId}@${new URL(publicUrl).hostname}`;
}

/**
 * A name as an iCalendar parameter value (CN). The ics library quotes it but escapes a DQUOTE with
 * a backslash, which RFC 5545 3.2 does not know: to a calendar the quote ends the value, and the
 * rest of the name became parameters of its own (a customer named `Eve";RSVP=TRUE:mailto:…`). So
 * the name is written as RFC 6868 says (`^` as `^^`, DQUOTE as `^'`), one line, before the library
 * quotes it; `;`, `:` and `,` are then plain text inside the quotes.
 */
export function calendarParamText(value: string): string {
  return oneLine(value).replaceAll("^", "^^").replaceAll('"', "^'");
}

function invitation(data: AppointmentMailData, ctx: RenderContext, method: "REQUEST" | "CANCEL"): string {
  const changedAt = new Date(data.changedAt).getTime();
  const attributes = {
    uid: appointmentUid(data.appointmentId, ctx.publicUrl),
    method,
    productId: "vendor-api",
    // Later changes carry a higher SEQUENCE (RFC 5546 2.1.4): twice the seconds since 2024 (fits
    // 32 bits until 2058), plus one for a cancellation, so one made in the same second still
    // supersedes the confirmation.
    sequence:
      Math.max(0, Math.floor((changedAt - Date.UTC(2024, 0, 1)) / 1000)) * 2 + (method === "CANCEL" ? 1 : 0),
    timestamp: changedAt,
    start: new Date(data.date).getTime(),
    startInputType: "utc",
    startOutputType: "utc",
    duration: { minutes: data.duration },
    title: `${words(data.appointmentType)} at ${oneLine(data.shopName)}`,
    status: method === "CANCEL" ? "CANCELLED" : "CONFIRMED",
    organizer: { name: calendarParamText(data.shopName), email: data.replyTo ?? ctx.fromAddress },
    attendees: [
      {
        name: calendarParamText(data.customerName),
        email: data.customerEmail,
        rsvp: false,
        role: "REQ-PARTICIPANT",
      },
    ],
  } as EventAttributes & { timestamp: number };
  const { error, value } = createEvent(attributes);
  if (error || !value) throw error ?? new Error("the invitation could not be written");
  return value;
}

function appointmentMail(method: "REQUEST" | "CANCEL") {
  return defineMail<AppointmentMailData>({
    audience: "customer",
    budgeted: true,
    render(data, ctx) {
      const when = formatInZone(new Date(data.date), data.timeZone);
      const what = words(data.appointmentType);
      const footer = unsubscribeFooter(data, ctx);
      const news =
        method === "REQUEST"
          ? `your ${what.toLowerCase()} appointment is confirmed`
          : `your ${what.toLowerCase()} appointment is cancelled`;
      return {
        subject: oneLine(`${what} ${method === "REQUEST" ? "confirmed" : "cancelled"}: ${when}`),
        fromName: data.shopName,
        replyTo: data.replyTo ?? null,
        unsubscribable: true,
        calendar: { method, content: invitation(data, ctx, method) },
        text: `Hello ${data.customerName},

${data.shopName}: ${news}.

When: ${when} (${data.timeZone}), ${data.duration} minutes
${method === "REQUEST" ? "The attached invitation adds it to your calendar." : "The attached update removes it from your calendar."}
${footer.text}`,
        html: mailFrame({
          heading: `${what} ${method === "REQUEST" ? "confirmed" : "cancelled"}`,
          body: html`<p>Hello ${data.customerName},</p>
<p>${data.shopName}: ${news}.</p>
<p><strong>When:</strong> ${when} (${data.timeZone}), ${data.duration} minutes</p>`,
          footer: footer.html,
        }),
      };
    },
  });
}

export const appointmentConfirmedMail = appointmentMail("REQUEST");
export const appointmentCancelledMail = appointmentMail("CANCEL");
