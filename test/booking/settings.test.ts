import { describe, expect, it } from "vitest";
import { getBookingSettings } from "../../src/modules/booking/settings.repository.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { securitySuite } from "../helpers/security-suite.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();
const PATH = "/api/vendor/booking/settings";

securitySuite(() => t, { method: "GET", path: "/booking/settings", scope: "appointments:read" });
securitySuite(() => t, {
  method: "PUT",
  path: "/booking/settings",
  scope: "appointments:write",
  body: async () => ({ instantConfirmation: true }),
});

describe("GET /api/vendor/booking/settings", () => {
  it("answers a new shop's defaults: Tue-Sat with a lunch break, 24 h reminder and cut-off", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx);
    const res = await t.api.get(PATH, { key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      timeZone: vendor.timeZone,
      address: null,
      openingHours: {
        mon: [],
        tue: [
          { from: "10:00", to: "13:00" },
          { from: "14:00", to: "18:00" },
        ],
        wed: [
          { from: "10:00", to: "13:00" },
          { from: "14:00", to: "18:00" },
        ],
        thu: [
          { from: "10:00", to: "13:00" },
          { from: "14:00", to: "18:00" },
        ],
        fri: [
          { from: "10:00", to: "13:00" },
          { from: "14:00", to: "18:00" },
        ],
        sat: [{ from: "10:00", to: "16:00" }],
        sun: [],
      },
      closedDates: [],
      instantConfirmation: false,
      reminderMinutesBefore: 1440,
      rescheduleCutoffHours: 24,
      types: {
        CONSULTATION: {
          online: true,
          duration: 90,
          bufferAfter: 15,
          minNoticeMinutes: 1440,
          maxDaysAhead: 60,
          capacity: 2,
        },
        FITTING: {
          online: false,
          duration: 60,
          bufferAfter: 15,
          minNoticeMinutes: 1440,
          maxDaysAhead: 60,
          capacity: 2,
        },
        PICKUP: {
          online: false,
          duration: 30,
          bufferAfter: 15,
          minNoticeMinutes: 1440,
          maxDaysAhead: 60,
          capacity: 2,
        },
      },
    });
    expect(await getBookingSettings(t.ctx.db, vendor.id)).toEqual(res.body);
  });
});

describe("PUT /api/vendor/booking/settings", () => {
  it("changes only the fields given (partial per weekday and per type field) and keeps them", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const before = (await t.api.get(PATH, { key })).body;
    const res = await t.api.put(
      PATH,
      {
        timeZone: "Europe/Berlin",
        address: "Brautmoden Anna\r\nHauptstraße 1\n\n10115 Berlin",
        openingHours: { mon: [{ from: "12:00", to: "20:00" }], sat: [] },
        closedDates: ["2027-12-24", "2027-01-01", "2027-12-24"],
        instantConfirmation: true,
        reminderMinutesBefore: 120,
        types: { FITTING: { online: true, capacity: 3 } },
      },
      { key },
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...before,
      timeZone: "Europe/Berlin",
      address: "Brautmoden Anna\nHauptstraße 1\n10115 Berlin",
      openingHours: { ...before.openingHours, mon: [{ from: "12:00", to: "20:00" }], sat: [] },
      closedDates: ["2027-01-01", "2027-12-24"],
      instantConfirmation: true,
      reminderMinutesBefore: 120,
      types: { ...before.types, FITTING: { ...before.types.FITTING, online: true, capacity: 3 } },
    });
    expect((await t.api.get(PATH, { key })).body).toEqual(res.body);
    // The time zone and the address are the shop's own (the profile shows the same zone).
    expect((await t.api.get("/api/vendor/profile", { key })).body.timeZone).toBe("Europe/Berlin");
    const cleared = await t.api.put(PATH, { address: null }, { key });
    expect(cleared.body.address).toBeNull();
  });

  it.each([
    [{ openingHours: { tue: [{ from: "18:00", to: "10:00" }] } }, "openingHours.tue.0.to"],
    [
      {
        openingHours: {
          wed: [
            { from: "10:00", to: "14:00" },
            { from: "13:00", to: "18:00" },
          ],
        },
      },
      "openingHours.wed.1",
    ],
    [{ openingHours: { thu: [{ from: "9:00", to: "10:00" }] } }, "openingHours.thu.0.from"],
    [{ openingHours: { fri: [{ from: "10:00", to: "25:00" }] } }, "openingHours.fri.0.to"],
    [{ closedDates: ["2027-02-30"] }, "closedDates.0"],
    [{ reminderMinutesBefore: 10 }, "reminderMinutesBefore"],
    [{ timeZone: "Mars/Olympus" }, "timeZone"],
    [{ types: { PICKUP: { capacity: 0 } } }, "types.PICKUP.capacity"],
    [{ types: { FITTING: { duration: 2 } } }, "types.FITTING.duration"],
    [{ types: { TRYON: { duration: 60 } } }, "types.TRYON"],
  ])("refuses %j naming %s (400), writing nothing", async (body, field) => {
    const { key } = await createVendorWithKey(t.ctx);
    const before = (await t.api.get(PATH, { key })).body;
    const res = await t.api.put(PATH, { instantConfirmation: true, ...body }, { key });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("validation_failed");
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    expect((await t.api.get(PATH, { key })).body).toEqual(before);
  });
});
