// CONTRACT 12, Deletions: appointment.deleted (`data: { id }`) for a DELETE and for each
// appointment an erasure removes; with updatedSince and includeDeleted=true the lists of orders,
// customers and appointments carry tombstones `{ id, deleted: true, updatedAt }` (updatedAt = the
// deletion's time), in the list's (updatedAt, id) order, for 30 days. Without includeDeleted the
// lists stay as they were.
import { describe, expect, it } from "vitest";
import { purgeExpiredCredentials } from "../../src/maintenance/housekeeping.ts";
import { recordDeletion } from "../../src/modules/sync/record-deletion.repository.ts";
import { nextMillisecond } from "../helpers/clock.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";
import { eventually } from "../helpers/webhook-receiver.ts";

const t = useTestApp();

type Item = { id: string; deleted?: true; updatedAt: string };

/** One sync pass: every page of `path?updatedSince=since&includeDeleted=true`, in order. */
async function syncPass(key: string, resource: string, since: string, limit = 100): Promise<Item[]> {
  const items: Item[] = [];
  let cursor: string | undefined;
  do {
    const query = `updatedSince=${since}&includeDeleted=true&limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`;
    const res = await t.api.get(`/api/vendor/${resource}?${query}`, { key });
    expect(res.status).toBe(200);
    items.push(...res.body[resource]);
    cursor = res.body.nextCursor ?? undefined;
  } while (cursor);
  return items;
}

/** The pass once every id in `ids` shows (the sync horizon may hold a row back for a moment). */
const passShowing = (key: string, resource: string, since: string, ids: string[], limit = 100) =>
  eventually(async () => {
    const items = await syncPass(key, resource, since, limit);
    return ids.every((id) => items.some((i) => i.id === id)) && items;
  });

async function eventsOfType(key: string, type: string) {
  const res = await t.api.get(`/api/vendor/events?type=${type}`, { key });
  expect(res.status).toBe(200);
  return res.body.events as Array<{ event: string; data: { id: string } }>;
}

async function shop() {
  const { key, vendor } = await createVendorWithKey(t.ctx);
  const customer = await t.api.post("/api/vendor/customers", { name: "Clara Weiß" }, { key });
  return { key, vendorId: vendor.id as string, customerId: customer.body.id as string };
}

const book = (key: string, customerId: string, date = "2027-03-29T10:00:00Z") =>
  t.api.post("/api/vendor/appointments", { customerId, type: "FITTING", date }, { key });

describe("a deleted appointment", () => {
  it("emits appointment.deleted with only its id, and leaves a tombstone in the includeDeleted list", async () => {
    const { key, customerId } = await shop();
    const since = new Date().toISOString();
    const kept = await book(key, customerId);
    const gone = await book(key, customerId, "2027-03-30T10:00:00Z");
    const del = await t.api.delete(`/api/vendor/appointments/${gone.body.id}`, { key });
    expect(del.status).toBe(204);

    const events = await eventsOfType(key, "appointment.deleted");
    expect(events.map((e) => e.data)).toEqual([{ id: gone.body.id }]);

    const items = await passShowing(key, "appointments", since, [kept.body.id, gone.body.id]);
    const tombstone = items.find((i) => i.id === gone.body.id);
    expect(tombstone).toEqual({ id: gone.body.id, deleted: true, updatedAt: expect.any(String) });
    expect(Date.parse(tombstone?.updatedAt as string)).toBeGreaterThanOrEqual(
      Date.parse(kept.body.updatedAt),
    );
    expect(items.find((i) => i.id === kept.body.id)).toMatchObject({ id: kept.body.id, status: "PROPOSED" });

    // Without includeDeleted the list is as it was: rows only.
    const plain = await t.api.get(`/api/vendor/appointments?updatedSince=${since}`, { key });
    expect(plain.body.appointments.map((a: Item) => a.id)).toEqual([kept.body.id]);
  });

  it("a tombstone older than the window does not show, and one older than 30 days is pruned", async () => {
    const { key, vendorId, customerId } = await shop();
    const gone = await book(key, customerId);
    await t.api.delete(`/api/vendor/appointments/${gone.body.id}`, { key });
    await nextMillisecond();
    const after = new Date().toISOString();
    const later = await syncPass(key, "appointments", after);
    expect(later.map((i) => i.id)).not.toContain(gone.body.id);
    const since = "1970-01-01T00:00:00Z";
    await passShowing(key, "appointments", since, [gone.body.id]);
    // One deleted 31 days ago goes with the housekeeping; today's stays.
    const day = 24 * 3600 * 1000;
    const old = new Date(Date.now() - 31 * day);
    await recordDeletion(t.ctx.db, { vendorId, resource: "appointments", id: "zzoldtombstone", at: old });
    await passShowing(key, "appointments", since, ["zzoldtombstone"]);
    await purgeExpiredCredentials(t.ctx.db, new Date());
    const pruned = await syncPass(key, "appointments", since);
    expect(pruned.map((i) => i.id)).toEqual([gone.body.id]);
  });
});

describe("an erasure", () => {
  it("emits appointment.deleted for each appointment it removes and leaves tombstones of the customer and them", async () => {
    const { key, customerId } = await shop();
    const since = new Date().toISOString();
    const a1 = await book(key, customerId);
    const a2 = await book(key, customerId, "2027-04-01T10:00:00Z");
    const other = await t.api.post("/api/vendor/customers", { name: "Bea" }, { key });
    const erase = await t.api.delete(`/api/vendor/customers/${customerId}`, { key });
    expect(erase.status).toBe(204);

    const events = await eventsOfType(key, "appointment.deleted");
    expect(events.map((e) => e.data.id).sort()).toEqual([a1.body.id, a2.body.id].sort());
    for (const e of events) expect(Object.keys(e.data)).toEqual(["id"]);

    const appointments = await passShowing(key, "appointments", since, [a1.body.id, a2.body.id]);
    expect(
      appointments
        .filter((i) => i.deleted)
        .map((i) => i.id)
        .sort(),
    ).toEqual([a1.body.id, a2.body.id].sort());
    expect(appointments.every((i) => i.deleted)).toBe(true);

    const customers = await passShowing(key, "customers", since, [customerId, other.body.id]);
    expect(customers.find((i) => i.id === customerId)).toEqual({
      id: customerId,
      deleted: true,
      updatedAt: expect.any(String),
    });
    expect(customers.find((i) => i.id === other.body.id)).toMatchObject({ name: "Bea" });
  });
});

describe("pages of a sync list with tombstones", () => {
  it("merge rows and tombstones by (updatedAt, id) newest first: every item once, whatever the page size", async () => {
    const { key, customerId } = await shop();
    const since = new Date().toISOString();
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const a = await book(key, customerId, `2027-05-0${i + 1}T10:00:00Z`);
      ids.push(a.body.id);
      await nextMillisecond();
    }
    for (const id of [ids[1], ids[4], ids[5]]) {
      await t.api.delete(`/api/vendor/appointments/${id}`, { key });
      await nextMillisecond();
    }
    await t.api.patch(`/api/vendor/appointments/${ids[0]}`, { notes: "moved" }, { key });
    const whole = await passShowing(key, "appointments", since, ids);
    const order = (items: Item[]) => items.map((i) => `${i.updatedAt} ${i.id}`);
    expect(order(whole)).toEqual(order(whole).slice().sort().reverse());
    expect(
      whole
        .filter((i) => i.deleted)
        .map((i) => i.id)
        .sort(),
    ).toEqual([ids[1], ids[4], ids[5]].sort());
    for (const limit of [1, 2, 3]) {
      const paged = await syncPass(key, "appointments", since, limit);
      expect(paged).toEqual(whole);
    }
  });

  it("orders and customers carry tombstones recorded by recordDeletion (what a merge calls) in the same order", async () => {
    const { key, vendorId } = await shop();
    const since = new Date().toISOString();
    const order = await t.api.post("/api/vendor/orders", { customerName: "Ana", type: "SUIT" }, { key });
    await nextMillisecond();
    await recordDeletion(t.ctx.db, { vendorId, resource: "orders", id: "zzmergedorder", at: new Date() });
    const items = await passShowing(key, "orders", since, [order.body.id, "zzmergedorder"], 1);
    expect(items.map((i) => i.id)).toEqual(["zzmergedorder", order.body.id]);
    expect(items[0]).toEqual({ id: "zzmergedorder", deleted: true, updatedAt: expect.any(String) });
    const plain = await t.api.get(`/api/vendor/orders?updatedSince=${since}`, { key });
    expect(plain.body.orders.map((o: Item) => o.id)).toEqual([order.body.id]);
  });

  it.each(["orders", "customers", "appointments"])(
    "%s: includeDeleted without updatedSince is 400 validation_failed naming includeDeleted",
    async (resource) => {
      const { key } = await shop();
      const res = await t.api.get(`/api/vendor/${resource}?includeDeleted=true`, { key });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("validation_failed");
      expect(res.body.errors[0].field).toBe("includeDeleted");
    },
  );
});
