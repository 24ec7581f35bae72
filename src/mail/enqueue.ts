// The one way to send a mail: a row in the mail outbox written inside the transaction that makes
// its cause (`enqueueMail(tx, …)`), or inside the very statement that makes it (`mailCte`, for a
// hot write path in one round trip; the statements are in outbox.repository.ts). It commits or
// rolls back with the change: a rolled-back change sends nothing, a committed one is sent by the
// worker however long SMTP is away (sender.ts). A NOTIFY on MAIL_CHANNEL, delivered at commit,
// wakes the sender at once.
import type { Executor } from "../db/client.ts";
import { generateSecret, hashSecret } from "../lib/crypto.ts";
import { newId } from "../lib/ids.ts";
import { type MailData, type MailKind, mailCatalog } from "./catalog.ts";
import { insertCustomerMail, insertMail } from "./outbox.repository.ts";

/** Prefix of a customer mail's unsubscribe token (stored only as its SHA-256). */
export const UNSUBSCRIBE_TOKEN_PREFIX = "vu_";

export interface NewMail<K extends MailKind> {
  kind: K;
  /** One address. */
  to: string;
  data: MailData<K>;
  /** The shop the mail is from or about (its dashboard lists it); null before there is a shop. */
  vendorId: string | null;
  /** Set for a mail about a customer or an inquiry: erasing them erases the mail. */
  customerId?: string | null;
  inquiryId?: string | null;
  /**
   * A token the mail's link carries that the database keeps only as a hash elsewhere (a reset
   * or confirmation link): kept on the row until the mail is sent. Customer mail gets its
   * unsubscribe token here by itself.
   */
  secret?: string | null;
  createdAt: Date;
}

/**
 * Writes the mail in `tx` (the cause's transaction) and returns its id (its Message-ID is made
 * from it). Customer mail should come through `customerMailRow` instead, which also checks the
 * shop's setting and the customer's unsubscription in SQL; given here, it is sent as is.
 */
export async function enqueueMail<K extends MailKind>(tx: Executor, mail: NewMail<K>): Promise<string> {
  const id = newId();
  const unsubscribe = mailCatalog[mail.kind].audience === "customer" ? unsubscribeToken() : undefined;
  const secret = unsubscribe?.token ?? mail.secret ?? null;
  await insertMail(tx, {
    id,
    vendorId: mail.vendorId,
    customerId: mail.customerId ?? null,
    inquiryId: mail.inquiryId ?? null,
    kind: mail.kind,
    to: mail.to,
    data: JSON.stringify(mail.data),
    secret,
    unsubscribeTokenHash: unsubscribe?.hash ?? null,
    at: mail.createdAt.toISOString(),
  });
  return id;
}

/** A customer mail's one-click unsubscribe token and the hash the row keeps. */
export function unsubscribeToken(): { token: string; hash: string } {
  const token = generateSecret(UNSUBSCRIBE_TOKEN_PREFIX, 32);
  return { token, hash: hashSecret(token) };
}

/**
 * Writes a customer mail of `kind` to the vendor's customer in `tx` when the shop turned customer
 * mail on and the customer may receive it (one statement either way); `extra` is the kind's own
 * data. Returns whether a mail was written.
 */
export async function enqueueCustomerMail(
  tx: Executor,
  mail: {
    kind: MailKind;
    vendorId: string;
    customerId: string;
    extra: Record<string, unknown>;
    createdAt: Date;
    /**
     * A second token the mail's link carries (an appointment mail's page token, kept elsewhere
     * only as its hash): held in the row's secret after the unsubscribe token and a space, and
     * cleared with it once the mail is sent (templates/appointment.ts `secretParts`).
     */
    pageToken?: string | undefined;
    /** Not sent before this instant (a reminder); at once when absent. */
    dueAt?: Date | undefined;
  },
): Promise<boolean> {
  const { token, hash } = unsubscribeToken();
  return insertCustomerMail(tx, {
    kind: mail.kind,
    id: newId(),
    token: mail.pageToken ? `${token} ${mail.pageToken}` : token,
    tokenHash: hash,
    extra: JSON.stringify(mail.extra),
    at: mail.createdAt.toISOString(),
    vendorId: mail.vendorId,
    customerId: mail.customerId,
    dueAt: mail.dueAt?.toISOString(),
  });
}
