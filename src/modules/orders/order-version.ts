// An order's ETag (CONTRACT 12, Conditional writes) names its version, not its bytes: the text
// below, of what every change to the order's JSON moves (its updatedAt, which each status move,
// detail change and erasure stamps anew, and the customer it shows), hashed as a strong tag.
// Why not the bytes, as for customers, appointments and webhooks: a status move's answer would then
// need the order's whole JSON, history included, built in its statement: that halved the status
// move's throughput in `npm run bench` (0.84x to 0.42x of the baseline), where this costs nothing.

interface OrderVersionFields {
  id: string;
  updatedAt: string;
  customerId: string | null;
  customer: { name: string; email: string | null } | null;
}

/** The version text of an order, from its JSON's fields (or the same fields read in SQL). */
export function orderVersion(order: OrderVersionFields): string {
  const customer = order.customer;
  return JSON.stringify(["o2", order.id, order.updatedAt, order.customerId, customer?.name, customer?.email]);
}

/** The version text of an order's JSON text (as the API answers it). */
export function orderVersionOfJson(json: string): string {
  return orderVersion(JSON.parse(json) as OrderVersionFields);
}
