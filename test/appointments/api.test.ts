import { describe, expect, it } from "vitest";
import { appointmentStatuses } from "../../src/modules/appointments/appointments.workflow.ts";
import { nextMillisecond } from "../helpers/clock.ts";
import { eventsAbout } from "../helpers/events.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { readSyncList } from "../helpers/sync.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

async function vendorWithCustomer() {
  const { vendor, key } = await createVendorWithKey(t.ctx);
  const c = await t.api.post("/api/vendor/customers", { name: "Bride", email: "bride@example.com" }, { key });
  return { vendor, key, customerId: c.body.id as string };
}

async function book(key: string, body: Record<string, unknown>) {
  return t.api.post("/api/vendor/appointments", body, { key });
}

/** Brings a new appointment to `status` through allowed moves. */
async function appointmentIn(key: string, customerId: string, status: string): Promise<string> {
  const res = await book(key, { customerId, type: "FITTING", date: "2027-04-01T09:00:00Z" });
  const id = res.body.id as string;
  const path: Record<string, string[]> = {
    PROPOSED: [],
    CONFIRMED: ["CONFIRMED"],
    COMPLETED: ["CONFIRMED", "COMPLETED"],
    CANCELLED: ["CANCELLED"],
  };
  for (const step of path[status] ?? []) {
    const moved = await t.api.patch(`/api/vendor/appointments/${id}`, { status: step }, { key });
    if (moved.status !== 200) throw new Error(`setup move to ${step}: ${moved.text}`);
  }
  return id;
}

describe("POST /api/vendor/appointments", () => {
  it("creates a PROPOSED appointment (201) in the CONTRACT 5 shape, duration defaulting to 60", async () => {
    const { key, customerId } = await vendorWithCustomer();
    const res = await book(key, {
      customerId,
      type: "CONSULTATION",
      date: "2027-02-01T15:30:00Z",
      notes: "First visit",
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(
      [
        "id",
        "customerId",
        "orderId",
        "type",
        "status",
        "date",
        "duration",
        "notes",
        "externalId",
        "metadata",
        "createdAt",
        "updatedAt",
      ].sort(),
    );
    expect(res.body).toMatchObject({
      customerId,
      orderId: null,
      type: "CONSULTATION",
      status: "PROPOSED",
      date: "2027-02-01T15:30:00.000Z",
      duration: 60,
      notes: "First visit",
    });
    const read = await t.api.get(`/api/vendor/appointments/${res.body.id}`, { key });
    expect(read.body).toEqual(res.body);
  });

  it("keeps the instant exactly: 10:00 Europe/Lisbon the day after the clock change comes back as the same instant", async () => {
    const { key, customerId } = await vendorWithCustomer();
    // Portugal moved to WEST (+01:00) on 2027-03-28; a fitting at 10:00 local the next day.
    const local = "2027-03-29T10:00:00+01:00";
    const res = await book(key, { customerId, type: "FITTING", date: local });
    expect(res.status).toBe(201);
    expect(res.body.date).toBe("2027-03-29T09:00:00.000Z");
    const read = await t.api.get(`/api/vendor/appointments/${res.body.id}`, { key });
    expect(Date.parse(read.body.date)).toBe(Date.parse(local));
    // And the Lisbon wall clock of that instant is still 10:00.
    const wall = new Intl.DateTimeFormat("en-GB", {
      timeZone: "Europe/Lisbon",
      hour: "2-digit",
      minute: "2-digit",
    }).format(new Date(read.body.date));
    expect(wall).toBe("10:00");
  });

  it("a date without an offset is 400 naming date", async () => {
    const { key, customerId } = await vendorWithCustomer();
    for (const date of ["2027-03-29T10:00:00", "2027-03-29", "tomorrow", "2027-13-01T10:00:00Z"]) {
      const res = await book(key, { customerId, type: "FITTING", date });
      expect(res.status, date).toBe(400);
      expect(res.body.errors[0].field).toBe("date");
    }
  });

  it("duration outside 15-480, or not an integer, is 400 naming duration", async () => {
    const { key, customerId } = await vendorWithCustomer();
    for (const duration of [14, 481, 30.5, "60"]) {
      const res = await book(key, { customerId, type: "FITTING", date: "2027-01-01T10:00:00Z", duration });
      expect(res.status).toBe(400);
      expect(res.body.errors[0].field).toBe("duration");
    }
    for (const duration of [15, 480]) {
      const res = await book(key, { customerId, type: "FITTING", date: "2027-01-01T10:00:00Z", duration });
      expect(res.status).toBe(201);
      expect(res.body.duration).toBe(duration);
    }
  });

  it("an unknown type is 400 listing the allowed values", async () => {
    const { key, customerId } = await vendorWithCustomer();
    const res = await book(key, { customerId, type: "DINNER", date: "2027-01-01T10:00:00Z" });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toEqual({
      field: "type",
      message: "must be one of: CONSULTATION, FITTING, PICKUP",
    });
  });

  it("another vendor's customer, or an unknown one, is 400 unknown_reference naming customerId", async () => {
    const { key } = await vendorWithCustomer();
    const other = await vendorWithCustomer();
    for (const customerId of [other.customerId, "tz4a98xxat96iws9zmbrgj3a", "not a cuid"]) {
      const res = await book(key, { customerId, type: "FITTING", date: "2027-01-01T10:00:00Z" });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("unknown_reference");
      expect(res.body.errors).toEqual([{ field: "customerId", message: expect.any(String) }]);
    }
  });

  it("orderId must be an order of the same vendor and the same customer, else 400 unknown_reference naming orderId", async () => {
    const { key, customerId } = await vendorWithCustomer();
    const mine = await t.api.post(
      "/api/vendor/orders",
      { customerName: "Bride", customerEmail: "bride@example.com", type: "BRIDAL_DRESS" },
      { key },
    );
    const othersCustomer = await t.api.post(
      "/api/vendor/orders",
      { customerName: "Someone", type: "SUIT" },
      { key },
    );
    const otherVendor = await createVendorWithKey(t.ctx);
    const foreign = await t.api.post(
      "/api/vendor/orders",
      { customerName: "X", type: "SUIT" },
      { key: otherVendor.key },
    );

    const ok = await book(key, {
      customerId,
      type: "FITTING",
      date: "2027-01-01T10:00:00Z",
      orderId: mine.body.id,
    });
    expect(ok.status).toBe(201);
    expect(ok.body.orderId).toBe(mine.body.id);
    for (const orderId of [othersCustomer.body.id, foreign.body.id, "tz4a98xxat96iws9zmbrgj3a"]) {
      const res = await book(key, { customerId, type: "FITTING", date: "2027-01-01T10:00:00Z", orderId });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("unknown_reference");
      expect(res.body.errors[0].field).toBe("orderId");
    }
  });
});

describe("appointment status moves through PATCH and PUT (spec 3.1)", () => {
  const allowed = new Set([
    "PROPOSED>CONFIRMED",
    "PROPOSED>CANCELLED",
    "CONFIRMED>COMPLETED",
    "CONFIRMED>CANCELLED",
  ]);
  for (const from of appointmentStatuses) {
    for (const to of appointmentStatuses) {
      if (from === to) continue;
      const ok = allowed.has(`${from}>${to}`);
      it(`${from} → ${to}: ${ok ? "200" : "409 invalid_transition, nothing changes"}`, async () => {
        const { key, customerId } = await vendorWithCustomer();
        const id = await appointmentIn(key, customerId, from);
        const res = await t.api.patch(
          `/api/vendor/appointments/${id}`,
          { status: to, notes: "moved" },
          { key },
        );
        const read = await t.api.get(`/api/vendor/appointments/${id}`, { key });
        if (ok) {
          expect(res.status).toBe(200);
          expect(res.body.status).toBe(to);
          expect(read.body.status).toBe(to);
        } else {
          expect(res.status).toBe(409);
          expect(res.body.code).toBe("invalid_transition");
          expect(read.body).toMatchObject({ status: from, notes: null });
        }
      });
    }
  }

  it("PUT has the same partial semantics as PATCH, and null clears notes and orderId", async () => {
    const { key, customerId } = await vendorWithCustomer();
    const order = await t.api.post(
      "/api/vendor/orders",
      { customerName: "Bride", customerEmail: "bride@example.com", type: "RENTAL" },
      { key },
    );
    const a = await book(key, {
      customerId,
      type: "PICKUP",
      date: "2027-01-01T10:00:00Z",
      notes: "n",
      orderId: order.body.id,
      duration: 30,
    });
    const res = await t.api.put(
      `/api/vendor/appointments/${a.body.id}`,
      { notes: null, orderId: null },
      { key },
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ...a.body, notes: null, orderId: null, updatedAt: expect.any(String) });
    expect(res.body.updatedAt > a.body.updatedAt).toBe(true);
  });

  it("repeating the current status (a PUT of the whole object) is accepted and emits nothing", async () => {
    const { key, customerId } = await vendorWithCustomer();
    const id = await appointmentIn(key, customerId, "CONFIRMED");
    const res = await t.api.put(
      `/api/vendor/appointments/${id}`,
      { status: "CONFIRMED", duration: 90 },
      { key },
    );
    expect(res.status).toBe(200);
    expect(res.body.duration).toBe(90);
    // No second appointment.confirmed; the new duration is a change of the details.
    expect((await eventsAbout(t, id)).map((e) => e.type)).toEqual([
      "appointment.created",
      "appointment.confirmed",
      "appointment.updated",
    ]);
  });

  it("CONFIRMED emits appointment.confirmed and CANCELLED appointment.cancelled, with the appointment as data", async () => {
    const { key, customerId } = await vendorWithCustomer();
    const a = await book(key, { customerId, type: "FITTING", date: "2027-01-01T10:00:00Z" });
    const confirmed = await t.api.patch(
      `/api/vendor/appointments/${a.body.id}`,
      { status: "CONFIRMED" },
      { key },
    );
    const cancelled = await t.api.patch(
      `/api/vendor/appointments/${a.body.id}`,
      { status: "CANCELLED" },
      { key },
    );
    const events = await eventsAbout(t, a.body.id);
    expect(events.map((e) => e.type)).toEqual([
      "appointment.created",
      "appointment.confirmed",
      "appointment.cancelled",
    ]);
    expect(events[1]?.data).toEqual(confirmed.body);
    expect(events[2]?.data).toEqual(cancelled.body);
  });

  it("a refused move emits nothing", async () => {
    const { key, customerId } = await vendorWithCustomer();
    const id = await appointmentIn(key, customerId, "COMPLETED");
    await t.api.patch(`/api/vendor/appointments/${id}`, { status: "CANCELLED" }, { key });
    expect((await eventsAbout(t, id)).map((e) => e.type)).toEqual([
      "appointment.created",
      "appointment.confirmed",
      "appointment.completed",
    ]);
  });

  it("an update naming another vendor's customer or order is 400 unknown_reference", async () => {
    const { key, customerId } = await vendorWithCustomer();
    const other = await vendorWithCustomer();
    const foreignOrder = await t.api.post(
      "/api/vendor/orders",
      { customerName: "X", type: "SUIT" },
      { key: other.key },
    );
    const id = await appointmentIn(key, customerId, "PROPOSED");
    const c = await t.api.patch(`/api/vendor/appointments/${id}`, { customerId: other.customerId }, { key });
    expect(c.status).toBe(400);
    expect(c.body).toMatchObject({ code: "unknown_reference", errors: [{ field: "customerId" }] });
    const o = await t.api.patch(`/api/vendor/appointments/${id}`, { orderId: foreignOrder.body.id }, { key });
    expect(o.status).toBe(400);
    expect(o.body).toMatchObject({ code: "unknown_reference", errors: [{ field: "orderId" }] });
  });
});

describe("DELETE /api/vendor/appointments/{id}", () => {
  for (const status of appointmentStatuses) {
    const ok = status === "PROPOSED" || status === "CANCELLED";
    it(`${status}: ${ok ? "204, then 404" : "409 appointment_not_deletable, still there"}`, async () => {
      const { key, customerId } = await vendorWithCustomer();
      const id = await appointmentIn(key, customerId, status);
      const res = await t.api.delete(`/api/vendor/appointments/${id}`, { key });
      const read = await t.api.get(`/api/vendor/appointments/${id}`, { key });
      if (ok) {
        expect(res.status).toBe(204);
        expect(res.text).toBe("");
        expect(read.status).toBe(404);
      } else {
        expect(res.status).toBe(409);
        expect(res.body.code).toBe("appointment_not_deletable");
        expect(read.status).toBe(200);
      }
    });
  }
});

describe("GET /api/vendor/appointments", () => {
  async function seeded() {
    const { key, customerId } = await vendorWithCustomer();
    const other = await t.api.post("/api/vendor/customers", { name: "Other" }, { key });
    const dates = [
      "2027-05-02T23:30:00Z",
      "2027-05-01T00:00:00Z",
      "2027-05-03T00:00:00Z",
      "2027-05-01T12:00:00Z",
      "2027-04-30T23:59:59.999Z",
    ];
    const ids: Record<string, string> = {};
    for (const [i, date] of dates.entries()) {
      const res = await book(key, {
        customerId: i === 3 ? other.body.id : customerId,
        type: "FITTING",
        date,
      });
      ids[date] = res.body.id;
    }
    return { key, customerId, otherId: other.body.id as string, ids };
  }
  const dates = (res: any) => res.body.appointments.map((a: any) => a.date);

  it("sorts by date ascending", async () => {
    const { key } = await seeded();
    const res = await t.api.get("/api/vendor/appointments", { key });
    expect(dates(res)).toEqual([
      "2027-04-30T23:59:59.999Z",
      "2027-05-01T00:00:00.000Z",
      "2027-05-01T12:00:00.000Z",
      "2027-05-02T23:30:00.000Z",
      "2027-05-03T00:00:00.000Z",
    ]);
  });

  it("from/to with bare dates are inclusive and a bare to covers that whole UTC day", async () => {
    const { key } = await seeded();
    const res = await t.api.get("/api/vendor/appointments?from=2027-05-01&to=2027-05-02", { key });
    expect(dates(res)).toEqual([
      "2027-05-01T00:00:00.000Z",
      "2027-05-01T12:00:00.000Z",
      "2027-05-02T23:30:00.000Z",
    ]);
  });

  it("from/to with date-times are inclusive instants, offsets honoured", async () => {
    const { key } = await seeded();
    const res = await t.api.get(
      `/api/vendor/appointments?from=${encodeURIComponent("2027-05-01T13:00:00+01:00")}&to=${encodeURIComponent("2027-05-03T00:00:00Z")}`,
      { key },
    );
    expect(dates(res)).toEqual([
      "2027-05-01T12:00:00.000Z",
      "2027-05-02T23:30:00.000Z",
      "2027-05-03T00:00:00.000Z",
    ]);
  });

  it("a malformed from or to is 400 naming it", async () => {
    const { key } = await vendorWithCustomer();
    for (const [param, value] of [
      ["from", "yesterday"],
      ["to", "2027-02-30"],
      ["to", "2027-05-01T10:00"],
    ]) {
      const res = await t.api.get(`/api/vendor/appointments?${param}=${value}`, { key });
      expect(res.status).toBe(400);
      expect(res.body.errors[0].field).toBe(param);
    }
  });

  it("filters by status, customerId and updatedSince", async () => {
    const { key, customerId, otherId, ids } = await seeded();
    const confirmedId = ids["2027-05-03T00:00:00Z"] as string;
    await nextMillisecond();
    const since = new Date().toISOString();
    await nextMillisecond();
    await t.api.patch(`/api/vendor/appointments/${confirmedId}`, { status: "CONFIRMED" }, { key });
    const byStatus = await t.api.get("/api/vendor/appointments?status=CONFIRMED", { key });
    expect(byStatus.body.appointments.map((a: any) => a.id)).toEqual([confirmedId]);
    const byCustomer = await t.api.get(`/api/vendor/appointments?customerId=${otherId}`, { key });
    expect(byCustomer.body.appointments.map((a: any) => a.customerId)).toEqual([otherId]);
    const mine = await t.api.get(`/api/vendor/appointments?customerId=${customerId}`, { key });
    expect(mine.body.appointments).toHaveLength(4);
    const changed = await readSyncList(
      t,
      `/api/vendor/appointments?updatedSince=${since}`,
      key,
      (b) => b.appointments.length > 0,
    );
    expect(changed.body.appointments.map((a: any) => a.id)).toEqual([confirmedId]);
  });

  it("pages with limit and cursor in date order, without gaps or repeats", async () => {
    const { key } = await seeded();
    const all = dates(await t.api.get("/api/vendor/appointments", { key }));
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await t.api.get(
        `/api/vendor/appointments?limit=2${cursor ? `&cursor=${cursor}` : ""}`,
        { key },
      );
      seen.push(...dates(page));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all);
  });

  it("never lists another vendor's appointments", async () => {
    await seeded();
    const { key } = await vendorWithCustomer();
    const res = await t.api.get("/api/vendor/appointments", { key });
    expect(res.body).toEqual({ appointments: [], nextCursor: null });
  });
});
