// One-click unsubscribe from a shop's customer mail (RFC 8058): the token in the mail's
// List-Unsubscribe URL is stored only as its SHA-256 on the mail's row; using it stops every later
// customer mail of that shop to that customer (the statements that write customer mail check it).
import type { ServiceContext } from "../../context.ts";
import { notFound } from "../../errors.ts";
import { hashSecret } from "../../lib/crypto.ts";
import { isId } from "../../lib/ids.ts";
import { UNSUBSCRIBE_TOKEN_PREFIX } from "../../mail/enqueue.ts";
import {
  findCustomerUnsubscribedAt,
  findSubscriptionByTokenHash,
  type SubscriptionRow,
  unsubscribeByTokenHash,
} from "./customer-mail.repository.ts";

export type Subscription = SubscriptionRow;

const looksLikeToken = (token: string) => token.startsWith(UNSUBSCRIBE_TOKEN_PREFIX) && token.length <= 100;

/** Unsubscribes the mail's customer; 404 for a token no mail carries. Repeating it changes nothing. */
export async function unsubscribeCustomer(ctx: ServiceContext, token: string): Promise<Subscription> {
  const done = looksLikeToken(token)
    ? await unsubscribeByTokenHash(ctx.db, hashSecret(token), ctx.now())
    : undefined;
  if (!done) throw notFound("Subscription");
  return done;
}

/** The shop and language of an unsubscribe link, for its page; 404 for a token no mail carries. */
export async function findSubscription(ctx: ServiceContext, token: string): Promise<Subscription> {
  const found = looksLikeToken(token)
    ? await findSubscriptionByTokenHash(ctx.db, hashSecret(token))
    : undefined;
  if (!found) throw notFound("Subscription");
  return found;
}

/** When the vendor's customer unsubscribed from its mail, or null. */
export async function customerUnsubscribedAt(
  ctx: ServiceContext,
  vendorId: string,
  customerId: string,
): Promise<Date | null> {
  return isId(customerId) ? findCustomerUnsubscribedAt(ctx.db, vendorId, customerId) : null;
}
