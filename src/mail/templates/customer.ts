// Mail to a shop's customers, sent only when the shop turned customer mail on and the customer
// has not unsubscribed (both checked in the statement that writes the row). Each carries the
// shop's name as the sender's, its contact e-mail as Reply-To only when that address is one the
// shop verified (`replyTo`, decided where the row is written: CONTRACT 12; otherwise no Reply-To,
// so nobody can have replies to a shop's mail go to an address of their choosing), and one-click
// unsubscribe.
//
// Each is written in the customer's language (the row's `language`: the customer's own, else the
// shop's, decided where the row is written), under the shop's brand (name, logo, accent colour,
// address, phone, signature), with the shop's own subject and opening paragraph when it worded
// them (`wording`, src/mail/wording.ts). All of these are kept on the row as they were when the
// cause committed: a retry renders the same mail, and a mail already promised is not reworded by
// a later edit. Times are written in the shop's time zone through Intl. Appointment mail, with its
// calendar invitation, is in appointment.ts, framed by `frame` here.
import { isLocale } from "../../i18n/languages.ts";
import { type Translator, translator } from "../../i18n/translator.ts";
import { html, type SafeHtml } from "../../lib/html.ts";
import { defineMail, oneLine, type RenderContext } from "../template.ts";
import { fillPlaceholders, type WordedKind, type Wording, wordingSection } from "../wording.ts";
import { paragraphs } from "./frame.ts";

/** The shop's brand as a customer mail's row keeps it (every part optional: rows before it had none). */
export interface MailBrand {
  logoUrl?: string | null;
  accentColor?: string | null;
  address?: string | null;
  phone?: string | null;
  signature?: string | null;
}

export interface FromShop {
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
  /** The reader's language (the customer's, else the shop's); absent in rows before it: English. */
  language?: string;
  brand?: MailBrand;
  /** The shop's own subject and opening in that language, when it worded this kind. */
  wording?: Wording | null;
}

/** The accent colour when it is one (#rrggbb), else the default. */
export const DEFAULT_ACCENT = "#234";
export function accentOf(brand: MailBrand | undefined): string {
  const colour = brand?.accentColor;
  return typeof colour === "string" && /^#[0-9a-fA-F]{6}$/.test(colour) ? colour : DEFAULT_ACCENT;
}

/** The logo's URL when it is an https one, else null. */
export function logoOf(brand: MailBrand | undefined): string | null {
  const url = brand?.logoUrl;
  return typeof url === "string" && /^https:\/\/[^\s"'<>]+$/i.test(url) ? url : null;
}

export const readerOf = (data: FromShop): Translator =>
  translator(isLocale(data.language) ? data.language : "en");

/** A code's words when the catalogue has none (a status added later): "READY_FOR_PICKUP" → "Ready for pickup". */
const words = (code: string) => {
  const lower = code.toLowerCase().replaceAll("_", " ");
  return lower.charAt(0).toUpperCase() + lower.slice(1);
};

/** A status, order type or appointment type in the reader's language. */
export function codeName(t: Translator, section: string, code: string): string {
  const key = `customer.${section}.${code}`;
  return t.has(key) ? t.t(key) : words(code);
}

/** The subject and opening: the shop's wording when it has one, else the catalogue's. */
export function worded(
  t: Translator,
  kind: WordedKind,
  wording: Wording | null | undefined,
  values: Record<string, string>,
): { subject: string; opening: string } {
  const section = wordingSection[kind];
  return {
    subject: wording?.subject ? fillPlaceholders(wording.subject, values) : t.t(`${section}.subject`, values),
    opening: wording?.opening ? fillPlaceholders(wording.opening, values) : t.t(`${section}.opening`, values),
  };
}

/** The one-click unsubscribe URL (RFC 8058) of the mail whose secret is the token. */
export function unsubscribeUrl(ctx: RenderContext): string {
  // An appointment mail's secret also carries its page token after a space (appointment.ts).
  return `${ctx.publicUrl}/unsubscribe/${encodeURIComponent((ctx.secret ?? "").split(" ")[0] ?? "")}`;
}

/** The brand lines under the signature: name, address, phone, verified contact e-mail. */
function brandLines(t: Translator, data: FromShop): string[] {
  const lines = [data.shopName];
  if (data.brand?.address) lines.push(...data.brand.address.split(/\r?\n/).filter((l) => l.trim() !== ""));
  if (data.brand?.phone) lines.push(t.t("customer.brand.phone", { phone: data.brand.phone }));
  // Only an address the shop verified (`replyTo`): mail never carries one it merely typed (CONTRACT 12).
  if (data.replyTo) lines.push(data.replyTo);
  return lines;
}

export interface CustomerMailParts {
  heading: string;
  /** Plain text paragraphs of the body, before the signature. */
  text: string;
  body: SafeHtml;
}

/** The text and HTML parts around a mail's own body: greeting, signature, brand and unsubscribe footer. */
export function frame(
  t: Translator,
  data: FromShop,
  ctx: RenderContext,
  parts: CustomerMailParts,
): { text: string; html: SafeHtml } {
  const url = unsubscribeUrl(ctx);
  const greeting = t.t("mail.greeting", { customerName: data.customerName });
  const signature = data.brand?.signature?.trim() ?? "";
  const brand = brandLines(t, data);
  const reason = t.t("mail.footer.reason", { shopName: data.shopName });
  const accent = accentOf(data.brand);
  const logo = logoOf(data.brand);
  const text = `${greeting}

${parts.text}
${signature ? `\n${signature}\n` : ""}
${brand.join("\n")}

--
${reason} ${t.t("mail.footer.unsubscribeText", { url })}
`;
  const body = html`<!doctype html>
<html lang="${t.language}"><head><meta charset="utf-8"><title>${parts.heading}</title></head>
<body style="font:16px/1.5 system-ui,sans-serif;color:#222;max-width:36rem;margin:1rem auto;padding:0 1rem">
<header style="border-bottom:3px solid ${accent};padding-bottom:.5rem;margin-bottom:1rem">${
    logo
      ? html`<img src="${logo}" alt="${t.t("customer.brand.logo", { shopName: data.shopName })}" style="max-height:64px;max-width:100%">`
      : html`<strong style="font-size:1.1rem">${data.shopName}</strong>`
  }</header>
<h1 style="font-size:1.3rem">${parts.heading}</h1>
<p>${greeting}</p>
${parts.body}
${signature ? html`<div class="signature">${paragraphs(signature)}</div>` : ""}
<p style="color:#444;font-size:.9rem">${brand.map((line, i) => (i === 0 ? html`<strong>${line}</strong>` : html`<br>${line}`))}</p>
<hr style="border:0;border-top:1px solid #ddd;margin-top:2rem"><p style="color:#666;font-size:.85rem">${reason} <a href="${url}">${t.t("mail.footer.unsubscribe")}</a></p>
</body></html>`;
  return { text, html: body };
}

/** A link as a button-like anchor in the shop's accent colour. */
export function button(href: string, label: string, accent: string): SafeHtml {
  return html`<p><a href="${href}" style="display:inline-block;padding:.5rem 1rem;background:${accent};color:#fff;text-decoration:none;border-radius:4px">${label}</a></p>`;
}

export interface OrderStatusMailData extends FromShop {
  /** The shop's order number; absent in mail queued before orders had one. */
  number?: number;
  orderType: string;
  model: string | null;
  status: string;
  message: string;
  trackingToken: string;
  /** The status entry's photos (CONTRACT 12), through their unguessable links; absent before photos. */
  photos?: Array<{ id: string; url: string; thumbnailUrl: string }>;
}

/** The entry's photos: thumbnails linking to the full JPEG (images load only if the reader allows). */
function photoLinks(
  t: Translator,
  photos: OrderStatusMailData["photos"],
): { text: string; html: SafeHtml | "" } {
  if (!photos || photos.length === 0) return { text: "", html: "" };
  return {
    text: `\n${t.t("photos.mail.heading", { count: photos.length })}\n${photos.map((p) => p.url).join("\n")}\n`,
    html: html`<p>${photos.map(
      (p, i) =>
        html`<a href="${p.url}" style="display:inline-block;margin:0 .5rem .5rem 0"><img src="${p.thumbnailUrl}" alt="${t.t("photos.alt", { number: i + 1 })}" width="200" style="max-width:200px;height:auto;border-radius:4px;border:1px solid #ddd"></a>`,
    )}</p>`,
  };
}

/** The placeholder values of an order status mail, as the default and the shop's wording get them. */
export function orderStatusValues(t: Translator, data: OrderStatusMailData): Record<string, string> {
  const type = codeName(t, "orderType", data.orderType);
  return {
    customerName: data.customerName,
    shopName: data.shopName,
    orderNumber: typeof data.number === "number" ? String(data.number) : "",
    item: data.model ? `${type} ${data.model}` : type,
    status: codeName(t, "orderStatus", data.status),
  };
}

export const orderStatusMail = defineMail<OrderStatusMailData>({
  audience: "customer",
  budgeted: true,
  render(data, ctx) {
    const t = readerOf(data);
    const tracking = `${ctx.publicUrl}/track/${encodeURIComponent(data.trackingToken)}`;
    const values = orderStatusValues(t, data);
    const { subject, opening } = worded(t, "order_status", data.wording, values);
    const accent = accentOf(data.brand);
    const photos = photoLinks(t, data.photos);
    const framed = frame(t, data, ctx, {
      heading: subject,
      text: `${opening}

${data.message}
${photos.text}
${t.t("mail.orderStatus.followText", { url: tracking })}`,
      body: html`${paragraphs(opening)}
<blockquote style="margin:1rem 0;padding-left:1rem;border-left:3px solid ${accent}">${paragraphs(data.message)}</blockquote>
${photos.html}
${button(tracking, t.t("mail.orderStatus.follow"), accent)}`,
    });
    return {
      subject: oneLine(subject),
      fromName: data.shopName,
      replyTo: data.replyTo ?? null,
      unsubscribable: true,
      text: framed.text,
      html: framed.html,
    };
  },
});
