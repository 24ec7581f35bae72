// Customers kept informed (CONTRACT 10), read back from a real SMTP server: behind the shop's
// setting (off by default), a status change with a message mails the customer the message and
// the tracking link, a confirmed appointment a calendar invitation (METHOD:REQUEST) and a
// cancelled one METHOD:CANCEL with the same UID; every customer mail has one-click unsubscribe
// (RFC 8058), after which the customer gets no more; and the order's status move stays one
// statement whether or not a mail is due.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.ts";
import { updateShopSettings } from "../../src/modules/vendors/shop-settings.ts";
import { Browser } from "../helpers/browser.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { signedInBrowser } from "../helpers/oauth.ts";
import { useMailSender } from "../helpers/smtp.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp({ ownDatabase: true });
// Its own handle: the status moves below count their statements, and the sender polls beside them.
const mail = useMailSender(() => t, { ownHandle: true });
let seq = 0;

async function shop(customerMail: boolean) {
  const { vendor, key } = await createVendorWithKey(t.ctx, "Bella & <Co>");
  await updateShopSettings(t.ctx, vendor.id, {
    name: "Bella & <Co>",
    contactEmail: "hello@bella.example",
    timeZone: "Europe/Lisbon",
    customerMail,
  });
  const customerEmail = `bride-${Date.now()}-${seq++}@example.test`;
  const order = await t.api.post(
    "/api/vendor/orders",
    { customerName: "Maria <i>Silva</i>", customerEmail, type: "BRIDAL_DRESS", model: "Aurora" },
    { key },
  );
  expect(order.status).toBe(201);
  return {
    vendor,
    key,
    customerEmail,
    orderId: order.body.id as string,
    customerId: order.body.customerId as string,
  };
}

/** The raw message's header lines unfolded (RFC 5322 2.2.3). */
const unfold = (raw: string) => raw.replace(/\r?\n[ \t]+/g, " ");

const mailsTo = (address: string) =>
  queryRows<{ kind: string }>(t.database.db, sql`select kind from mails where to_address = ${address}`);

async function statementsOf(send: () => Promise<{ status: number }>) {
  const before = t.database.queryCount();
  const res = await send();
  expect(res.status).toBe(200);
  return t.database.queryCount() - before;
}

describe("a status change with a message", () => {
  it("is mailed to the customer from the shop's name, with the tracking link and one-click unsubscribe", async () => {
    const s = await shop(true);
    const res = await t.api.put(
      `/api/vendor/orders/${s.orderId}/status`,
      { status: "IN_PRODUCTION", message: "Cutting <script>alert(1)</script> begins" },
      { key: s.key },
    );
    expect(res.status).toBe(200);
    const [received] = await mail.sink.waitFor(s.customerEmail);
    const m = received?.parsed;
    expect(m?.from?.value[0]).toEqual({ name: "Bella & <Co>", address: expect.any(String) });
    // The contact e-mail was typed into Settings, never verified: no Reply-To (CONTRACT 12;
    // test/mail/mail-budget.test.ts has the verified case).
    expect(m?.replyTo).toBeUndefined();
    expect(m?.subject).toBe("Order #1001 (Bridal dress Aurora): In production");
    expect(m?.text).toContain("Cutting <script>alert(1)</script> begins");
    expect(m?.text).toMatch(new RegExp(`${t.url}/track/[A-Za-z0-9_-]{43}`));
    expect(m?.html).toContain("Cutting &lt;script&gt;alert(1)&lt;/script&gt; begins");
    expect(m?.html).toContain("Maria &lt;i&gt;Silva&lt;/i&gt;");
    expect(m?.html).not.toContain("<script>");
    const headers = unfold(received?.raw ?? "");
    expect(headers).toMatch(new RegExp(`List-Unsubscribe: <${t.url}/unsubscribe/vu_[^>]+>`));
    expect(headers).toContain("List-Unsubscribe-Post: List-Unsubscribe=One-Click");
    expect(m?.text).toBeTruthy();
    expect(m?.html).toBeTruthy();
  });

  it("without a message, or with the setting off (the default), mails nothing and costs no statement", async () => {
    const on = await shop(true);
    const off = await shop(false);
    const move = (s: typeof on, body: object) =>
      statementsOf(() => t.api.put(`/api/vendor/orders/${s.orderId}/status`, body, { key: s.key }));
    const counts = [
      await move(on, { status: "IN_PRODUCTION" }),
      await move(off, { status: "IN_PRODUCTION", message: "News" }),
    ];
    expect(counts).toEqual([1, 1]);
    // A mail due is written by that same statement (the sender's claim and record then follow,
    // off the request's path; they share this database handle, so they are not counted here).
    await t.api.put(
      `/api/vendor/orders/${on.orderId}/status`,
      { status: "FITTING_READY", message: "Come and try it on" },
      { key: on.key },
    );
    await mail.sink.waitFor(on.customerEmail);
    expect(await mailsTo(on.customerEmail)).toHaveLength(1);
    expect(await mailsTo(off.customerEmail)).toHaveLength(0);
  });
});

describe("unsubscribing", () => {
  it("one click (RFC 8058 POST) stops the shop's mail to the customer, and the dashboard shows it", async () => {
    const s = await shop(true);
    await t.api.put(
      `/api/vendor/orders/${s.orderId}/status`,
      { status: "IN_PRODUCTION", message: "One" },
      { key: s.key },
    );
    const [first] = await mail.sink.waitFor(s.customerEmail);
    const url = /List-Unsubscribe: <([^>]+)>/.exec(unfold(first?.raw ?? ""))?.[1] as string;
    expect(url).toMatch(new RegExp(`^${t.url}/unsubscribe/vu_`));
    // A link scanner's GET changes nothing; the mail client's one-click POST does.
    expect((await fetch(url)).status).toBe(200);
    const click = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "List-Unsubscribe=One-Click",
    });
    expect(click.status).toBe(200);
    expect(await click.text()).toContain("Bella &amp; &lt;Co&gt; will not e-mail you any more.");
    expect((await fetch(`${t.url}/unsubscribe/vu_not-a-token`, { method: "POST" })).status).toBe(404);

    await t.api.put(
      `/api/vendor/orders/${s.orderId}/status`,
      { status: "FITTING_READY", message: "Two" },
      { key: s.key },
    );
    expect(await mailsTo(s.customerEmail)).toHaveLength(1);
    const browser = await signedInBrowser(t, s.vendor.email);
    const page = await browser.get(`/dashboard/customers/${s.customerId}`);
    expect(page.text).toContain('id="unsubscribed"');
    // The dashboard shows the shop's recent mail with its status.
    const settings = await browser.get("/dashboard/settings");
    expect(settings.text).toContain('id="recent-mail"');
    expect(settings.text).toMatch(
      /<tr data-status="SENT">.*Order #1001 \(Bridal dress Aurora\): In production/s,
    );
    expect((await new Browser(t.url).get(`/dashboard/customers/${s.customerId}`)).status).toBe(303);
  });
});

describe("appointments", () => {
  it("a confirmation carries a METHOD:REQUEST invitation and the cancellation METHOD:CANCEL with the same UID", async () => {
    const s = await shop(true);
    const created = await t.api.post(
      "/api/vendor/appointments",
      { customerId: s.customerId, type: "FITTING", date: "2031-05-01T09:30:00Z", duration: 45 },
      { key: s.key },
    );
    expect(created.status).toBe(201);
    const path = `/api/vendor/appointments/${created.body.id}`;
    expect((await t.api.patch(path, { status: "CONFIRMED" }, { key: s.key })).status).toBe(200);
    const [confirmed] = await mail.sink.waitFor(s.customerEmail);
    const ics = (m: typeof confirmed) =>
      m?.parsed.attachments
        .find((a) => a.contentType.startsWith("text/calendar"))
        ?.content.toString("utf8") ?? "";
    const request = ics(confirmed).replace(/\r\n /g, "");
    expect(request).toContain("METHOD:REQUEST");
    expect(request).toContain("DTSTART:20310501T093000Z");
    expect(request).toContain("DURATION:PT45M");
    expect(request).toMatch(/STATUS:CONFIRMED/);
    const uid = /UID:(.+)/.exec(request)?.[1]?.trim();
    expect(uid).toBe(`appointment-${created.body.id}@127.0.0.1`);
    // The organizer is where calendar replies go: MAIL_FROM's address, the contact e-mail being unverified.
    expect(request).toMatch(/ORGANIZER;CN="Bella & <Co>":MAILTO:no-reply@/i);
    // Times in the shop's zone in the text: 09:30 UTC is 10:30 in Lisbon in May.
    expect(confirmed?.parsed.text).toContain("Thursday, May 1, 2031 at 10:30 AM");
    expect(confirmed?.parsed.text).toContain("Europe/Lisbon");

    expect((await t.api.patch(path, { status: "CANCELLED" }, { key: s.key })).status).toBe(200);
    const [, cancelled] = await mail.sink.waitFor(s.customerEmail, 2);
    const cancel = ics(cancelled).replace(/\r\n /g, "");
    expect(cancel).toContain("METHOD:CANCEL");
    expect(cancel).toContain("STATUS:CANCELLED");
    expect(/UID:(.+)/.exec(cancel)?.[1]?.trim()).toBe(uid);
    const sequence = (text: string) => Number(/SEQUENCE:(\d+)/.exec(text)?.[1]);
    expect(sequence(cancel)).toBeGreaterThan(sequence(request));
  });

  it("the setting off mails nothing about appointments", async () => {
    const s = await shop(false);
    const created = await t.api.post(
      "/api/vendor/appointments",
      { customerId: s.customerId, type: "FITTING", date: "2031-05-01T09:30:00Z", duration: 45 },
      { key: s.key },
    );
    await t.api.patch(`/api/vendor/appointments/${created.body.id}`, { status: "CONFIRMED" }, { key: s.key });
    expect(await mailsTo(s.customerEmail)).toHaveLength(0);
  });
});
