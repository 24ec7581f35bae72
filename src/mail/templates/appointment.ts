// Appointment mail (CONTRACT 12, "Telling the customer"): to the customer when an appointment is
// confirmed, moved, cancelled, and before it (the reminder), each in the customer's language with
// its calendar file; and to the shop when the customer changed it through her own link.
// Rules of the calendar file:
// - One UID for the appointment's life (`appointmentUid`).
// - SEQUENCE is the appointment's counter as of the change (appointments.sequence, raised in the
//   change's transaction); rows written before the counter fall back to the time of the change.
// - METHOD:REQUEST for a new or moved time (and the reminder, at the sequence it was scheduled
//   for), METHOD:CANCEL with the time the customer was last told when cancelled.
// - LOCATION is the shop's address (vendors.address), its lines joined with ", ".
// The customer's row keeps two tokens in its secret (enqueue.ts `appointmentLinkSecret`): the
// one-click unsubscribe token, and the token of her own page `/my/appointments/<token>`; both are
// cleared once the mail is sent.
// The mail is framed as every customer mail (templates/customer.ts: greeting, the shop's brand and
// signature, the unsubscribe footer); a confirmation's and a cancellation's subject and opening are
// the shop's own wording when it has one (src/mail/wording.ts).
import { createRequire } from "node:module";
import type { EventAttributes } from "ics";
import { isLanguage } from "../../i18n/languages.ts";
import { type Translator, translator } from "../../i18n/translator.ts";
import { html } from "../../lib/html.ts";
import { defineMail, oneLine, type RenderContext } from "../template.ts";
import type { WordedKind } from "../wording.ts";
import { accentOf, button, type FromShop, frame, worded } from "./customer.ts";
import { mailFrame, mailLink } from "./frame.ts";

export interface AppointmentMailData extends FromShop {
  customerEmail: string;
  /** The shop's address, lines separated by newlines; null when it set none (also `brand.address`). */
  address?: string | null;
  appointmentId: string;
  appointmentType: string;
  /** ISO 8601 UTC instant: the time the mail is about (for a cancellation, the one last told). */
  date: string;
  /** Minutes. */
  duration: number;
  /** When the change was made (ISO): the invitation's DTSTAMP. */
  changedAt: string;
  /** The appointment's sequence as of the change (absent in rows written before the counter). */
  sequence?: number;
  /** A move: the time the customer was told before (ISO). */
  previousDate?: string | null;
}

/** The invitation's UID: the same for every mail about one appointment. */
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

/** The row's secret: the unsubscribe token, then (appointment mail) the customer's page token. */
export function secretParts(ctx: RenderContext): { unsubscribe: string; page: string | undefined } {
  const [unsubscribe = "", page] = (ctx.secret ?? "").split(" ");
  return { unsubscribe, page };
}

export function myAppointmentUrl(ctx: RenderContext): string | undefined {
  const { page } = secretParts(ctx);
  return page ? `${ctx.publicUrl}/my/appointments/${encodeURIComponent(page)}` : undefined;
}

export function appointmentTypeName(t: Translator, type: string): string {
  const key = `appointments.types.${type}`;
  return t.has(key) ? t.t(key) : type;
}

export function readerOf(language: string | undefined): Translator {
  return translator(isLanguage(language) ? language : "en");
}

/** A sequence for rows written before the counter: from the time of the change, as then. */
function sequenceOf(data: AppointmentMailData, method: "REQUEST" | "CANCEL"): number {
  if (typeof data.sequence === "number") return data.sequence;
  const changedAt = new Date(data.changedAt).getTime();
  return (
    Math.max(0, Math.floor((changedAt - Date.UTC(2024, 0, 1)) / 1000)) * 2 + (method === "CANCEL" ? 1 : 0)
  );
}

const addressLine = (address: string | null | undefined) =>
  address
    ? address
        .split(/\r?\n/)
        .map((l) => l.trim())
        .filter(Boolean)
        .join(", ")
    : undefined;

type Ics = typeof import("ics");
let ics: Ics | undefined;

/**
 * ics is loaded at the first invitation, not at start (docs/decisions/0016). Synchronously, by
 * require (it is a CommonJS package): a template renders synchronously, for the sender and for the
 * dashboard's subjects and previews alike.
 */
function loadIcs(): Ics {
  ics ??= createRequire(import.meta.url)("ics") as Ics;
  return ics;
}

function invitation(
  data: AppointmentMailData,
  ctx: RenderContext,
  t: Translator,
  method: "REQUEST" | "CANCEL",
): string {
  const location = addressLine(data.brand?.address ?? data.address);
  const attributes = {
    uid: appointmentUid(data.appointmentId, ctx.publicUrl),
    method,
    productId: oneLine(ctx.productName ?? data.shopName),
    sequence: sequenceOf(data, method),
    timestamp: new Date(data.changedAt).getTime(),
    start: new Date(data.date).getTime(),
    startInputType: "utc",
    startOutputType: "utc",
    duration: { minutes: data.duration },
    title: oneLine(
      t.t("appointments.calendarTitle", {
        type: appointmentTypeName(t, data.appointmentType),
        shop: data.shopName,
      }),
    ),
    ...(location ? { location: oneLine(location, 500) } : {}),
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
  const { error, value } = loadIcs().createEvent(attributes);
  if (error || !value) throw error ?? new Error("the invitation could not be written");
  return value;
}

type Change = "confirmed" | "moved" | "cancelled" | "reminder";

/** The kinds whose subject and opening a shop may word itself (src/mail/wording.ts). */
const wordedKinds: Partial<Record<Change, WordedKind>> = {
  confirmed: "appointment_confirmed",
  cancelled: "appointment_cancelled",
};

function customerAppointmentMail(change: Change) {
  const method = change === "cancelled" ? "CANCEL" : "REQUEST";
  return defineMail<AppointmentMailData>({
    audience: "customer",
    budgeted: true,
    render(data, ctx) {
      const t = readerOf(data.language);
      const at = (iso: string) => t.dateTime(new Date(iso), data.timeZone);
      const when = at(data.date);
      const type = appointmentTypeName(t, data.appointmentType);
      const kind = wordedKinds[change];
      const { subject, opening } = kind
        ? worded(t, kind, data.wording, {
            customerName: data.customerName,
            shopName: data.shopName,
            appointmentType: type,
            appointmentTime: when,
          })
        : (() => {
            const values = {
              shop: data.shopName,
              type,
              when,
              before: data.previousDate ? at(data.previousDate) : when,
            };
            return {
              subject: t.t(`appointments.mail.${change}Subject`, values),
              opening: t.t(`appointments.mail.${change}Body`, values),
            };
          })();
      const address = addressLine(data.brand?.address ?? data.address);
      const details = [
        t.t("mail.appointment.when", { time: when, timeZone: data.timeZone }),
        t.t("mail.appointment.duration", { minutes: data.duration }),
        ...(address ? [t.t("mail.appointment.where", { address })] : []),
      ];
      const calendarNote = t.t(
        method === "CANCEL" ? "appointments.mail.calendarRemove" : "appointments.mail.calendarAdd",
      );
      const manage = method === "REQUEST" ? myAppointmentUrl(ctx) : undefined;
      const framed = frame(t, data, ctx, {
        heading: subject,
        text: `${opening}

${details.join("\n")}
${calendarNote}
${manage ? `\n${t.t("appointments.mail.manageText", { url: manage })}\n` : ""}`,
        body: html`<p>${opening}</p>
<p>${details.map((line, i) => (i === 0 ? html`${line}` : html`<br>${line}`))}</p>
<p>${calendarNote}</p>
${manage ? button(manage, t.t("appointments.mail.manage"), accentOf(data.brand)) : ""}`,
      });
      return {
        subject: oneLine(subject),
        fromName: data.shopName,
        replyTo: data.replyTo ?? null,
        unsubscribable: true,
        calendar: { method, content: invitation(data, ctx, t, method) },
        text: framed.text,
        html: framed.html,
      };
    },
  });
}

export const appointmentConfirmedMail = customerAppointmentMail("confirmed");
export const appointmentMovedMail = customerAppointmentMail("moved");
export const appointmentCancelledMail = customerAppointmentMail("cancelled");
export const appointmentReminderMail = customerAppointmentMail("reminder");

export interface AppointmentChangedByCustomerData {
  shopName: string;
  /** The shop's language. */
  language: string;
  timeZone: string;
  customerName: string;
  appointmentId: string;
  appointmentType: string;
  change: "moved" | "cancelled";
  /** ISO: the new time of a move, the cancelled time of a cancellation. */
  date: string;
  /** ISO: the time before a move. */
  previousDate: string | null;
}

/** To the shop: the customer moved or cancelled an appointment through her own link. */
export const appointmentChangedByCustomerMail = defineMail<AppointmentChangedByCustomerData>({
  audience: "shop",
  render(data, ctx) {
    const t = readerOf(data.language);
    const at = (iso: string) => t.dateTime(new Date(iso), data.timeZone);
    const values = {
      customer: data.customerName,
      type: appointmentTypeName(t, data.appointmentType),
      when: at(data.date),
      before: data.previousDate ? at(data.previousDate) : at(data.date),
    };
    const subject = oneLine(t.t(`appointments.shopMail.${data.change}Subject`, values));
    const body = t.t(`appointments.shopMail.${data.change}Body`, values);
    const link = `${ctx.publicUrl}/dashboard/appointments/${encodeURIComponent(data.appointmentId)}`;
    return {
      subject,
      text: `${body}\n\n${t.t("appointments.shopMail.open")}: ${link}\n`,
      html: mailFrame({
        heading: subject,
        body: html`<p>${body}</p>
${mailLink(link, t.t("appointments.shopMail.open"))}`,
      }),
    };
  },
});
