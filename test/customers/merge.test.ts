// CONTRACT 12: POST /api/vendor/customers/{id}/merge { from } moves the orders, appointments and
// inquiries of `from` to `id`, keeps the richer field of each pair, deletes `from`, emits
// customer.updated for the kept one and customer.deleted with data.mergedInto for the other,
// writes an activity entry and answers the kept customer.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { readSyncList } from "../helpers/sync.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

async function eventsOf(vendorId: string) {
  return queryRows<{ type: string; data: Record<string, unknown> }>(
    t.ctx.db,
    sql`select type, data from events where vendor_id = ${vendorId} and type in ('customer.updated', 'customer.deleted') order by type desc`,
  );
}

describe("merging two customers", () => {
  it("moves orders, appointments and inquiries, keeps the richer fields, and emits both events", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx);
    const kept = await t.api.post(
      "/api/vendor/customers",
      { name: "Clara Weiß", phone: "+49 170 1234567", measurements: { waist: 70, hips: 96 } },
      { key },
    );
    const dup = await t.api.post(
      "/api/vendor/customers",
      {
        name: "Clara Weiss",
        email: "clara@example.com",
        phone: "+49 30 999",
        weddingDate: "2027-06-12",
        notes: "prefers Saturdays",
        measurements: { waist: 72, bust: 88 },
      },
      { key },
    );
    const order = await t.api.post(
      "/api/vendor/orders",
      { customerId: dup.body.id, type: "BRIDAL_DRESS" },
      { key },
    );
    const appointment = await t.api.post(
      "/api/vendor/appointments",
      { customerId: dup.body.id, orderId: order.body.id, type: "FITTING", date: "2027-05-01T10:00:00Z" },
      { key },
    );
    const inquiry = await t.api.post(
      `/api/public/vendors/${vendor.id}/inquiries`,
      { name: "Clara", email: "Clara@Example.com", message: "Hello" },
      {},
    );
    expect([order.status, appointment.status, inquiry.status]).toEqual([201, 201, 201]);

    const merged = await t.api.post(
      `/api/vendor/customers/${kept.body.id}/merge`,
      { from: dup.body.id },
      { key },
    );
    expect(merged.status).toBe(200);
    expect(merged.body).toMatchObject({
      id: kept.body.id,
      name: "Clara Weiß",
      email: "clara@example.com",
      phone: "+49 170 1234567",
      weddingDate: "2027-06-12",
      notes: "prefers Saturdays",
      measurements: { waist: 70, hips: 96, bust: 88 },
      counts: { orders: 1, appointments: 1 },
    });
    expect((await t.api.get(`/api/vendor/customers/${dup.body.id}`, { key })).status).toBe(404);
    expect((await t.api.get(`/api/vendor/orders/${order.body.id}`, { key })).body.customerId).toBe(
      kept.body.id,
    );
    expect(
      (await t.api.get(`/api/vendor/appointments/${appointment.body.id}`, { key })).body.customerId,
    ).toBe(kept.body.id);

    const events = await eventsOf(vendor.id);
    expect(events.map((e) => [e.type, e.data.id, e.data.mergedInto])).toEqual([
      ["customer.updated", kept.body.id, undefined],
      ["customer.deleted", dup.body.id, kept.body.id],
    ]);
    // The inquiry is hers now: erasing the kept customer takes it with her.
    expect((await t.api.delete(`/api/vendor/customers/${kept.body.id}`, { key })).status).toBe(204);
    expect((await t.api.get(`/api/vendor/inquiries/${inquiry.body.id}`, { key })).status).toBe(404);
  });

  it("writes one activity entry naming both ids", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx);
    const a = await t.api.post("/api/vendor/customers", { name: "A" }, { key });
    const b = await t.api.post("/api/vendor/customers", { name: "B" }, { key });
    await t.api.post(`/api/vendor/customers/${a.body.id}/merge`, { from: b.body.id }, { key });
    const rows = await queryRows<{ action: string; subject_id: string; detail: { from: string } }>(
      t.ctx.db,
      sql`select action, subject_id, detail from activity where vendor_id = ${vendor.id} and action = 'customer.merged'`,
    );
    expect(rows).toEqual([
      {
        action: "customer.merged",
        subject_id: a.body.id,
        detail: expect.objectContaining({ from: b.body.id }),
      },
    ]);
  });

  it("another shop's customer, an unknown id or the customer itself is refused, and nothing changes", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const other = await createVendorWithKey(t.ctx);
    const theirs = await t.api.post("/api/vendor/customers", { name: "Theirs" }, { key: other.key });
    const mine = await t.api.post("/api/vendor/customers", { name: "Mine" }, { key });
    const fromTheirs = await t.api.post(
      `/api/vendor/customers/${mine.body.id}/merge`,
      { from: theirs.body.id },
      { key },
    );
    expect(fromTheirs.status).toBe(404);
    expect(JSON.stringify(fromTheirs.body)).not.toContain("Theirs");
    const unknown = await t.api.post(
      `/api/vendor/customers/${mine.body.id}/merge`,
      { from: "nope" },
      { key },
    );
    expect(unknown.status).toBe(404);
    const itself = await t.api.post(
      `/api/vendor/customers/${mine.body.id}/merge`,
      { from: mine.body.id },
      { key },
    );
    expect(itself.status).toBe(400);
    expect(itself.body).toMatchObject({ code: "validation_failed", errors: [{ field: "from" }] });
    const missing = await t.api.post(`/api/vendor/customers/${mine.body.id}/merge`, {}, { key });
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0].field).toBe("from");
    expect((await t.api.get(`/api/vendor/customers/${theirs.body.id}`, { key: other.key })).status).toBe(200);
  });
});

describe("a merge seen by a client that polls", () => {
  it("leaves a tombstone of the merged-away customer in includeDeleted lists, and answers the kept one with its ETag", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const since = new Date(Date.now() - 60_000).toISOString();
    const kept = await t.api.post("/api/vendor/customers", { name: "Clara Weiß" }, { key });
    const dup = await t.api.post("/api/vendor/customers", { name: "Clara Weiss" }, { key });
    const merged = await t.api.post(
      `/api/vendor/customers/${kept.body.id}/merge`,
      { from: dup.body.id },
      { key },
    );
    expect(merged.status).toBe(200);
    const read = await t.api.get(`/api/vendor/customers/${kept.body.id}`, { key });
    expect(merged.headers.get("etag")).toBeDefined();
    expect(merged.headers.get("etag")).toBe(read.headers.get("etag"));

    // A sync list shows a row once every older transaction has ended (another file's may hold it).
    const list = await readSyncList(
      t,
      `/api/vendor/customers?updatedSince=${encodeURIComponent(since)}&includeDeleted=true`,
      key,
      (body) => body.customers.some((c: { id: string }) => c.id === dup.body.id),
    );
    expect(list.status).toBe(200);
    const tombstone = list.body.customers.find((c: { id: string }) => c.id === dup.body.id);
    expect(tombstone).toMatchObject({ id: dup.body.id, deleted: true });
    expect(list.body.customers.find((c: { id: string }) => c.id === kept.body.id)?.deleted).toBeUndefined();
  });
});
