// Settings › Online booking over real HTTP, as a signed-in owner: the page shows what GET
// /api/vendor/booking/settings answers; saving it changes that answer and the availability the
// API offers (through the API's own schema and service); a refused value (a day's interval that
// closes before it opens, overlapping intervals, a capacity of 0) shows the form again naming the
// field, in the reader's language, with what was typed and nothing saved; staff get the owners'
// 403; one shop's page never shows another's settings or link.
import { describe, expect, it } from "vitest";
import type { Browser, PageResponse } from "../helpers/browser.ts";
import { adjustableClock } from "../helpers/clock.ts";
import { csrfOf, filledForm, flashOf, follow, signedInBrowser } from "../helpers/dashboard.ts";
import { createMember, createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

// Monday 1 March 2027, 08:00 in Berlin: availability is read at this time.
const clock = adjustableClock();
clock.setOffset(Date.parse("2027-03-01T07:00:00Z") - Date.now());
const t = useTestApp({ now: clock.now });

const PAGE = "/dashboard/settings/booking";
const SETTINGS_API = "/api/vendor/booking/settings";

async function shop(name = "Brautmoden Anna") {
  const { vendor, key } = await createVendorWithKey(t.ctx, name);
  // The time zone is the main Settings page's; the API sets it here.
  expect((await t.api.put(SETTINGS_API, { timeZone: "Europe/Berlin" }, { key })).status).toBe(200);
  const browser = await signedInBrowser(t, vendor.email);
  return { vendor, key, browser };
}

/** The form as the browser would send it, with `changes` typed over it. */
async function formWith(browser: Browser, changes: Record<string, string | string[] | undefined>) {
  const page = await browser.get(PAGE);
  expect(page.status).toBe(200);
  const form: Record<string, string | string[]> = filledForm(page, PAGE);
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined) delete form[name];
    else form[name] = value;
  }
  return form;
}

const one = (form: Record<string, string[]>, name: string) => form[name]?.join("|");
const inputValue = (page: PageResponse, id: string) =>
  new RegExp(`<input id="${id.replaceAll(".", "\\.")}"[^>]*value="([^"]*)"`).exec(page.text)?.[1];

describe("the Online booking page", () => {
  it("shows a new shop's defaults, the booking link with its website button, and is linked from Settings", async () => {
    const { vendor, browser } = await shop();
    const settings = await browser.get("/dashboard/settings");
    expect(settings.text).toContain(`href="${PAGE}"`);
    const page = await browser.get(PAGE);
    expect(page.status).toBe(200);
    expect(page.text).toContain("<h1>Online booking</h1>");
    const form = filledForm(page, PAGE);
    // Tuesday to Friday with a lunch break, Saturday to 16:00, Sunday and Monday closed.
    expect(one(form, "openingHours.mon.closed")).toBe("on");
    expect(one(form, "openingHours.sun.closed")).toBe("on");
    expect(one(form, "openingHours.tue.closed")).toBeUndefined();
    expect(one(form, "openingHours.tue.0.from")).toBe("10:00");
    expect(one(form, "openingHours.tue.0.to")).toBe("13:00");
    expect(one(form, "openingHours.tue.1.from")).toBe("14:00");
    expect(one(form, "openingHours.tue.1.to")).toBe("18:00");
    expect(one(form, "openingHours.sat.0.to")).toBe("16:00");
    expect(one(form, "openingHours.sat.1.from")).toBe("");
    // A day a reminder ahead, shown in hours; a 24-hour cut-off; no address, no closed dates.
    expect(one(form, "reminderAmount")).toBe("24");
    expect(one(form, "reminderUnit")).toBe("hours");
    expect(one(form, "rescheduleCutoffHours")).toBe("24");
    expect(one(form, "instantConfirmation")).toBeUndefined();
    expect(one(form, "address")).toBe("");
    expect(one(form, "closedDates")).toBe("");
    // Consultations online; fittings and pickups not; each type's numbers, notice in hours.
    expect(one(form, "types.CONSULTATION.online")).toBe("on");
    expect(one(form, "types.FITTING.online")).toBeUndefined();
    expect(one(form, "types.PICKUP.online")).toBeUndefined();
    expect(one(form, "types.CONSULTATION.duration")).toBe("90");
    expect(one(form, "types.PICKUP.duration")).toBe("30");
    expect(one(form, "types.FITTING.bufferAfter")).toBe("15");
    expect(one(form, "types.FITTING.minNoticeHours")).toBe("24");
    expect(one(form, "types.FITTING.maxDaysAhead")).toBe("60");
    expect(one(form, "types.FITTING.capacity")).toBe("2");
    expect(page.text).toContain("<legend>Fitting</legend>");
    expect(page.text).toContain("<legend>Saturday</legend>");
    // The time zone stays on Settings, named and linked.
    expect(page.text).toContain("Europe/Berlin");
    expect(page.text).toContain('<a href="/dashboard/settings">Settings</a>');
    // The hosted page, copyable, and a button for the shop's website that links to it.
    expect(page.text).toMatch(
      new RegExp(`<input id="booking-url" type="text" readonly value="[^"]*/book/${vendor.id}">`),
    );
    expect(page.text).toContain('data-copy-from="booking-url"');
    const snippet = /<textarea id="booking-snippet"[^>]*>([\s\S]*?)<\/textarea>/.exec(page.text)?.[1] ?? "";
    expect(snippet).toContain(`/book/${vendor.id}&quot; target=&quot;_blank&quot;`);
    expect(snippet).toContain("Book an appointment");
    expect(page.text).toContain('<script src="/assets/copy-secret.js" defer></script>');
    // The hosted page it links to is the shop's booking page.
    const hosted = await browser.get(`/book/${vendor.id}`);
    expect(hosted.status).toBe(200);
    expect(hosted.text).toContain("Brautmoden Anna");
  });

  it("saving changes what the API answers and the free times it offers; the flash says so", async () => {
    const { key, browser } = await shop();
    // A fitting on Saturday 6 March, 09:00-10:00 Berlin (+15 min buffer), already booked.
    const customer = await t.api.post("/api/vendor/customers", { name: "Mia" }, { key });
    const fitting = await t.api.post(
      "/api/vendor/appointments",
      { customerId: customer.body.id, type: "FITTING", date: "2027-03-06T08:00:00Z", duration: 60 },
      { key },
    );
    expect(fitting.status).toBe(201);
    const form = await formWith(browser, {
      address: "Hauptstraße 1\r\n10115 Berlin",
      instantConfirmation: "on",
      reminderAmount: "30",
      reminderUnit: "minutes",
      rescheduleCutoffHours: "48",
      "openingHours.sat.0.from": "09:00",
      "openingHours.sat.0.to": "12:00",
      "openingHours.sat.1.from": "13:00",
      "openingHours.sat.1.to": "15:00",
      "openingHours.mon.closed": undefined,
      "openingHours.mon.0.from": "11:00",
      "openingHours.mon.0.to": "17:00",
      "openingHours.tue.closed": "on",
      closedDates: "2027-03-10\n2027-03-03\n",
      "types.CONSULTATION.duration": "60",
      "types.CONSULTATION.minNoticeHours": "0",
      "types.CONSULTATION.capacity": "1",
      "types.FITTING.online": "on",
      "types.FITTING.minNoticeHours": "1.5",
      "types.PICKUP.maxDaysAhead": "14",
    });
    const saved = await browser.post(PAGE, form);
    expect(saved.status, saved.text.slice(0, 500)).toBe(303);
    expect(saved.location).toBe(PAGE);
    const after = await follow(browser, saved);
    expect(flashOf(after)).toEqual({ kind: "success", text: "Online booking saved." });

    const api = await t.api.get(SETTINGS_API, { key });
    expect(api.body).toMatchObject({
      timeZone: "Europe/Berlin",
      address: "Hauptstraße 1\n10115 Berlin",
      instantConfirmation: true,
      reminderMinutesBefore: 30,
      rescheduleCutoffHours: 48,
      closedDates: ["2027-03-03", "2027-03-10"],
      openingHours: {
        mon: [{ from: "11:00", to: "17:00" }],
        tue: [],
        wed: [
          { from: "10:00", to: "13:00" },
          { from: "14:00", to: "18:00" },
        ],
        sat: [
          { from: "09:00", to: "12:00" },
          { from: "13:00", to: "15:00" },
        ],
        sun: [],
      },
      types: {
        CONSULTATION: { online: true, duration: 60, minNoticeMinutes: 0, capacity: 1, bufferAfter: 15 },
        FITTING: { online: true, duration: 60, minNoticeMinutes: 90, capacity: 2, maxDaysAhead: 60 },
        PICKUP: { online: false, maxDaysAhead: 14 },
      },
    });

    // Saturday: 60 + 15 minutes inside 09:00-12:00 and 13:00-15:00 Berlin (UTC+1), every 30 minutes;
    // with one place at a time, the starts the fitting overlaps (08:00-09:15Z) are gone.
    const saturday = await t.api.get(
      "/api/vendor/availability?type=CONSULTATION&from=2027-03-06&to=2027-03-06",
      { key },
    );
    expect(saturday.body.slots).toEqual([
      "2027-03-06T09:30:00.000Z",
      "2027-03-06T12:00:00.000Z",
      "2027-03-06T12:30:00.000Z",
    ]);
    // Tuesday now closed, Wednesday 3 March a closed date, Monday 8 March open 11:00-17:00.
    const week = await t.api.get("/api/vendor/availability?type=CONSULTATION&from=2027-03-02&to=2027-03-03", {
      key,
    });
    expect(week.body.slots).toEqual([]);
    const monday = await t.api.get(
      "/api/vendor/availability?type=CONSULTATION&from=2027-03-08&to=2027-03-08",
      { key },
    );
    expect(monday.body.slots[0]).toBe("2027-03-08T10:00:00.000Z");

    // The page shows what was saved, and sending it again unchanged keeps it all.
    const shown = filledForm(after, PAGE);
    expect(one(shown, "reminderAmount")).toBe("30");
    expect(one(shown, "reminderUnit")).toBe("minutes");
    expect(one(shown, "types.FITTING.minNoticeHours")).toBe("1.5");
    expect(one(shown, "openingHours.tue.closed")).toBe("on");
    expect(one(shown, "closedDates")).toBe("2027-03-03\n2027-03-10");
    expect((await browser.post(PAGE, shown)).status).toBe(303);
    expect((await t.api.get(SETTINGS_API, { key })).body).toEqual(api.body);
  });

  it("refuses an interval that closes before it opens, overlapping intervals and a capacity of 0: named, kept, nothing saved", async () => {
    const { key, browser } = await shop();
    const before = (await t.api.get(SETTINGS_API, { key })).body;
    const form = await formWith(browser, {
      "openingHours.sat.0.from": "12:00",
      "openingHours.sat.0.to": "09:00",
      "openingHours.fri.1.from": "12:00",
      "openingHours.fri.1.to": "15:00",
      "types.FITTING.capacity": "0",
      "types.CONSULTATION.duration": "ninety",
      address: "New address line",
    });
    const refused = await browser.post(PAGE, form);
    expect(refused.status).toBe(400);
    expect(refused.headers.get("content-type")).toMatch(/^text\/html/);
    const summary = /<div class="field-error" role="alert" id="booking-errors">([\s\S]*?)<\/div>/.exec(
      refused.text,
    )?.[1];
    expect(summary).toContain("nothing was saved");
    expect(summary).toContain("Saturday, hours 1, closes</a>: must close after it opens");
    expect(summary).toContain("Friday, hours 2</a>: overlaps another interval of the same day");
    expect(summary).toContain(
      "Fitting: At the same time (fitting rooms or stylists)</a>: must be a whole number from 1 to 50",
    );
    expect(summary).toContain("Consultation: Duration (minutes)</a>: must be a whole number from 5 to 720");
    // Beside the fields, marked invalid; what was typed stays.
    expect(refused.text).toMatch(
      /<input id="openingHours\.sat\.0\.to" name="openingHours\.sat\.0\.to" type="time" value="09:00" aria-invalid="true"/,
    );
    expect(refused.text).toContain(
      '<p class="field-error" id="openingHours.sat-error">must close after it opens</p>',
    );
    expect(refused.text).toContain('<p class="field-error" id="types.FITTING.capacity-error">');
    expect(inputValue(refused, "types.FITTING.capacity")).toBe("0");
    expect(inputValue(refused, "types.CONSULTATION.duration")).toBe("ninety");
    expect(inputValue(refused, "openingHours.fri.1.from")).toBe("12:00");
    expect(refused.text).toContain(">New address line</textarea>");
    expect((await t.api.get(SETTINGS_API, { key })).body).toEqual(before);

    // Only the service's own rule broken (the schema passes): the same, from the API's service.
    const overlapOnly = await formWith(browser, {
      "openingHours.wed.1.from": "11:00",
      "openingHours.wed.1.to": "15:00",
    });
    const again = await browser.post(PAGE, overlapOnly);
    expect(again.status).toBe(400);
    expect(again.text).toContain("Wednesday, hours 2</a>: overlaps another interval of the same day");
    expect((await t.api.get(SETTINGS_API, { key })).body).toEqual(before);

    // A row with one time only, and a date that is not one.
    const half = await formWith(browser, {
      "openingHours.mon.closed": undefined,
      "openingHours.mon.0.from": "10:00",
      closedDates: "2027-02-30",
    });
    const halfRefused = await browser.post(PAGE, half);
    expect(halfRefused.status).toBe(400);
    expect(halfRefused.text).toContain("Monday, hours 1</a>: needs both an opening and a closing time");
    expect(halfRefused.text).toContain("Closed dates</a>: “2027-02-30” is not a date (YYYY-MM-DD)");
    expect((await t.api.get(SETTINGS_API, { key })).body).toEqual(before);
  });

  it("says the refusal in the reader's language", async () => {
    const { browser } = await shop();
    const csrf = csrfOf(await browser.get(PAGE));
    expect((await browser.post("/dashboard/account/language", { _csrf: csrf, language: "de" })).status).toBe(
      303,
    );
    const form = await formWith(browser, { "openingHours.sat.0.to": "09:00" });
    const refused = await browser.post(PAGE, form);
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('<html lang="de">');
    expect(refused.text).toContain("Samstag, Zeitraum 1, schließt</a>: muss nach der Öffnungszeit schließen");
    const ok = await follow(browser, await browser.post(PAGE, await formWith(browser, {})));
    expect(flashOf(ok)?.text).toBe("Online-Terminbuchung gespeichert.");
  });

  it("answers staff the owners-only 403, page and form alike, and changes nothing", async () => {
    const { vendor, key } = await shop();
    const staff = await createMember(t.ctx, vendor.id);
    const browser = await signedInBrowser(t, staff.email);
    const before = (await t.api.get(SETTINGS_API, { key })).body;
    const page = await browser.get(PAGE);
    expect(page.status).toBe(403);
    expect(page.text).toContain("Only the shop&#39;s owners can do this");
    const csrf = csrfOf(await browser.get("/dashboard/orders"));
    const posted = await browser.post(PAGE, {
      _csrf: csrf,
      "types.FITTING.capacity": "9",
      "openingHours.sun.0.from": "10:00",
      "openingHours.sun.0.to": "12:00",
    });
    expect(posted.status).toBe(403);
    expect(posted.text).toContain("Only the shop&#39;s owners can do this");
    expect((await t.api.get(SETTINGS_API, { key })).body).toEqual(before);
  });

  it("shows each shop only its own settings and link; one shop's save leaves the other's alone", async () => {
    const a = await shop("Atelier Alpha");
    const b = await shop("Boutique Beta");
    const saved = await a.browser.post(
      PAGE,
      await formWith(a.browser, { address: "Alpha Lane 7", "types.PICKUP.capacity": "7" }),
    );
    expect(saved.status).toBe(303);
    const bBefore = (await t.api.get(SETTINGS_API, { key: b.key })).body;
    const pageB = await b.browser.get(PAGE);
    expect(pageB.text).not.toContain("Alpha Lane 7");
    expect(pageB.text).not.toContain(a.vendor.id);
    expect(pageB.text).toContain(`/book/${b.vendor.id}`);
    expect(one(filledForm(pageB, PAGE), "types.PICKUP.capacity")).toBe("2");
    const pageA = await a.browser.get(PAGE);
    expect(pageA.text).toContain("Alpha Lane 7");
    expect(pageA.text).not.toContain(b.vendor.id);
    // B saves its own page: A's settings are untouched.
    const aBefore = (await t.api.get(SETTINGS_API, { key: a.key })).body;
    await b.browser.post(PAGE, await formWith(b.browser, { "types.PICKUP.capacity": "3" }));
    expect((await t.api.get(SETTINGS_API, { key: a.key })).body).toEqual(aBefore);
    expect((await t.api.get(SETTINGS_API, { key: b.key })).body.types.PICKUP.capacity).toBe(3);
    expect(bBefore.types.PICKUP.capacity).toBe(2);
  });
});
