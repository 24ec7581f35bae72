// Availability and public booking (CONTRACT 12): free slots from the shop's settings and its
// appointments, a booking that takes one, the last place going to exactly one of two bookings,
// and the mails to the bride (in her language) and the shop.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.ts";
import { adjustableClock } from "../helpers/clock.ts";
import { eventsAbout } from "../helpers/events.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

// Monday 1 March 2027, 08:00 in Berlin: the clock every test reads availability at.
const clock = adjustableClock();
clock.setOffset(Date.parse("2027-03-01T07:00:00Z") - Date.now());
// Mail written at that time is not due for the real clock: the SMTP path is in booking-page.browser.test.ts.
const t = useTestApp({ now: clock.now });

async function berlinShop(types: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  const made = await createVendorWithKey(t.ctx, "Brautmoden Anna");
  const res = await t.api.put(
    "/api/vendor/booking/settings",
    {
      timeZone: "Europe/Berlin",
      address: "Hauptstraße 1\n10115 Berlin",
      types: { CONSULTATION: { minNoticeMinutes: 0, ...types } },
      ...extra,
    },
    { key: made.key },
  );
  expect(res.status).toBe(200);
  return made;
}

const publicPath = (vendorId: string, rest: string) => `/api/public/vendors/${vendorId}/${rest}`;
const bride = (email: string, start: string, extra: Record<string, unknown> = {}) => ({
  type: "CONSULTATION",
  start,
  name: "Lena Schmidt",
  email,
  ...extra,
});

describe("GET /api/vendor/availability", () => {
  it("offers Tuesday's starts inside both intervals, 90 minutes plus 15 buffer, in UTC with the zone", async () => {
    const { key } = await berlinShop();
    const res = await t.api.get("/api/vendor/availability?type=CONSULTATION&from=2027-03-02&to=2027-03-02", {
      key,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      timeZone: "Europe/Berlin",
      type: "CONSULTATION",
      duration: 90,
      slots: [
        "2027-03-02T09:00:00.000Z",
        "2027-03-02T09:30:00.000Z",
        "2027-03-02T10:00:00.000Z",
        "2027-03-02T13:00:00.000Z",
        "2027-03-02T13:30:00.000Z",
        "2027-03-02T14:00:00.000Z",
        "2027-03-02T14:30:00.000Z",
        "2027-03-02T15:00:00.000Z",
      ],
    });
  });

  it("leaves out closed dates, and a start full with capacity appointments of any type (with their buffers)", async () => {
    const { key } = await berlinShop({ capacity: 1 }, { closedDates: ["2027-03-03"] });
    const c = await t.api.post("/api/vendor/customers", { name: "Mia" }, { key });
    // A fitting 10:00-11:00 local (+15 buffer): blocks consultations starting 09:00Z-10:00Z.
    await t.api.post(
      "/api/vendor/appointments",
      { customerId: c.body.id, type: "FITTING", date: "2027-03-02T09:00:00Z", duration: 60 },
      { key },
    );
    const res = await t.api.get("/api/vendor/availability?type=CONSULTATION&from=2027-03-02&to=2027-03-03", {
      key,
    });
    expect(res.body.slots).toEqual([
      "2027-03-02T13:00:00.000Z",
      "2027-03-02T13:30:00.000Z",
      "2027-03-02T14:00:00.000Z",
      "2027-03-02T14:30:00.000Z",
      "2027-03-02T15:00:00.000Z",
    ]);
  });

  it("keeps the wall clock across the March change and respects notice and reach", async () => {
    const { key } = await berlinShop({ minNoticeMinutes: 60 * 24 * 25 + 120, maxDaysAhead: 30 });
    const res = await t.api.get("/api/vendor/availability?type=CONSULTATION&from=2027-03-25&to=2027-04-02", {
      key,
    });
    // Notice ends just after 26 March 10:00 local; the reach ends with 31 March.
    const days = new Set(res.body.slots.map((s: string) => s.slice(0, 10)));
    expect([...days]).toEqual(["2027-03-26", "2027-03-27", "2027-03-30", "2027-03-31"]);
    expect(res.body.slots).toContain("2027-03-27T09:00:00.000Z"); // 10:00 CET
    expect(res.body.slots).toContain("2027-03-30T08:00:00.000Z"); // 10:00 CEST
    expect(res.body.slots).not.toContain("2027-03-26T09:00:00.000Z"); // inside the notice
    expect(res.body.slots).toContain("2027-03-26T09:30:00.000Z");
  });

  it.each([
    ["type=TRYON&from=2027-03-02&to=2027-03-02", "type"],
    ["type=FITTING&from=2027-03-02&to=2027-05-03", "to"],
    ["type=FITTING&from=2027-03-05&to=2027-03-02", "to"],
    ["type=FITTING&from=2027-02-30&to=2027-03-02", "from"],
  ])("refuses %s naming %s", async (query, field) => {
    const { key } = await berlinShop();
    const res = await t.api.get(`/api/vendor/availability?${query}`, { key });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
  });
});

describe("public availability and booking", () => {
  it("answers online types only, CORS-ready, and 404 for an unknown shop", async () => {
    const { vendor } = await berlinShop();
    const ok = await t.api.get(
      publicPath(vendor.id, "availability?type=CONSULTATION&from=2027-03-02&to=2027-03-02"),
      {
        headers: { origin: "https://brautmoden.example" },
      },
    );
    expect(ok.status).toBe(200);
    expect(ok.headers.get("access-control-allow-origin")).toBe("*");
    expect(ok.body.slots).toHaveLength(8);
    const fitting = await t.api.get(
      publicPath(vendor.id, "availability?type=FITTING&from=2027-03-02&to=2027-03-02"),
    );
    expect(fitting.status).toBe(400);
    expect(fitting.body.errors).toEqual([
      { field: "type", message: "is not offered for online booking by this shop" },
    ]);
    const unknown = await t.api.get(publicPath("tz4a98xxat96iws9zmbrgj3a", "availability?type=CONSULTATION"));
    expect(unknown.status).toBe(404);
    const preflight = await fetch(`${t.url}${publicPath(vendor.id, "bookings")}`, {
      method: "OPTIONS",
      headers: {
        origin: "https://brautmoden.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("books a free start: 201, the customer made with the browser's language, events, and mails to both", async () => {
    const { vendor, key } = await berlinShop();
    const email = `lena-${vendor.id}@example.test`;
    const res = await t.api.post(
      publicPath(vendor.id, "bookings"),
      bride(email, "2027-03-02T10:00:00+01:00", {
        phone: "030 1234567",
        weddingDate: "2027-08-14",
        notes: "A-line",
      }),
      { headers: { "accept-language": "de-DE,de;q=0.9,en;q=0.5" } },
    );
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      status: "PROPOSED",
      start: "2027-03-02T09:00:00.000Z",
    });
    const appointment = (await t.api.get(`/api/vendor/appointments/${res.body.id}`, { key })).body;
    expect(appointment).toMatchObject({
      type: "CONSULTATION",
      status: "PROPOSED",
      duration: 90,
      notes: "A-line",
    });
    const customer = (await t.api.get(`/api/vendor/customers/${appointment.customerId}`, { key })).body;
    expect(customer).toMatchObject({
      name: "Lena Schmidt",
      email,
      phone: "030 1234567",
      weddingDate: "2027-08-14",
    });
    const [stored] = await queryRows<{ language: string | null }>(
      t.ctx.db,
      sql`select language from customers where id = ${customer.id}`,
    );
    expect(stored?.language).toBe("de");
    expect((await eventsAbout(t, res.body.id)).map((e) => e.type)).toEqual(["appointment.created"]);
    expect((await eventsAbout(t, customer.id)).map((e) => e.type)).toContain("customer.created");

    const mails = await queryRows<{ kind: string; to_address: string; data: Record<string, unknown> }>(
      t.ctx.db,
      sql`select kind, to_address, data from mails where vendor_id = ${vendor.id} order by kind`,
    );
    expect(mails.map((m) => [m.kind, m.to_address])).toEqual([
      ["booking_received", email],
      ["booking_received_shop", vendor.email],
    ]);
    expect(mails[0]?.data).toMatchObject({
      language: "de",
      address: "Hauptstraße 1\n10115 Berlin",
      status: "PROPOSED",
    });
    expect(mails[1]?.data).toMatchObject({ language: "en", appointmentId: res.body.id });

    // The same e-mail again (another case) is the same customer, in her stored language.
    const again = await t.api.post(
      publicPath(vendor.id, "bookings"),
      bride(email.toUpperCase(), "2027-03-02T14:00:00Z", { language: "fr" }),
    );
    expect(again.status).toBe(201);
    const second = (await t.api.get(`/api/vendor/appointments/${again.body.id}`, { key })).body;
    expect(second.customerId).toBe(customer.id);
  });

  it("confirms at once with instantConfirmation; the start leaves availability once capacity is reached", async () => {
    const { vendor, key } = await berlinShop({}, { instantConfirmation: true });
    const start = "2027-03-04T13:00:00.000Z";
    const first = await t.api.post(
      publicPath(vendor.id, "bookings"),
      bride(`a-${vendor.id}@example.test`, start),
    );
    expect(first.body.status).toBe("CONFIRMED");
    const slots = async () =>
      (await t.api.get(`/api/vendor/availability?type=CONSULTATION&from=2027-03-04&to=2027-03-04`, { key }))
        .body.slots;
    expect(await slots()).toContain(start);
    const second = await t.api.post(
      publicPath(vendor.id, "bookings"),
      bride(`b-${vendor.id}@example.test`, start),
    );
    expect(second.status).toBe(201);
    expect(await slots()).not.toContain(start);
    const third = await t.api.post(
      publicPath(vendor.id, "bookings"),
      bride(`c-${vendor.id}@example.test`, start),
    );
    expect(third.status).toBe(409);
    expect(third.body).toMatchObject({ code: "slot_taken", start, errors: [{ field: "start" }] });
  });

  it("gives the last place to exactly one of two bookings made at once", async () => {
    const { vendor, key } = await berlinShop({ capacity: 1 });
    const start = "2027-03-05T09:30:00.000Z";
    const answers = await Promise.all(
      ["x", "y", "z"].map((n) =>
        t.api.post(publicPath(vendor.id, "bookings"), bride(`${n}-${vendor.id}@example.test`, start)),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409]);
    const list = await t.api.get("/api/vendor/appointments?from=2027-03-05&to=2027-03-05", { key });
    expect(list.body.appointments).toHaveLength(1);
  });

  it("refuses a start outside the hours (409), a type not online and a bad language (400), another shop's id (404)", async () => {
    const { vendor } = await berlinShop();
    const closed = await t.api.post(
      publicPath(vendor.id, "bookings"),
      bride("m@example.test", "2027-03-01T10:00:00Z"),
    );
    expect(closed.status).toBe(409);
    expect(closed.body.code).toBe("slot_taken");
    const fitting = await t.api.post(publicPath(vendor.id, "bookings"), {
      ...bride("m@example.test", "2027-03-02T09:00:00Z"),
      type: "FITTING",
    });
    expect(fitting.status).toBe(400);
    expect(fitting.body.errors[0].field).toBe("type");
    const language = await t.api.post(
      publicPath(vendor.id, "bookings"),
      bride("m@example.test", "2027-03-02T09:00:00Z", { language: "xx" }),
    );
    expect(language.body.errors[0].field).toBe("language");
    const nobody = await t.api.post(
      publicPath("tz4a98xxat96iws9zmbrgj3a", "bookings"),
      bride("m@example.test", "2027-03-02T09:00:00Z"),
    );
    expect(nobody.status).toBe(404);
  });
});
