// The customer's side of the shop's mail: whether they unsubscribed, and the one-click unsubscribe
// that a customer mail's token performs (RFC 8058).
import { sql } from "drizzle-orm";
import { type Executor, queryRows } from "../../db/client.ts";

/**
 * Unsubscribes the customer the mail with this token hash was sent to (first time only) and
 * returns the shop's name; undefined when no mail has the token (or its customer was erased).
 */
export async function unsubscribeByTokenHash(
  db: Executor,
  tokenHash: string,
  at: Date,
): Promise<{ shopName: string } | undefined> {
  const [row] = await queryRows<{ shop_name: string }>(
    db,
    sql`update customers c
        set mail_unsubscribed_at = coalesce(c.mail_unsubscribed_at, ${at.toISOString()}::timestamptz)
        from mails m join vendors v on v.id = m.vendor_id
        where m.unsubscribe_token_hash = ${tokenHash} and c.id = m.customer_id and c.vendor_id = m.vendor_id
        returning v.name as shop_name`,
  );
  return row ? { shopName: row.shop_name } : undefined;
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
