// An order's JSON is built by PostgreSQL (order-json.repository.ts: the order list is the hottest
// read, and building it there measured ~2x faster than mapping rows in JS; docs/decisions/0001),
// so API responses and event payloads come from the same SQL and cannot disagree; what is left
// here is the parsing.
import type { OrderSchema } from "./orders.schemas.ts";

/** The order JSON text as the value the order events carry (same shape, parsed once). */
export function orderPayload(json: string): OrderSchema {
  return JSON.parse(json) as OrderSchema;
}
