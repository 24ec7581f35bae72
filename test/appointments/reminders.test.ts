// Reminders (CONTRACT 12): a mail `reminderMinutesBefore` the start of each CONFIRMED appointment,
// a row of the mail outbox due at that time, sent once by several senders and across a restart;
// never for an appointment cancelled or moved since (the move's own reminder goes instead), none
// for one confirmed inside its window, none when the setting is 0. The due time is made near by
// the shortest window (15 minutes) and a start 15 minutes and a few seconds ahead; every wait is
// on a fact (a mail arrived, a row recorded), none on the clock.
import { sql } from "drizzle-orm";
import type { Logger } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.ts";
import { STALE_REMINDER_ERROR } from "../../src/mail/outbox.repository.ts";
import { type RunningMailSender, startMailSender } from "../../src/mail/sender.ts";
import { updateShopSettings } from "../../src/modules/vendors/shop-settings.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { type SmtpSink, startSmtpSink } from "../helpers/smtp.ts";
import { useTestApp } from "../helpers/test-app.ts";
import { eventually } from "../helpers/webhook-receiver.ts";

const t = useTestApp({ ownDatabase: true });
let sink: SmtpSink;
const senders: RunningMailSender[] = [];
const quiet = { info: () => {}, warn: () => {}, error: () => {} } as unknown as Logger;
const startSender = async () => {
  const sender = await startMailSender({
    config: { ...t.config, smtpUrl: sink.url, mailRetryDelaysMs: [50, 100, 200] },
    database: t.database,
    log: quiet,
  });
  senders.push(sender);
  return sender;
};
beforeAll(async () => {
  sink = await startSmtpSink();
});
afterAll(async () => {
  for (const s of senders) await s.stop(2_000);
  await sink.close();
});

let seq = 0;
async function shop(reminderMinutesBefore: number) {
  const { vendor, key } = await createVendorWithKey(t.ctx, "Bella Sposa");
  await updateShopSettings(t.ctx, vendor.id, {
    name: "Bella Sposa",
    contactEmail: null,
    timeZone: "Europe/Rome",
    customerMail: true,
  });
  expect((await t.api.put("/api/vendor/booking/settings", { reminderMinutesBefore }, { key })).status).toBe(
    200,
  );
  const customer = async () => {
    const email = `sposa-${Date.now()}-${seq++}@example.test`;
    const res = await t.api.post("/api/vendor/customers", { name: "Giulia", email }, { key });
    return { id: res.body.id as string, email };
  };
  const confirmed = async (customerId: string, date: Date) => {
    const created = await t.api.post(
      "/api/vendor/appointments",
      { customerId, type: "FITTING", date: date.toISOString(), duration: 30 },
      { key },
    );
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(
      (await t.api.patch(`/api/vendor/appointments/${id}`, { status: "CONFIRMED" }, { key })).status,
    ).toBe(200);
    return id;
  };
  return { vendor, key, customer, confirmed };
}

const reminderRows = (customerId: string) =>
  queryRows<{ status: string; last_error: string | null; next_attempt_at: string | Date }>(
    t.database.db,
    sql`select status, last_error, next_attempt_at from mails
        where kind = 'appointment_reminder' and customer_id = ${customerId} order by next_attempt_at`,
  );
const reminders = (email: string) => sink.to(email).filter((m) => m.parsed.subject?.startsWith("Reminder:"));
const dtstart = (m: (typeof sink.mails)[number] | undefined) =>
  /DTSTART:(\w+)/.exec(
    m?.parsed.attachments.find((a) => a.contentType.startsWith("text/calendar"))?.content.toString("utf8") ??
      "",
  )?.[1];
const icsTime = (d: Date) =>
  d
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");

describe("reminders", () => {
  it("go once through two senders and a restart, never for a cancelled or moved time", async () => {
    const s = await shop(15);
    const [kept, cancelled, moved] = [await s.customer(), await s.customer(), await s.customer()];
    // Due some seconds from now: the window is 15 minutes, the starts a little further.
    const soon = (seconds: number) => new Date(Date.now() + 15 * 60_000 + seconds * 1000);
    const keptAt = soon(20);
    await s.confirmed(kept.id, keptAt);
    const cancelledId = await s.confirmed(cancelled.id, soon(20));
    const movedId = await s.confirmed(moved.id, soon(20));
    const movedTo = soon(24);
    const patch = (id: string, body: object) =>
      t.api.patch(`/api/vendor/appointments/${id}`, body, { key: s.key });
    expect((await patch(cancelledId, { status: "CANCELLED" })).status).toBe(200);
    expect((await patch(movedId, { date: movedTo.toISOString() })).status).toBe(200);
    // Three reminders and the moved one's second are waiting, each due at its time.
    const waiting = await reminderRows(kept.id);
    expect(waiting).toHaveLength(1);
    expect(new Date(waiting[0]?.next_attempt_at as string).getTime()).toBe(keptAt.getTime() - 15 * 60_000);

    // Two workers, one of them restarted before anything is due.
    const first = await startSender();
    await startSender();
    await first.stop(2_000);
    await startSender();

    await eventually(async () => (await reminderRows(kept.id))[0]?.status === "SENT", 90_000);
    const movedRows = await eventually(async () => {
      const rows = await reminderRows(moved.id);
      return rows.length === 2 && rows.every((r) => r.status !== "PENDING") && rows;
    }, 90_000);
    // The first, for the time since moved, was recognised as stale when due; the new one went.
    expect(movedRows.map((r) => [r.status, r.last_error])).toEqual([
      ["FAILED", STALE_REMINDER_ERROR],
      ["SENT", null],
    ]);
    const cancelledRows = await eventually(async () => {
      const rows = await reminderRows(cancelled.id);
      return rows[0]?.status === "FAILED" && rows;
    }, 90_000);
    expect(cancelledRows.map((r) => r.last_error)).toEqual([STALE_REMINDER_ERROR]);

    // Recorded SENT means the SMTP server accepted it: exactly once each.
    await eventually(async () => reminders(moved.email).length > 0, 10_000);
    expect(reminders(kept.email)).toHaveLength(1);
    expect(reminders(moved.email)).toHaveLength(1);
    expect(reminders(cancelled.email)).toHaveLength(0);
    expect(dtstart(reminders(kept.email)[0])).toBe(icsTime(keptAt));
    expect(dtstart(reminders(moved.email)[0])).toBe(icsTime(movedTo));
    expect(reminders(kept.email)[0]?.parsed.text).toContain("A reminder of your appointment at Bella Sposa.");
    expect(reminders(kept.email)[0]?.parsed.text).toMatch(new RegExp(`${t.url}/my/appointments/va_`));
    // The runner's cap only: the reminders fall due some 20 s in.
  }, 180_000);

  it("none for an appointment confirmed inside its window, nor when the setting is 0", async () => {
    const within = await shop(15);
    const late = await within.customer();
    await within.confirmed(late.id, new Date(Date.now() + 10 * 60_000));
    const off = await shop(0);
    const later = await off.customer();
    await off.confirmed(later.id, new Date(Date.now() + 3 * 86_400_000));
    const kinds = async (customerId: string) =>
      (
        await queryRows<{ kind: string }>(
          t.database.db,
          sql`select kind from mails where customer_id = ${customerId}`,
        )
      ).map((r) => r.kind);
    // The confirmation is written in the same transaction as any reminder would be.
    expect(await kinds(late.id)).toEqual(["appointment_confirmed"]);
    expect(await kinds(later.id)).toEqual(["appointment_confirmed"]);
  });
});
