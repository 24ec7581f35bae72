// The customer's side of the shop's mail: whether they unsubscribed, and the one-click unsubscribe
// that a customer mail's token performs (RFC 8058).
import { sql } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { queryRows } from "../../db/query-rows.ts";

/**
 * Unsubscribes the customer the mail with this token hash was sent to (first time only) and
 * returns the shop's name; undefined when no mail has the token (or its customer was erased).
 */
export async function unsubscribeByTokenHash(
  db: Executor,
  tokenHash: string,
  at: Date,
): Promise<SubscriptionRow | undefined> {
  const [row] = await queryRows<SubscriptionRow>(
    db,
    sql`update customers c
        set mail_unsubscribed_at = coalesce(c.mail_unsubscribed_at, ${at.toISOString()}::timestamptz)
        from mails m join vendors v on v.id = m.vendor_id
        where m.unsubscribe_token_hash = ${tokenHash} and c.id = m.customer_id and c.vendor_id = m.vendor_id
        returning ${subscriptionColumns}`,
  );
  return row;
}

/** The shop and the reader's language of an unsubscribe link (its page, before the click). */
export interface SubscriptionRow {
  shopName: string;
  language: string;
  contactEmail: string | null;
  logoUrl: string | null;
  accentColor: string | null;
  address: string | null;
  phone: string | null;
}

const subscriptionColumns = sql`v.name as "shopName", coalesce(c.language, v.language) as "language",
  v.contact_email as "contactEmail", v.brand_logo_url as "logoUrl", v.brand_accent_color as "accentColor",
  v.address as "address", v.phone as "phone"`;

/** The subscription a mail's unsubscribe token names, without changing it; undefined when none. */
export async function findSubscriptionByTokenHash(
  db: Executor,
  tokenHash: string,
): Promise<SubscriptionRow | undefined> {
  const [row] = await queryRows<SubscriptionRow>(
    db,
    sql`select ${subscriptionColumns}
        from mails m join vendors v on v.id = m.vendor_id
        join customers c on c.id = m.customer_id and c.vendor_id = m.vendor_id
        where m.unsubscribe_token_hash = ${tokenHash}
        limit 1`,
  );
  return row;
}

export async function findCustomerUnsubscribedAt(
  db: Executor,
  vendorId: string,
  customerId: string,
): Promise<Date | null> {
  const [row] = await queryRows<{ at: string | Date | null }>(
    db,
    sql`select mail_unsubscribed_at as at from customers where vendor_id = ${vendorId} and id = ${customerId}`,
  );
  return row?.at ? new Date(row.at) : null;
}
