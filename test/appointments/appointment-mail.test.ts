// Every change told (CONTRACT 12, "Telling the customer"), read back from a real SMTP server:
// confirm → move → cancel mails the customer three invitations with one UID and a rising
// SEQUENCE (REQUEST, REQUEST, CANCEL), the shop's address as LOCATION, in the customer's
// language, the move naming the old and new time and the cancellation the time last told; each
// REQUEST carries her own link. When the customer cannot be told, the dashboard says why.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.ts";
import { updateShopSettings } from "../../src/modules/vendors/shop-settings.ts";
import { flashOf, follow, formFields, signedInBrowser, submitForm } from "../helpers/dashboard.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { type ReceivedMail, useMailSender } from "../helpers/smtp.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp({ ownDatabase: true });
const mail = useMailSender(() => t);
let seq = 0;

async function shop(options: { customerMail: boolean; email?: boolean }) {
  const { vendor, key } = await createVendorWithKey(t.ctx, "Brautmoden Anna");
  await updateShopSettings(t.ctx, vendor.id, {
    name: "Brautmoden Anna",
    contactEmail: "hallo@anna.example",
    timeZone: "Europe/Berlin",
    customerMail: options.customerMail,
  });
  const settings = await t.api.put(
    "/api/vendor/booking/settings",
    { address: "Brautmoden Anna\nHauptstraße 1\n10115 Berlin" },
    { key },
  );
  expect(settings.status).toBe(200);
  const email = options.email === false ? undefined : `braut-${Date.now()}-${seq++}@example.test`;
  const customer = await t.api.post(
    "/api/vendor/customers",
    { name: "Marie Braut", ...(email ? { email } : {}) },
    { key },
  );
  expect(customer.status).toBe(201);
  const customerId = customer.body.id as string;
  // The customer's language has no API field yet: set where the dashboard's form will write it.
  await t.database.db.execute(sql`update customers set language = 'de' where id = ${customerId}`);
  return { vendor, key, email: email as string, customerId };
}

const ics = (m: ReceivedMail | undefined) =>
  (
    m?.parsed.attachments.find((a) => a.contentType.startsWith("text/calendar"))?.content.toString("utf8") ??
    ""
  ).replace(/\r\n[ \t]/g, "");
const field = (calendar: string, name: string) =>
  new RegExp(`^${name}[:;](.*)$`, "m").exec(calendar)?.[1]?.trim();

describe("telling the customer", () => {
  it("confirm, move, cancel: one UID, rising SEQUENCE, the address as LOCATION, in her language", async () => {
    const s = await shop({ customerMail: true });
    const created = await t.api.post(
      "/api/vendor/appointments",
      { customerId: s.customerId, type: "FITTING", date: "2031-12-02T15:30:00Z", duration: 60 },
      { key: s.key },
    );
    expect(created.status).toBe(201);
    const path = `/api/vendor/appointments/${created.body.id}`;
    expect((await t.api.patch(path, { status: "CONFIRMED" }, { key: s.key })).status).toBe(200);
    await mail.sink.waitFor(s.email, 1);
    expect((await t.api.patch(path, { date: "2031-12-03T10:00:00Z" }, { key: s.key })).status).toBe(200);
    await mail.sink.waitFor(s.email, 2);
    expect((await t.api.patch(path, { status: "CANCELLED" }, { key: s.key })).status).toBe(200);
    const mails = await mail.sink.waitFor(s.email, 3);
    // In the order the changes were made (Date is each cause's commit).
    const [confirmed, moved, cancelled] = [...mails].sort(
      (a, b) => (a.parsed.date?.getTime() ?? 0) - (b.parsed.date?.getTime() ?? 0),
    );
    const calendars = [confirmed, moved, cancelled].map(ics);
    expect(calendars.map((c) => field(c, "METHOD"))).toEqual(["REQUEST", "REQUEST", "CANCEL"]);
    const uids = new Set(calendars.map((c) => field(c, "UID")));
    expect(uids).toEqual(new Set([`appointment-${created.body.id}@127.0.0.1`]));
    const sequences = calendars.map((c) => Number(field(c, "SEQUENCE")));
    expect(sequences[1]).toBeGreaterThan(sequences[0] as number);
    expect(sequences[2]).toBeGreaterThan(sequences[1] as number);
    // The confirmation and the move at their times; the cancellation names the time last told.
    expect(calendars.map((c) => field(c, "DTSTART"))).toEqual([
      "20311202T153000Z",
      "20311203T100000Z",
      "20311203T100000Z",
    ]);
    for (const c of calendars) {
      expect(field(c, "LOCATION")).toBe("Brautmoden Anna\\, Hauptstraße 1\\, 10115 Berlin");
      expect(field(c, "SUMMARY")).toBe("Anprobe bei Brautmoden Anna");
    }
    // In German, the customer's language, with times in the shop's zone (16:30 in Berlin).
    expect(confirmed?.parsed.subject).toBe("Anprobe bestätigt: Dienstag, 2. Dezember 2031 um 16:30");
    expect(moved?.parsed.subject).toBe("Anprobe verschoben auf Mittwoch, 3. Dezember 2031 um 11:00");
    expect(moved?.parsed.text).toContain(
      "Brautmoden Anna hat Ihren Termin von Dienstag, 2. Dezember 2031 um 16:30 auf Mittwoch, 3. Dezember 2031 um 11:00 verschoben.",
    );
    expect(cancelled?.parsed.subject).toBe("Anprobe abgesagt: Mittwoch, 3. Dezember 2031 um 11:00");
    // Each invitation carries her own link (a new token each), the cancellation none.
    const links = [confirmed, moved].map(
      (m) => new RegExp(`${t.url}/my/appointments/(va_[A-Za-z0-9_-]+)`).exec(m?.parsed.text ?? "")?.[1],
    );
    expect(links.every(Boolean)).toBe(true);
    expect(new Set(links).size).toBe(2);
    expect(cancelled?.parsed.text).not.toContain("/my/appointments/");
    // The database keeps only the tokens' hashes, and no mail row still holds one.
    const stored = await queryRows<{ token_hash: string }>(
      t.database.db,
      sql`select token_hash from appointment_links where appointment_id = ${created.body.id}`,
    );
    expect(stored).toHaveLength(2 + 2); // two mails, two reminders scheduled (each with a link)
    for (const link of links) expect(stored.map((r) => r.token_hash)).not.toContain(link);
  });

  it("a move before confirmation mails nothing; the confirmation tells the new time", async () => {
    const s = await shop({ customerMail: true });
    const created = await t.api.post(
      "/api/vendor/appointments",
      { customerId: s.customerId, type: "CONSULTATION", date: "2031-06-02T08:00:00Z" },
      { key: s.key },
    );
    const path = `/api/vendor/appointments/${created.body.id}`;
    await t.api.patch(path, { date: "2031-06-03T08:00:00Z" }, { key: s.key });
    await t.api.patch(path, { status: "CONFIRMED" }, { key: s.key });
    const [only] = await mail.sink.waitFor(s.email, 1);
    expect(field(ics(only), "DTSTART")).toBe("20310603T080000Z");
    const rows = await queryRows<{ kind: string }>(
      t.database.db,
      sql`select kind from mails where customer_id = ${s.customerId} order by created_at`,
    );
    expect(rows.map((r) => r.kind).sort()).toEqual(["appointment_confirmed", "appointment_reminder"]);
  });

  it.each([
    [
      { customerMail: true, email: false },
      "Die Kundin bzw. der Kunde wurde nicht benachrichtigt: keine E-Mail-Adresse hinterlegt.",
    ],
    [{ customerMail: false }, "E-Mails an Kundschaft sind in den Einstellungen ausgeschaltet"],
  ])(
    "the owner sees on the appointment's page when the customer could not be told (%o)",
    async (options, says) => {
      const s = await shop(options);
      await t.database.db.execute(sql`update vendors set language = 'de' where id = ${s.vendor.id}`);
      const created = await t.api.post(
        "/api/vendor/appointments",
        { customerId: s.customerId, type: "FITTING", date: "2031-07-01T08:00:00Z" },
        { key: s.key },
      );
      const id = created.body.id as string;
      const browser = await signedInBrowser(t, s.vendor.email);
      const page = await browser.get(`/dashboard/appointments/${id}`);
      const confirmed = await follow(
        browser,
        await submitForm(browser, page, `/dashboard/appointments/${id}/status`, { status: "CONFIRMED" }),
      );
      expect(flashOf(confirmed)?.text).toContain(says);
      // A reschedule on the same page says the same.
      const edit = `/dashboard/appointments/${id}/edit`;
      const moved = await follow(
        browser,
        await browser.post(edit, {
          ...formFields(confirmed, edit),
          date: "2031-07-02T10:00",
          duration: "60",
          notes: "",
        }),
      );
      // The member reads the shop's language (German) like the notice.
      expect(flashOf(moved)?.text).toContain("Termin gespeichert.");
      expect(flashOf(moved)?.text).toContain(says);
      // A change the customer is not mailed about (the notes) says nothing of the kind.
      const noted = await follow(
        browser,
        await browser.post(edit, {
          ...formFields(moved, edit),
          date: "2031-07-02T10:00",
          duration: "60",
          notes: "Veil",
        }),
      );
      expect(flashOf(noted)?.text).toBe("Termin gespeichert.");
    },
  );
});
