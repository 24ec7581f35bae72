// The app's own statements rendered to SQL text once, at start-up, so the baseline server runs
// exactly what the app sends (same text, same parameter order) without Drizzle on its hot path.
// Each statement is rendered with marker values; `bind` swaps the markers for real values.
import { and, eq, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import { PgDialect } from "drizzle-orm/pg-core";
import { apiKeys, customers, events, orders, orderUpdates } from "../src/db/schema/index.ts";
import { findOrderJsonQuery, listOrderJsonQuery } from "../src/modules/orders/orders.repository.ts";
import { EVENTS_CHANNEL } from "../src/webhook-delivery/enqueue.ts";

export interface Statement {
  text: string;
  /** Parameters in order, given the values for each marker. */
  bind(values: Record<string, unknown>): unknown[];
}

const MARK = "\u0000bench:";
const m = (name: string) => `${MARK}${name}`;
const mDate = (name: string) => new Date(Date.UTC(2000, 0, 1, 0, 0, 0, markerDates.push(name)));
const markerDates: string[] = [];

function statement(query: { sql: string; params: unknown[] }): Statement {
  const slots = query.params.map((p) => {
    if (typeof p === "string" && p.startsWith(MARK)) return { marker: p.slice(MARK.length) };
    // A jsonb column carries the JSON text of its value: the marker as a JSON string.
    if (typeof p === "string" && p.startsWith(JSON.stringify(MARK).slice(0, -1))) {
      return { marker: (JSON.parse(p) as string).slice(MARK.length) };
    }
    // Drizzle turns a Date for a timestamptz column into its ISO string.
    if (typeof p === "string" && p.startsWith("2000-01-01T00:00:00.")) {
      const ms = new Date(p).getUTCMilliseconds();
      const name = markerDates[ms - 1];
      if (name) return { marker: name, date: true };
    }
    return { constant: p };
  });
  return {
    text: query.sql,
    bind(values) {
      return slots.map((s) => {
        if ("constant" in s) return s.constant;
        const v = values[s.marker];
        if (v === undefined) throw new Error(`no value for ${s.marker}`);
        return s.date ? (v as Date).toISOString() : v;
      });
    },
  };
}

const dialect = new PgDialect();
const db = drizzle.mock();

export const apiKeyByHash = statement(
  db
    .select()
    .from(apiKeys)
    .where(eq(apiKeys.keyHash, m("hash")))
    .limit(1)
    .toSQL(),
);

export const touchApiKey = statement(
  db
    .update(apiKeys)
    .set({ lastUsedAt: mDate("at") })
    .where(eq(apiKeys.id, m("id")))
    .toSQL(),
);

export const listOrders = statement(dialect.sqlToQuery(listOrderJsonQuery(m("vendorId"), { limit: 100 })));

export const customerByEmail = statement(
  db
    .select()
    .from(customers)
    .where(and(eq(customers.vendorId, m("vendorId")), sql`lower(${customers.email}) = lower(${m("email")})`))
    .limit(1)
    .toSQL(),
);

export const insertOrder = statement(
  db
    .insert(orders)
    .values({
      id: m("id"),
      vendorId: m("vendorId"),
      customerId: m("customerId"),
      type: m("type"),
      status: "ORDERED",
      model: m("model"),
      size: m("size"),
      color: m("color"),
      description: m("description"),
      specialRequests: m("specialRequests"),
      customerPhone: m("customerPhone"),
      weddingDate: m("weddingDate"),
      trackingToken: m("trackingToken"),
      createdAt: mDate("now"),
      updatedAt: mDate("now"),
    })
    .toSQL(),
);

export const insertOrderUpdate = statement(
  db
    .insert(orderUpdates)
    .values({ orderId: m("orderId"), status: "ORDERED", message: "Order created", createdAt: mDate("now") })
    .toSQL(),
);

export const findOrder = statement(dialect.sqlToQuery(findOrderJsonQuery(m("vendorId"), m("id"))));

export const insertEvent = statement(
  db
    .insert(events)
    .values({
      id: m("id"),
      vendorId: m("vendorId"),
      type: "order.created",
      data: m("data") as never,
      createdAt: mDate("now"),
    })
    .toSQL(),
);

export const notify = statement(dialect.sqlToQuery(sql`select pg_notify(${EVENTS_CHANNEL}, ${m("id")})`));
