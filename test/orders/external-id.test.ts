// CONTRACT 12: an order's externalId (≤ 255, unique per shop among orders, a clash is 409
// external_id_taken naming it, ?externalId= filters) and metadata (≤ 50 keys of ≤ 40 chars,
// string values ≤ 500), on create and PATCH, in every order event's data.
import { describe, expect, it } from "vitest";
import { eventsAbout } from "../helpers/events.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();
const order = (extra: Record<string, unknown>) => ({ customerName: "Clara", type: "SUIT", ...extra });

describe("an order's externalId and metadata", () => {
  it("are kept on create, read back, and carried by order.created, order.updated and order.status_changed", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const created = await t.api.post(
      "/api/vendor/orders",
      order({ externalId: "pos-4711", metadata: { till: "2", note: "ü" } }),
      { key },
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ externalId: "pos-4711", metadata: { till: "2", note: "ü" } });
    // Compact as the rest of the order's text.
    expect(created.text).toBe(JSON.stringify(created.body));
    const { id } = created.body;
    const patched = await t.api.patch(`/api/vendor/orders/${id}`, { metadata: { till: "3" } }, { key });
    expect(patched.body).toMatchObject({ externalId: "pos-4711", metadata: { till: "3" } });
    await t.api.put(`/api/vendor/orders/${id}/status`, { status: "IN_PRODUCTION" }, { key });
    const events = await eventsAbout(t, id);
    expect(events.map((e) => [e.type, e.data.number, e.data.externalId, e.data.metadata])).toEqual([
      ["order.created", 1001, "pos-4711", { till: "2", note: "ü" }],
      ["order.updated", 1001, "pos-4711", { till: "3" }],
      ["order.status_changed", 1001, "pos-4711", { till: "3" }],
    ]);
    const cleared = await t.api.patch(
      `/api/vendor/orders/${id}`,
      { externalId: null, metadata: null },
      { key },
    );
    expect(cleared.body).toMatchObject({ externalId: null, metadata: {} });
  });

  it("a taken externalId is 409 external_id_taken naming the field, on create and on PATCH; another shop may use it", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const other = await createVendorWithKey(t.ctx);
    await t.api.post("/api/vendor/orders", order({ externalId: "pos-1" }), { key });
    const clash = await t.api.post("/api/vendor/orders", order({ externalId: "pos-1" }), { key });
    expect(clash.status).toBe(409);
    expect(clash.body).toMatchObject({ code: "external_id_taken", errors: [{ field: "externalId" }] });
    const second = await t.api.post("/api/vendor/orders", order({ externalId: "pos-2" }), { key });
    const patch = await t.api.patch(`/api/vendor/orders/${second.body.id}`, { externalId: "pos-1" }, { key });
    expect(patch.status).toBe(409);
    expect(patch.body).toMatchObject({ code: "external_id_taken", errors: [{ field: "externalId" }] });
    const theirs = await t.api.post("/api/vendor/orders", order({ externalId: "pos-1" }), { key: other.key });
    expect(theirs.status).toBe(201);
  });

  it("a clash under an Idempotency-Key is a 409 too, remembered for the key, and the order stands", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const first = await t.api.post("/api/vendor/orders", order({ externalId: "pos-7" }), { key });
    const headers = { "idempotency-key": "clash-1" };
    const clash = await t.api.post("/api/vendor/orders", order({ externalId: "pos-7" }), { key, headers });
    expect(clash.status).toBe(409);
    expect(clash.body).toMatchObject({ code: "external_id_taken", errors: [{ field: "externalId" }] });
    const again = await t.api.post("/api/vendor/orders", order({ externalId: "pos-7" }), { key, headers });
    expect([again.status, again.headers.get("idempotent-replayed")]).toEqual([409, "true"]);
    const found = await t.api.get("/api/vendor/orders?externalId=pos-7", { key });
    expect(found.body.orders.map((o: { id: string }) => o.id)).toEqual([first.body.id]);
  });

  it("?externalId= finds the shop's order and only it", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const other = await createVendorWithKey(t.ctx);
    await t.api.post("/api/vendor/orders", order({ externalId: "pos-9" }), { key: other.key });
    const mine = await t.api.post("/api/vendor/orders", order({ externalId: "pos-9" }), { key });
    await t.api.post("/api/vendor/orders", order({ externalId: "pos-10" }), { key });
    const found = await t.api.get("/api/vendor/orders?externalId=pos-9", { key });
    expect(found.body.orders.map((o: { id: string }) => o.id)).toEqual([mine.body.id]);
    const none = await t.api.get("/api/vendor/orders?externalId=nope", { key });
    expect(none.body.orders).toEqual([]);
  });

  const over: Array<[string, Record<string, unknown>, RegExp]> = [
    ["externalId over 255 characters", { externalId: "x".repeat(256) }, /^externalId/],
    ["empty externalId", { externalId: "" }, /^externalId/],
    [
      "51 metadata keys",
      { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, "v"])) },
      /^metadata/,
    ],
    ["a metadata key of 41 characters", { metadata: { ["k".repeat(41)]: "v" } }, /^metadata/],
    ["a metadata value of 501 characters", { metadata: { k: "v".repeat(501) } }, /^metadata/],
    ["a metadata value that is not a string", { metadata: { k: 1 } }, /^metadata/],
    ["metadata that is an array", { metadata: ["a"] }, /^metadata/],
  ];
  it.each(over)("%s is validation_failed naming the field, on create and PATCH", async (_, extra, field) => {
    const { key } = await createVendorWithKey(t.ctx);
    const created = await t.api.post("/api/vendor/orders", order(extra), { key });
    expect(created.status).toBe(400);
    expect(created.body.code).toBe("validation_failed");
    expect(created.body.errors[0].field).toMatch(field);
    const ok = await t.api.post("/api/vendor/orders", order({}), { key });
    const patched = await t.api.patch(`/api/vendor/orders/${ok.body.id}`, extra, { key });
    expect(patched.status).toBe(400);
    expect(patched.body.errors[0].field).toMatch(field);
  });

  it("50 keys of 40 characters with values of 500 are accepted", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const metadata = Object.fromEntries(
      Array.from({ length: 50 }, (_, i) => [`${i}`.padStart(40, "k"), "v".repeat(500)]),
    );
    const created = await t.api.post("/api/vendor/orders", order({ metadata }), { key });
    expect(created.status).toBe(201);
    expect(created.body.metadata).toEqual(metadata);
  });
});
