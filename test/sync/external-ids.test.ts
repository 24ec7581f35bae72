// CONTRACT 12, Orders and customers: the integrator's own ids and pairs on customers and
// appointments: settable on create and update, unique per shop and resource (409
// external_id_taken naming externalId), bounded (validation_failed naming the field), filterable
// with ?externalId=, and in every event's data.
import { describe, expect, it } from "vitest";
import { eventsAbout } from "../helpers/events.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

async function shopWithCustomer() {
  const { key } = await createVendorWithKey(t.ctx);
  const customer = await t.api.post("/api/vendor/customers", { name: "Clara Weiß" }, { key });
  expect(customer.status).toBe(201);
  return { key, customerId: customer.body.id as string };
}

const appointmentBody = (customerId: string, extra: object = {}) => ({
  customerId,
  type: "FITTING",
  date: "2027-03-29T10:00:00+01:00",
  ...extra,
});

describe("externalId and metadata on customers", () => {
  it("are set on create and update, shown, filterable, and in the events' data", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const created = await t.api.post(
      "/api/vendor/customers",
      { name: "Ana", externalId: "pos-1", metadata: { till: "2" } },
      { key },
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ externalId: "pos-1", metadata: { till: "2" } });
    const other = await t.api.post("/api/vendor/customers", { name: "Bea" }, { key });
    expect(other.body).toMatchObject({ externalId: null, metadata: {} });

    const updated = await t.api.patch(
      `/api/vendor/customers/${other.body.id}`,
      { externalId: "pos-2", metadata: { posId: "2" } },
      { key },
    );
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ externalId: "pos-2", metadata: { posId: "2" } });

    const found = await t.api.get("/api/vendor/customers?externalId=pos-2", { key });
    expect(found.body.customers.map((c: { id: string }) => c.id)).toEqual([other.body.id]);
    const none = await t.api.get("/api/vendor/customers?externalId=pos-3", { key });
    expect(none.body.customers).toEqual([]);

    const events = await eventsAbout(t, other.body.id);
    expect(events.map((e) => [e.type, (e.data as { externalId: unknown }).externalId])).toEqual([
      ["customer.created", null],
      ["customer.updated", "pos-2"],
    ]);
    const createdEvents = await eventsAbout(t, created.body.id);
    expect(createdEvents[0]?.data).toMatchObject({ externalId: "pos-1", metadata: { till: "2" } });
  });

  it("a taken externalId is 409 external_id_taken naming externalId, on create and on update", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const first = await t.api.post("/api/vendor/customers", { name: "Ana", externalId: "x-1" }, { key });
    const clash = await t.api.post("/api/vendor/customers", { name: "Bea", externalId: "x-1" }, { key });
    expect(clash.status).toBe(409);
    expect(clash.body).toMatchObject({
      code: "external_id_taken",
      errors: [{ field: "externalId" }],
      existingId: first.body.id,
    });
    const second = await t.api.post("/api/vendor/customers", { name: "Bea" }, { key });
    const updateClash = await t.api.put(
      `/api/vendor/customers/${second.body.id}`,
      { externalId: "x-1" },
      { key },
    );
    expect(updateClash.status).toBe(409);
    expect(updateClash.body).toMatchObject({ code: "external_id_taken", errors: [{ field: "externalId" }] });
    // Setting a record's own externalId again is no clash.
    const same = await t.api.patch(`/api/vendor/customers/${first.body.id}`, { externalId: "x-1" }, { key });
    expect(same.status).toBe(200);
    // Another shop may use the same id.
    const elsewhere = await createVendorWithKey(t.ctx);
    const theirs = await t.api.post(
      "/api/vendor/customers",
      { name: "Ana", externalId: "x-1" },
      { key: elsewhere.key },
    );
    expect(theirs.status).toBe(201);
  });

  it.each([
    ["an externalId over 255 characters", { externalId: "x".repeat(256) }, "externalId"],
    ["an empty externalId", { externalId: "" }, "externalId"],
    [
      "51 metadata keys",
      { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, "v"])) },
      "metadata",
    ],
    ["a metadata key over 40 characters", { metadata: { ["k".repeat(41)]: "v" } }, "metadata"],
    ["a metadata value over 500 characters", { metadata: { k: "v".repeat(501) } }, "metadata.k"],
    ["a metadata value that is not a string", { metadata: { k: 1 } }, "metadata.k"],
  ])("%s is 400 validation_failed naming the field", async (_, extra, field) => {
    const { key } = await createVendorWithKey(t.ctx);
    const res = await t.api.post("/api/vendor/customers", { name: "Ana", ...extra }, { key });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("validation_failed");
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
  });

  it("50 keys of 40 characters with values of 500 are accepted", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const metadata = Object.fromEntries(
      Array.from({ length: 50 }, (_, i) => [`${i}`.padStart(40, "k"), "v".repeat(500)]),
    );
    const res = await t.api.post(
      "/api/vendor/customers",
      { name: "Ana", externalId: "x".repeat(255), metadata },
      { key },
    );
    expect(res.status).toBe(201);
    expect(res.body.metadata).toEqual(metadata);
  });
});

describe("externalId and metadata on appointments", () => {
  it("are set on create and update, shown, filterable, and in the events' data", async () => {
    const { key, customerId } = await shopWithCustomer();
    const created = await t.api.post(
      "/api/vendor/appointments",
      appointmentBody(customerId, { externalId: "cal-1", metadata: { room: "2" } }),
      { key },
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ externalId: "cal-1", metadata: { room: "2" } });
    const other = await t.api.post("/api/vendor/appointments", appointmentBody(customerId), { key });
    expect(other.body).toMatchObject({ externalId: null, metadata: {} });
    const updated = await t.api.patch(
      `/api/vendor/appointments/${other.body.id}`,
      { externalId: "cal-2", metadata: { room: "3" } },
      { key },
    );
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ externalId: "cal-2", metadata: { room: "3" } });

    const found = await t.api.get("/api/vendor/appointments?externalId=cal-2", { key });
    expect(found.body.appointments.map((a: { id: string }) => a.id)).toEqual([other.body.id]);

    const events = await eventsAbout(t, other.body.id);
    expect(events.map((e) => [e.type, (e.data as { externalId: unknown }).externalId])).toEqual([
      ["appointment.created", null],
      ["appointment.updated", "cal-2"],
    ]);
  });

  it("a taken externalId is 409 external_id_taken naming externalId, on create and on update", async () => {
    const { key, customerId } = await shopWithCustomer();
    const first = await t.api.post(
      "/api/vendor/appointments",
      appointmentBody(customerId, { externalId: "cal-1" }),
      { key },
    );
    const clash = await t.api.post(
      "/api/vendor/appointments",
      appointmentBody(customerId, { externalId: "cal-1" }),
      { key },
    );
    expect(clash.status).toBe(409);
    expect(clash.body).toMatchObject({
      code: "external_id_taken",
      errors: [{ field: "externalId" }],
      existingId: first.body.id,
    });
    const second = await t.api.post("/api/vendor/appointments", appointmentBody(customerId), { key });
    const updateClash = await t.api.put(
      `/api/vendor/appointments/${second.body.id}`,
      { externalId: "cal-1" },
      { key },
    );
    expect(updateClash.status).toBe(409);
    expect(updateClash.body).toMatchObject({ code: "external_id_taken", errors: [{ field: "externalId" }] });
    // A customer's externalId does not clash with an appointment's.
    const customer = await t.api.post("/api/vendor/customers", { name: "Bea", externalId: "cal-1" }, { key });
    expect(customer.status).toBe(201);
  });

  it("a metadata value over 500 characters is 400 validation_failed naming the field", async () => {
    const { key, customerId } = await shopWithCustomer();
    const res = await t.api.post(
      "/api/vendor/appointments",
      appointmentBody(customerId, { metadata: { room: "v".repeat(501) } }),
      { key },
    );
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain("metadata.room");
  });
});
