// An outbox row becomes a message: its template renders the row's data (catalog.ts), and the
// envelope is the same on every attempt: the Message-ID is made from the row's id and the Date is
// when the cause committed, so a mail sent twice (a crash between sending and recording it) is
// recognisably the same mail.

import addressparser from "nodemailer/lib/addressparser";
import type Mail from "nodemailer/lib/mailer";
import { DEFAULT_PRODUCT_NAME } from "../config.ts";
import { isMailKind, mailCatalog } from "./catalog.ts";
import type { RenderContext, RenderedMail } from "./template.ts";
import { unsubscribeUrl } from "./templates/customer.ts";

export interface OutboxMail {
  id: string;
  kind: string;
  toAddress: string;
  data: Record<string, unknown>;
  secret: string | null;
  createdAt: Date;
}

export interface Sender {
  /** MAIL_FROM's display name and address. */
  name: string;
  address: string;
}

export function parseMailFrom(mailFrom: string): Sender {
  const [first] = addressparser(mailFrom, { flatten: true });
  if (!first?.address) throw new Error("MAIL_FROM names no address");
  return { name: first.name || DEFAULT_PRODUCT_NAME, address: first.address };
}

/** The row's mail as its template renders it; throws for a kind the catalog does not know. */
export function renderMail(row: OutboxMail, ctx: RenderContext): RenderedMail {
  if (!isMailKind(row.kind)) throw new Error(`no template for mail kind "${row.kind}"`);
  const template = mailCatalog[row.kind] as { render(data: unknown, ctx: RenderContext): RenderedMail };
  return template.render(row.data, ctx);
}

export function messageIdOf(mailId: string, from: Sender): string {
  return `<${mailId}@${from.address.split("@").pop()}>`;
}

export function composeMail(
  row: OutboxMail,
  settings: { publicUrl: string; from: Sender; productName?: string },
): Mail.Options {
  const ctx: RenderContext = {
    publicUrl: settings.publicUrl,
    fromAddress: settings.from.address,
    ...(settings.productName ? { productName: settings.productName } : {}),
    secret: row.secret,
    ...(settings.productName ? { productName: settings.productName } : {}),
  };
  const mail = renderMail(row, ctx);
  // RFC 3834: sent by a program, so auto-responders do not answer it.
  const headers: Record<string, string> = { "Auto-Submitted": "auto-generated" };
  if (mail.unsubscribable) {
    // RFC 8058: an HTTPS URL that unsubscribes on a POST of "List-Unsubscribe=One-Click".
    headers["List-Unsubscribe"] = `<${unsubscribeUrl(ctx)}>`;
    headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click";
  }
  return {
    messageId: messageIdOf(row.id, settings.from),
    date: row.createdAt,
    from: { name: mail.fromName ?? settings.from.name, address: settings.from.address },
    to: row.toAddress,
    ...(mail.replyTo ? { replyTo: mail.replyTo } : {}),
    subject: mail.subject,
    text: mail.text,
    html: mail.html.value,
    headers,
    ...(mail.calendar
      ? {
          icalEvent: {
            method: mail.calendar.method,
            filename: "invitation.ics",
            content: mail.calendar.content,
          },
        }
      : {}),
  };
}
