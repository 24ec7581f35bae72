// The hot writes are one statement of work each: an order create, a status move and a
// customer create send ONE statement (the rows, their outbox events, the deliveries fan-out and
// the NOTIFY; the API key, verified by an earlier request, is held in memory:
// modules/api-keys/verified-keys.ts), with no BEGIN and COMMIT around it (db/sql.ts
// writeStampSql keeps the stamps inside the transaction),
// whatever webhooks the vendor has, and never read back what they just wrote. A second statement
// appears only after a lost e-mail race. (Before: 8 for an order with a new customer.)
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.ts";
import { adjustableClock } from "../helpers/clock.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";
import { eventually } from "../helpers/webhook-receiver.ts";

let t: TestApp;
let key: string;
let vendorId: string;
beforeAll(async () => {
  t = await startTestApp();
  ({
    key,
    vendor: { id: vendorId },
  } = await createVendorWithKey(t.ctx));
  // The key's last use is recorded once a minute, off the request path: let that write happen
  // first, so it is not counted against the requests measured below.
  await t.api.get("/api/vendor/orders", { key });
  await eventually(async () => {
    const rows = await queryRows<{ id: string }>(
      t.ctx.db,
      sql`select id from api_keys where vendor_id = ${vendorId} and last_used_at is null`,
    );
    return rows.length === 0;
  });
});
afterAll(() => t.close());

async function payloadOf(type: string, id: string): Promise<unknown> {
  const [row] = await queryRows<{ data: unknown }>(
    t.ctx.db,
    sql`select data from events where vendor_id = ${vendorId} and type = ${type} and data->>'id' = ${id}`,
  );
  return row?.data;
}

async function expectPayloadIsTheCustomer(id: string) {
  const { counts: _, ...customer } = (await t.api.get(`/api/vendor/customers/${id}`, { key })).body;
  expect(await payloadOf("customer.created", id)).toEqual(customer);
}

async function statementsFor(send: () => Promise<{ status: number }>, status: number) {
  const before = t.database.queryCount();
  const res = await send();
  const count = t.database.queryCount() - before;
  expect(res.status).toBe(status);
  return count;
}

// The statement alone: the key was read by the first request (beforeAll) and is held since.
const ONE_STATEMENT_OF_WORK = () => 1;

describe.each([
  ["no webhook", 0],
  ["two subscribed webhooks", 2],
])("with %s", (_name, webhooks) => {
  beforeAll(async () => {
    for (let i = 0; i < webhooks; i++) {
      const res = await t.api.post(
        "/api/vendor/webhooks",
        {
          url: `http://127.0.0.1:9/hook-${i}`,
          events: ["order.created", "order.status_changed", "customer.created"],
        },
        { key },
      );
      expect(res.status).toBe(201);
    }
  });

  it("POST /api/vendor/orders with a new customer: one statement of work, both events fanned out", async () => {
    const email = `new-${webhooks}@example.com`;
    let created: { status: number; body: { id: string; customerId: string } } | undefined;
    const n = await statementsFor(async () => {
      created = await t.api.post(
        "/api/vendor/orders",
        { customerName: "New", customerEmail: email, type: "SUIT" },
        { key },
      );
      return created;
    }, 201);
    expect(n).toBe(ONE_STATEMENT_OF_WORK());
    const rows = await queryRows<{ type: string; deliveries: number }>(
      t.ctx.db,
      sql`select e.type, (select count(*) from webhook_deliveries d where d.event_id = e.id)::int as deliveries
          from events e where e.vendor_id = ${vendorId}
            and e.data->>'id' in (${created?.body.id}, ${created?.body.customerId}) order by e.type`,
    );
    expect(rows).toEqual([
      { type: "customer.created", deliveries: webhooks },
      { type: "order.created", deliveries: webhooks },
    ]);
    // The payloads the statement wrote are the API's own presentations of what it created.
    await expectPayloadIsTheCustomer(created?.body.customerId as string);
    const order = await t.api.get(`/api/vendor/orders/${created?.body.id}`, { key });
    expect(await payloadOf("order.created", created?.body.id as string)).toEqual(order.body);
    expect(created?.body).toEqual(order.body);
  });

  it("POST /api/vendor/orders linking an existing customer: one statement of work", async () => {
    const email = `new-${webhooks}@example.com`;
    const n = await statementsFor(
      () =>
        t.api.post(
          "/api/vendor/orders",
          { customerName: "Again", customerEmail: email, type: "SUIT" },
          { key },
        ),
      201,
    );
    expect(n).toBe(ONE_STATEMENT_OF_WORK());
  });

  it("PUT /api/vendor/orders/{id}/status, a move and a refused move: one statement of work", async () => {
    const order = await t.api.post("/api/vendor/orders", { customerName: "Move", type: "SUIT" }, { key });
    const path = `/api/vendor/orders/${order.body.id}/status`;
    expect(await statementsFor(() => t.api.put(path, { status: "IN_PRODUCTION" }, { key }), 200)).toBe(
      ONE_STATEMENT_OF_WORK(),
    );
    expect(await statementsFor(() => t.api.put(path, { status: "ORDERED" }, { key }), 409)).toBe(
      ONE_STATEMENT_OF_WORK(),
    );
  });

  it("POST /api/vendor/customers: one statement of work", async () => {
    let created: { status: number; body: { id: string } } | undefined;
    const n = await statementsFor(async () => {
      created = await t.api.post(
        "/api/vendor/customers",
        { name: "C", email: `c-${webhooks}@example.com`, measurements: { waist: 70, bust: 88 } },
        { key },
      );
      return created;
    }, 201);
    expect(n).toBe(ONE_STATEMENT_OF_WORK());
    const { counts: _, ...shown } = (await t.api.get(`/api/vendor/customers/${created?.body.id}`, { key }))
      .body;
    expect(created?.body).toEqual(shown);
    await expectPayloadIsTheCustomer(created?.body.id as string);
  });
});

describe("stamps of one-statement writes", () => {
  // A service clock read before the statement waited (for a pooled connection, or behind a stalled
  // event loop) lags the statement's start by that wait: 0.7 s, and 5 s on a loaded host, where the
  // stamp once kept the lagging clock and the sync horizon passed the row before it committed.
  it.each([700, 5_000])(
    "are never before the statement started, from a clock %i ms behind the database's",
    async (lagMs) => {
      const clock = adjustableClock();
      clock.setOffset(-lagMs);
      const lagging = await startTestApp({ now: clock.now });
      try {
        const v = await createVendorWithKey(lagging.ctx);
        const before = new Date(Date.now() - (Date.now() % 1));
        const order = await lagging.api.post(
          "/api/vendor/orders",
          { customerName: "L", type: "SUIT" },
          { key: v.key },
        );
        const customer = await lagging.api.post("/api/vendor/customers", { name: "L" }, { key: v.key });
        const moved = await lagging.api.put(
          `/api/vendor/orders/${order.body.id}/status`,
          { status: "IN_PRODUCTION" },
          { key: v.key },
        );
        expect([order.status, customer.status, moved.status]).toEqual([201, 201, 200]);
        const after = await lagging.api.get(`/api/vendor/orders/${order.body.id}`, { key: v.key });
        for (const stamp of [order.body.createdAt, customer.body.createdAt, after.body.updatedAt]) {
          expect(Date.parse(stamp)).toBeGreaterThanOrEqual(before.getTime());
        }
      } finally {
        await lagging.close();
      }
    },
  );
});
