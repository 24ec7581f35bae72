// A shop's account is no relay for phishing (CONTRACT 12, src/mail/budget.ts), read back from a
// real SMTP server: a shop whose e-mail is not confirmed sends no customer mail nor invitations,
// a confirmed shop sends at most its budget an hour and a day and the rest is held (the writes
// still answer 2xx: held mail is shown on Settings and counted in /metrics, never refused),
// sent when the budget allows or dropped unsent when held too long; sign-up mails are limited
// per e-mail address and per client address, with the same answer either way; and a customer
// mail's Reply-To is never an address the shop did not verify.
import { sql } from "drizzle-orm";
import type { Logger } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.ts";
import { type RunningMailSender, startMailSender } from "../../src/mail/sender.ts";
import {
  confirmNotificationEmailChange,
  requestNotificationEmailChange,
} from "../../src/modules/vendors/notification-email.service.ts";
import { updateShopSettings } from "../../src/modules/vendors/shop-settings.ts";
import { Browser, type PageResponse } from "../helpers/browser.ts";
import { adjustableClock } from "../helpers/clock.ts";
import { postFrom } from "../helpers/dashboard.ts";
import { createKey, createVendor } from "../helpers/factories.ts";
import { signedInBrowser } from "../helpers/oauth.ts";
import { type SmtpSink, startSmtpSink } from "../helpers/smtp.ts";
import { startTestApp, type TestApp, useTestApp } from "../helpers/test-app.ts";
import { eventually } from "../helpers/webhook-receiver.ts";

const clock = adjustableClock();
// A new shop may send 3 budgeted mails an hour and 5 a day here (the defaults are 10 and 50).
const budget = { hour: 100, day: 1000, newHour: 3, newDay: 5, newShopDays: 7, heldMaxHours: 72 };
const t = useTestApp({
  ownDatabase: true,
  now: clock.now,
  config: { signInRateLimitPerMinute: 1000, mailBudget: budget },
});
let sink: SmtpSink;
let sender: RunningMailSender;
let seq = 0;

beforeAll(async () => {
  sink = await startSmtpSink();
  sender = await startMailSender({
    config: { ...t.config, smtpUrl: sink.url, mailRetryDelaysMs: [50] },
    database: t.database,
    now: clock.now,
    log: { info: () => {}, warn: () => {}, error: () => {} } as unknown as Logger,
  });
});
afterAll(async () => {
  await sender?.stop(2_000);
  await sink?.close();
});

/** A shop with customer mail on and an API key. */
async function shop(options: { emailConfirmed?: boolean; contactEmail?: (own: string) => string } = {}) {
  const vendor = await createVendor(t.ctx, "Bella Sposa", { emailConfirmed: options.emailConfirmed ?? true });
  await updateShopSettings(t.ctx, vendor.id, {
    name: "Bella Sposa",
    contactEmail: options.contactEmail?.(vendor.email) ?? null,
    timeZone: "Europe/Lisbon",
    customerMail: true,
  });
  return { vendor, key: await createKey(t.ctx, vendor.id) };
}

/** An order for a new customer, moved with a message: one customer mail; returns its address. */
async function customerMail(key: string): Promise<string> {
  const customerEmail = `bride-${Date.now()}-${seq++}@example.test`;
  const order = await t.api.post(
    "/api/vendor/orders",
    { customerName: "Maria Silva", customerEmail, type: "BRIDAL_DRESS" },
    { key },
  );
  expect(order.status).toBe(201);
  const moved = await t.api.put(
    `/api/vendor/orders/${order.body.id}/status`,
    { status: "IN_PRODUCTION", message: "Please confirm your card details at https://evil.example" },
    { key },
  );
  expect(moved.status).toBe(200);
  return customerEmail;
}

const mailRows = (vendorId: string) =>
  queryRows<{ id: string; to_address: string; status: string }>(
    t.database.db,
    sql`select id, to_address, status from mails where vendor_id = ${vendorId} order by created_at, id`,
  );

/** Why each of the shop's mails is held (null: not held), in the order mailRows lists them. */
const heldReasons = async (vendorId: string) =>
  (
    await queryRows<{ held_reason: string | null }>(
      t.database.db,
      sql`select held_reason from mails where vendor_id = ${vendorId} order by created_at, id`,
    )
  ).map((r) => r.held_reason);

async function heldGauge(reason: string): Promise<number> {
  const text = await (await fetch(`${t.url}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(`vendor_api_mail_held{reason="${reason}"}`));
  return Number(line?.split(" ").pop() ?? Number.NaN);
}

describe("a shop whose e-mail is not confirmed", () => {
  it("sends no customer mail and no invitation: the writes answer 2xx, the mails are held and shown", async () => {
    const { vendor, key } = await shop({ emailConfirmed: false });
    const customer = await customerMail(key);
    const owner = await signedInBrowser(t, vendor.email);
    const invitee = `invitee-${Date.now()}@example.test`;
    const invited = await postFrom(
      owner,
      "/dashboard/settings/team",
      "/dashboard/settings/team/invitations",
      {
        email: invitee,
        role: "staff",
      },
    );
    expect(invited.status).toBe(303);

    // The sender took both and held them (before: both were sent at once).
    const rows = await eventually(async () => {
      const r = await mailRows(vendor.id);
      return r.length === 2 && r.every((m) => m.status === "HELD") ? r : undefined;
    });
    expect(rows.map((m) => m.to_address)).toEqual([customer, invitee]);
    expect(await heldReasons(vendor.id)).toEqual(["unconfirmed", "unconfirmed"]);
    // HELD is the sender's verdict, written instead of a send: nothing went out.
    expect(sink.to(customer)).toHaveLength(0);
    expect(sink.to(invitee)).toHaveLength(0);
    expect(await heldGauge("unconfirmed")).toBeGreaterThanOrEqual(2);
    const settings = await owner.get("/dashboard/settings");
    expect(settings.text).toContain('data-status="HELD"');
    expect(settings.text).toContain("the shop&#39;s e-mail address is not confirmed yet");

    // Still held after MAIL_HELD_MAX_HOURS (72 here): dropped unsent, and Settings says why.
    clock.advance(73 * 60 * 60_000);
    await eventually(async () => {
      const r = await mailRows(vendor.id);
      return r.every((m) => m.status === "FAILED") ? r : undefined;
    });
    expect(await heldReasons(vendor.id)).toEqual(["unconfirmed", "unconfirmed"]);
    expect(sink.to(customer)).toHaveLength(0);
    expect(sink.to(invitee)).toHaveLength(0);
    // Three days on the session is over: a fresh sign-in.
    const after = await (await signedInBrowser(t, vendor.email)).get("/dashboard/settings");
    expect(after.text).toContain("held too long: the shop&#39;s e-mail address is not confirmed yet");
  });
});

describe("a confirmed shop's mail budget", () => {
  it("past the hour's budget the rest is held (2xx all the same), counted in /metrics and on Settings, and sent as the budget allows", async () => {
    const { vendor, key } = await shop();
    const customers: string[] = [];
    for (let i = 0; i < 6; i++) customers.push(await customerMail(key));

    // 3 an hour for a new shop: the first three go, the other three are held.
    await sink.waitFor(customers[2] as string);
    const rows = await eventually(async () => {
      const r = await mailRows(vendor.id);
      const count = (status: string) => r.filter((m) => m.status === status).length;
      return count("HELD") === 3 && count("SENT") === 3 ? r : undefined;
    });
    expect(rows.map((m) => m.status)).toEqual(["SENT", "SENT", "SENT", "HELD", "HELD", "HELD"]);
    expect(await heldReasons(vendor.id)).toEqual([null, null, null, "hour", "hour", "hour"]);
    for (const c of customers.slice(3)) expect(sink.to(c)).toHaveLength(0);
    expect(await heldGauge("hour")).toBeGreaterThanOrEqual(3);
    const owner = await signedInBrowser(t, vendor.email);
    const settings = await owner.get("/dashboard/settings");
    expect(settings.text.match(/data-status="HELD"/g)).toHaveLength(3);
    expect(settings.text).toContain("over the shop&#39;s mail limit for an hour");
    expect(settings.text).toContain(
      "3 mails are held, not sent yet: 3 because over the shop&#39;s mail limit for an hour.",
    );

    // An hour on, two more go (5 a day) and the last waits for the day.
    clock.advance(61 * 60_000);
    await sink.waitFor(customers[4] as string);
    await eventually(async () => {
      const r = await mailRows(vendor.id);
      return r.filter((m) => m.status === "SENT").length === 5 && r[5]?.status === "HELD" ? r : undefined;
    });
    expect((await heldReasons(vendor.id))[5]).toBe("day");
    expect(sink.to(customers[5] as string)).toHaveLength(0);
  });
});

describe("the write path", () => {
  it("pays no statement for the budget: a status move that writes a customer mail is one statement", async () => {
    // An app of its own, so no sender shares the handle whose statements are counted.
    const app = await startTestApp({ config: { mailBudget: budget } });
    try {
      const vendor = await createVendor(app.ctx, "Bella Sposa");
      await updateShopSettings(app.ctx, vendor.id, {
        name: "Bella Sposa",
        contactEmail: null,
        timeZone: "UTC",
        customerMail: true,
      });
      const key = await createKey(app.ctx, vendor.id);
      const customerEmail = `counted-${Date.now()}@example.test`;
      const order = await app.api.post(
        "/api/vendor/orders",
        { customerName: "Maria Silva", customerEmail, type: "BRIDAL_DRESS" },
        { key },
      );
      const before = app.database.queryCount();
      const moved = await app.api.put(
        `/api/vendor/orders/${order.body.id}/status`,
        { status: "IN_PRODUCTION", message: "News" },
        { key },
      );
      expect(moved.status).toBe(200);
      expect(app.database.queryCount() - before).toBe(1);
      expect(
        await queryRows(app.database.db, sql`select id from mails where to_address = ${customerEmail}`),
      ).toHaveLength(1);
    } finally {
      await app.close();
    }
  });
});

describe("Reply-To of a customer mail", () => {
  it("is never a contact e-mail the shop has not verified, and is its contact e-mail when that is the shop's confirmed address", async () => {
    const stranger = await shop({ contactEmail: () => "payments@elsewhere.example" });
    const own = await shop({ contactEmail: (email) => email.toUpperCase() });
    const a = await customerMail(stranger.key);
    const b = await customerMail(own.key);
    const [toA] = await sink.waitFor(a);
    const [toB] = await sink.waitFor(b);
    expect(toA?.parsed.replyTo).toBeUndefined();
    expect(toA?.raw).not.toContain("elsewhere.example");
    expect(toB?.parsed.replyTo?.value[0]?.address?.toLowerCase()).toBe(own.vendor.email.toLowerCase());
    expect(toA?.parsed.from?.value[0]?.name).toBe("Bella Sposa");
  });
});

describe("Reply-To and the notification e-mail", () => {
  it("is the contact e-mail once that is the shop's confirmed notification e-mail, and none before", async () => {
    const frontDesk = `front-desk-${Date.now()}@bella-sposa.example`;
    const { vendor, key } = await shop({ contactEmail: () => frontDesk });
    const before = await customerMail(key);
    expect((await sink.waitFor(before))[0]?.parsed.replyTo).toBeUndefined();

    await requestNotificationEmailChange(
      t.ctx,
      vendor.id,
      { id: vendor.ownerId, name: "Owner" },
      { email: frontDesk },
    );
    const [confirmation] = await sink.waitFor(frontDesk);
    const token = /token=(vne_[A-Za-z0-9_-]+)/.exec(confirmation?.parsed.text ?? "")?.[1];
    expect(token).toBeDefined();
    expect(await confirmNotificationEmailChange(t.ctx, token as string)).toBeDefined();

    const after = await customerMail(key);
    const [mail] = await sink.waitFor(after);
    expect(mail?.parsed.replyTo?.value[0]?.address).toBe(frontDesk);
  });
});

describe("sign-up mails", () => {
  async function signUp(url: string, email: string): Promise<PageResponse> {
    const browser = new Browser(url);
    return browser.submit(await browser.get("/signup"), {
      name: "Your bank: verify at https://evil.example",
      email,
    });
  }
  const mailsTo = (app: TestApp, email: string) =>
    queryRows(app.database.db, sql`select id from mails where lower(to_address) = lower(${email})`);

  it("the 21st sign-up from one client address mails nothing, and is answered the same", async () => {
    const app = await startTestApp({
      config: { signInRateLimitPerMinute: 1000, signupMailsPerClient: 20, signupMailsPerAddress: 3 },
    });
    try {
      const answers: PageResponse[] = [];
      const addresses: string[] = [];
      for (let i = 0; i < 21; i++) {
        const email = `client-${Date.now()}-${i}@example.test`;
        addresses.push(email);
        answers.push(await signUp(app.url, email));
      }
      const [first] = answers;
      for (const a of answers)
        expect([a.status, a.location, a.text]).toEqual([303, "/signup/sent", first?.text]);
      // The mail row is written in the sign-up's own transaction: after the answer, it is there or never.
      for (const email of addresses.slice(0, 20)) expect(await mailsTo(app, email)).toHaveLength(1);
      expect(await mailsTo(app, addresses[20] as string)).toHaveLength(0);
    } finally {
      await app.close();
    }
  });

  it("past its budget one e-mail address gets no more sign-up mail, and the answer is the same", async () => {
    const app = await startTestApp({
      config: { signInRateLimitPerMinute: 1000, signupMailsPerClient: 1000, signupMailsPerAddress: 20 },
    });
    try {
      const email = `one-address-${Date.now()}@example.test`;
      const answers: PageResponse[] = [];
      for (let i = 0; i < 21; i++) answers.push(await signUp(app.url, email));
      for (const a of answers) expect([a.status, a.location]).toEqual([303, "/signup/sent"]);
      expect(answers[20]?.text).toBe(answers[0]?.text);
      expect(await mailsTo(app, email)).toHaveLength(20);
    } finally {
      await app.close();
    }
  });
});
