// What a mail template is: a pure function from the data its outbox row keeps (as it was when the
// cause committed) to the mail's parts. The worker renders at send time, so a retry renders the
// same mail; nothing is read from the database while rendering.
import type { SafeHtml } from "../lib/html.ts";

export interface RenderContext {
  /** PUBLIC_URL without its trailing slash: every link in a mail starts with it. */
  readonly publicUrl: string;
  /** MAIL_FROM's address: an invitation's organizer when the shop has no contact e-mail. */
  readonly fromAddress: string;
  /**
   * PRODUCT_NAME: how mail to a shop's people names the product (default DEFAULT_PRODUCT_NAME),
   * and what a calendar file names as the product that made it.
   */
  readonly productName?: string;
  /**
   * The row's secret (a reset or confirmation token, or the customer mail's unsubscribe token),
   * or null once it was cleared (the mail sent or given up): the dashboard's list renders
   * subjects without it.
   */
  readonly secret: string | null;
}

export interface RenderedMail {
  readonly subject: string;
  readonly text: string;
  readonly html: SafeHtml;
  /** The sender's display name (the shop's name for a shop's mail); MAIL_FROM's otherwise. */
  readonly fromName?: string | undefined;
  readonly replyTo?: string | null | undefined;
  /** Customer mail: List-Unsubscribe with the one-click URL (RFC 8058), built from the secret. */
  readonly unsubscribable?: boolean;
  /** A calendar invitation (RFC 5546): a text/calendar part with this METHOD. */
  readonly calendar?: { readonly method: "REQUEST" | "CANCEL"; readonly content: string } | undefined;
}

export interface MailTemplate<Data> {
  /** account: to a person signing up or in; shop: to the shop; customer: to the shop's customer. */
  readonly audience: "account" | "shop" | "customer";
  /**
   * Mail a shop sends to an address of its own choosing (its customers, the people it invites):
   * counted against the shop's mail budget and held past it (src/mail/budget.ts).
   */
  readonly budgeted?: boolean;
  render(data: Data, ctx: RenderContext): RenderedMail;
}

export function defineMail<Data>(template: MailTemplate<Data>): MailTemplate<Data> {
  return template;
}

/** A header value from user text: one line, no control characters, bounded. */
export function oneLine(value: string, max = 200): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
  const flat = value.replace(/[\u0000-\u001f\u007f]+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
