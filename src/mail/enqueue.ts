// The one way to send a mail: a row in the mail outbox written inside the transaction that makes
// its cause (`enqueueMail(tx, …)`), or inside the very statement that makes it (`mailCte`, for a
// hot write path in one round trip). It commits or rolls back with the change: a rolled-back
// change sends nothing, a committed one is sent by the worker however long SMTP is away
// (sender.ts). A NOTIFY on MAIL_CHANNEL, delivered at commit, wakes the sender at once.
import { type SQL, sql } from "drizzle-orm";
import type { Executor } from "../db/client.ts";
import { generateSecret, hashSecret } from "../lib/crypto.ts";
import { newId } from "../lib/ids.ts";
import { type MailData, type MailKind, mailCatalog } from "./catalog.ts";

export const MAIL_CHANNEL = "vendor_api_mail";
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
  await tx.execute(
    sql`with ${mailCte(
      sql`select ${id}::text as id, ${mail.vendorId}::text as vendor_id,
                 ${mail.customerId ?? null}::text as customer_id, ${mail.inquiryId ?? null}::text as inquiry_id,
                 ${mail.kind}::text as kind, ${mail.to}::text as to_address,
                 ${JSON.stringify(mail.data)}::jsonb as data, ${secret}::text as secret,
                 ${unsubscribe?.hash ?? null}::text as unsubscribe_token_hash,
                 ${mail.createdAt.toISOString()}::timestamptz as created_at`,
    )}
    select ${notifyMailWhenAny}`,
  );
  return id;
}

/** A customer mail's one-click unsubscribe token and the hash the row keeps. */
export function unsubscribeToken(): { token: string; hash: string } {
  const token = generateSecret(UNSUBSCRIBE_TOKEN_PREFIX, 32);
  return { token, hash: hashSecret(token) };
}

/**
 * The CTE `m`, which inserts the mails `source` selects (id, vendor_id, customer_id, inquiry_id,
 * kind, to_address, data jsonb, secret, unsubscribe_token_hash, created_at), due at once; the
 * statement's select list then carries `notifyMailWhenAny`.
 */
export function mailCte(source: SQL): SQL {
  return sql`m as (
      insert into mails (id, vendor_id, customer_id, inquiry_id, kind, to_address, data, secret,
                         unsubscribe_token_hash, status, attempts, next_attempt_at, created_at)
      select s.id, s.vendor_id, s.customer_id, s.inquiry_id, s.kind, s.to_address, s.data, s.secret,
             s.unsubscribe_token_hash, 'PENDING', 0, s.created_at, s.created_at
      from (${source}) s
      returning id
    )`;
}

/** The select-list item that NOTIFYs the mail sender once (at commit), only when `m` wrote a mail. */
export const notifyMailWhenAny = sql`(select pg_notify(${MAIL_CHANNEL}, '') from (select 1 from m limit 1) q) as mail_notified`;

/**
 * A `mailCte` source row for a customer mail of `kind`: written only when the shop `v` turned
 * customer mail on and is no sandbox (a test order's customer is never mailed), and the customer
 * `c` has an address and has not unsubscribed, so a shop with
 * the setting off pays no statement of its own. `from` must bring `v` (vendors) and `c`
 * (customers) into scope and end in a WHERE clause; `extra` is the kind's own data (jsonb),
 * merged over the shop's and the customer's (shopName, contactEmail, timeZone, customerName,
 * customerEmail).
 */
export function customerMailRow(
  kind: MailKind,
  p: { id: SQL; token: SQL; tokenHash: SQL; extra: SQL; createdAt: SQL; from: SQL },
): SQL {
  return sql`select ${p.id}::text as id, v.id as vendor_id, c.id as customer_id, null::text as inquiry_id,
      ${kind}::text as kind, c.email as to_address,
      jsonb_build_object('shopName', v.name, 'contactEmail', v.contact_email, 'timeZone', v.time_zone,
                         'customerName', c.name, 'customerEmail', c.email) || ${p.extra} as data,
      ${p.token}::text as secret, ${p.tokenHash}::text as unsubscribe_token_hash, ${p.createdAt} as created_at
    ${p.from} and v.customer_mail and v.sandbox_of is null and c.email is not null and c.mail_unsubscribed_at is null`;
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
  },
): Promise<boolean> {
  const { token, hash } = unsubscribeToken();
  const result = (await tx.execute(
    sql`with ${mailCte(
      customerMailRow(mail.kind, {
        id: sql`${newId()}`,
        token: sql`${token}`,
        tokenHash: sql`${hash}`,
        extra: sql`${JSON.stringify(mail.extra)}::jsonb`,
        createdAt: sql`${mail.createdAt.toISOString()}::timestamptz`,
        from: sql`from vendors v join customers c on c.vendor_id = v.id
                  where v.id = ${mail.vendorId} and c.id = ${mail.customerId}`,
      }),
    )}
    select (select count(*) from m)::int as written, ${notifyMailWhenAny}`,
  )) as unknown as { rows: Array<{ written: number }> };
  return (result.rows[0]?.written ?? 0) > 0;
}
