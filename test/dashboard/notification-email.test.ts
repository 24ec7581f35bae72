// The shop's mail goes where its owners say (CONTRACT 12). New inquiries are mailed to the shop's
// notification e-mail, which Settings shows as it is; owners change it through a link mailed to
// the new address (the setting changes only when it is followed; kept as a hash, one use, one
// day); removing or demoting the member whose address it is moves it to a remaining owner, who is
// told, as the activity log and Settings tell the others; invitations die with their sender's
// removal or demotion; staff cannot change it. Every mail is read back from a real SMTP server.
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.ts";
import { hashSecret } from "../../src/lib/crypto.ts";
import { updateShopSettings } from "../../src/modules/vendors/shop-settings.ts";
import { Browser } from "../helpers/browser.ts";
import { adjustableClock } from "../helpers/clock.ts";
import { confirmThrough, csrfOf, flashOf, follow, postFrom, signedInVendor } from "../helpers/dashboard.ts";
import { createMember, createVendor } from "../helpers/factories.ts";
import { signedInBrowser } from "../helpers/oauth.ts";
import { useMailSender } from "../helpers/smtp.ts";
import { useTestApp } from "../helpers/test-app.ts";
import { eventually } from "../helpers/webhook-receiver.ts";

const clock = adjustableClock();
// The file signs in a few dozen times from one address: the sign-in pages' per-address budget is
// not what it tests.
const t = useTestApp({ ownDatabase: true, now: clock.now, config: { signInRateLimitPerMinute: 1000 } });
const mail = useMailSender(() => t);
const SETTINGS = "/dashboard/settings";
const TEAM = "/dashboard/settings/team";
const CHANGE = "/dashboard/settings/notification-email";

const address = (who: string) => `${who}-${randomUUID()}@example.test`;

/** A prospect writes through the public form; returns the mail's subject. */
async function inquire(vendorId: string, name = `Prospect ${randomUUID().slice(0, 8)}`): Promise<string> {
  const res = await fetch(`${t.url}/api/public/vendors/${vendorId}/inquiries`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name, email: "prospect@example.test", message: "Do you have size 38?" }),
  });
  expect(res.status).toBe(201);
  return `New inquiry from ${name}`;
}

/** Waits for the mail with this subject to `to`, then proves nobody else was sent it. */
async function deliveredOnlyTo(to: string, subject: string): Promise<void> {
  await eventually(async () =>
    mail.sink.to(to).some((m) => m.parsed.subject === subject) ? true : undefined,
  );
  const elsewhere = mail.sink.mails.filter(
    (m) => m.parsed.subject === subject && !m.envelopeTo.some((a) => a.toLowerCase() === to.toLowerCase()),
  );
  expect(elsewhere.map((m) => m.envelopeTo)).toEqual([]);
  // One mail was written for the inquiry, to this address alone: nothing else is still to come.
  const rows = await queryRows<{ to_address: string }>(
    t.database.db,
    sql`select to_address from mails where kind = 'inquiry_received' and data->>'name' = ${subject.replace("New inquiry from ", "")}`,
  );
  expect(rows.map((r) => r.to_address)).toEqual([to]);
}

/** The address Settings says new inquiries are mailed to. */
function shownAddress(page: { text: string }): string | undefined {
  return /<strong data-notification-email>([^<]*)<\/strong>/.exec(page.text)?.[1];
}

/** The link in the latest confirmation mail to `email`, as its reader opens it. */
async function confirmationLink(email: string, n = 1): Promise<string> {
  const received = await mail.sink.waitFor(email, n);
  const text = received[n - 1]?.parsed.text ?? "";
  const link = /(https?:\/\/\S+\/notification-email\/confirm\?token=\S+)/.exec(text)?.[1];
  if (!link) throw new Error(`no confirmation link in: ${text}`);
  return link.slice(link.indexOf("/notification-email"));
}

/** Opens the link and clicks its button, as the reader of the address does. */
async function followLink(link: string) {
  const browser = new Browser(t.url);
  const page = await browser.get(link);
  if (page.status !== 200) return page;
  return browser.submit(page, {});
}

/** A shop with its founder signed in and a second owner, signed in too. */
async function shopWithTwoOwners() {
  const { vendor, browser: founder } = await signedInVendor(t, "Casa Noiva");
  const second = await createMember(t.ctx, vendor.id, {
    role: "owner",
    name: "Olga Owner",
    email: address("olga"),
  });
  return { vendor, founder, second, secondBrowser: await signedInBrowser(t, second.email) };
}

describe("where new inquiries are mailed", () => {
  it("Settings shows the address they actually go to: the founding owner's sign-in e-mail, not the contact e-mail", async () => {
    const { vendor, browser } = await signedInVendor(t);
    const contact = address("hello");
    await updateShopSettings(t.ctx, vendor.id, { name: "Casa", contactEmail: contact, timeZone: "UTC" });
    const page = await browser.get(SETTINGS);
    expect(shownAddress(page)).toBe(vendor.email);
    expect(page.text).not.toContain("your sign-in e-mail");
    expect(page.text).toContain(`is mailed to <a href="#notifications">${vendor.email}</a>`);
    await deliveredOnlyTo(vendor.email, await inquire(vendor.id));
  });

  it("a removed founding owner receives no new inquiry; the remaining owner does, and is told so", async () => {
    const { vendor, second, secondBrowser } = await shopWithTwoOwners();
    const removed = await follow(
      secondBrowser,
      await confirmThrough(secondBrowser, `${TEAM}/${vendor.ownerId}/remove`),
    );

    await deliveredOnlyTo(second.email, await inquire(vendor.id));
    // The owner who removed them is told where the shop's mail goes now.
    expect(flashOf(removed)?.text).toContain(`The shop's notifications now go to ${second.email}`);
    expect(mail.sink.to(vendor.email).filter((m) => m.parsed.subject?.startsWith("New inquiry"))).toEqual([]);

    // The new recipient is mailed; Settings shows the address and says why it moved.
    const [told] = await mail.sink.waitFor(second.email, 1);
    expect(mail.sink.to(second.email).map((m) => m.parsed.subject)).toContain(
      "Casa Noiva’s notifications now come to you",
    );
    expect(told).toBeDefined();
    const settings = await secondBrowser.get(SETTINGS);
    expect(shownAddress(settings)).toBe(second.email);
    expect(settings.text).toContain('data-notice="notification-email-moved"');
    expect(settings.text).toContain("the member they went to was removed or is no longer an owner");
    // And the activity log records it, naming who did it.
    const activity = await secondBrowser.get("/dashboard/activity");
    expect(activity.text).toMatch(
      /<tr data-action="settings\.notification_email_moved">[\s\S]*?Olga Owner[\s\S]*?moved the shop(?:'|&#39;)s notifications to owner[\s\S]*?the member they went to was removed/,
    );
  });

  it("demoting the owner whose address it is moves it to a remaining owner too", async () => {
    const { vendor, second, secondBrowser } = await shopWithTwoOwners();
    const demoted = await follow(
      secondBrowser,
      await postFrom(secondBrowser, TEAM, `${TEAM}/${vendor.ownerId}/role`, { role: "staff" }),
    );
    await deliveredOnlyTo(second.email, await inquire(vendor.id));
    expect(flashOf(demoted)?.text).toContain(`The shop's notifications now go to ${second.email}`);
    expect(shownAddress(await secondBrowser.get(SETTINGS))).toBe(second.email);
    const activity = await secondBrowser.get("/dashboard/activity");
    expect(activity.text).toContain("the member they went to is no longer an owner");
  });

  it("an address the removed owner had confirmed moves too: they cannot keep the mail through a private inbox", async () => {
    const { vendor, founder, second, secondBrowser } = await shopWithTwoOwners();
    const privateInbox = address("olga-private");
    await postFrom(secondBrowser, SETTINGS, CHANGE, { notificationEmail: privateInbox });
    expect((await followLink(await confirmationLink(privateInbox))).status).toBe(303);
    expect(shownAddress(await founder.get(SETTINGS))).toBe(privateInbox);
    await follow(founder, await confirmThrough(founder, `${TEAM}/${second.id}/remove`));
    await deliveredOnlyTo(vendor.email, await inquire(vendor.id));
    expect(shownAddress(await founder.get(SETTINGS))).toBe(vendor.email);
  });

  it("removing a member whose address it is not leaves it where it is", async () => {
    const { vendor, founder, second } = await shopWithTwoOwners();
    const done = await follow(founder, await confirmThrough(founder, `${TEAM}/${second.id}/remove`));
    expect(flashOf(done)?.text).not.toContain("notifications");
    expect(shownAddress(await founder.get(SETTINGS))).toBe(vendor.email);
    await deliveredOnlyTo(vendor.email, await inquire(vendor.id));
  });
});

describe("changing the address", () => {
  it("takes a link mailed to the new address: before it is followed mail goes to the old one, after to the new", async () => {
    const { vendor, browser } = await signedInVendor(t, "Bella Sposa");
    const next = address("inbox");
    const asked = await follow(
      browser,
      await postFrom(browser, SETTINGS, CHANGE, { notificationEmail: next }),
    );
    expect(flashOf(asked)).toMatchObject({ kind: "success" });
    expect(flashOf(asked)?.text).toContain(`A confirmation link was sent to ${next}`);
    expect(shownAddress(asked)).toBe(vendor.email);
    expect(asked.text).toContain(`Waiting for confirmation: <strong>${next}</strong>`);

    const link = await confirmationLink(next);
    // Not followed yet: the old address still gets the shop's mail.
    await deliveredOnlyTo(vendor.email, await inquire(vendor.id));

    // Only the token's SHA-256 is kept, and once sent the outbox row forgets the token too.
    const token = decodeURIComponent(new URL(link, t.url).searchParams.get("token") ?? "");
    const [row] = await queryRows<{ token_hash: string; expires_at: string; created_at: string }>(
      t.database.db,
      sql`select token_hash, expires_at, created_at from notification_email_changes where vendor_id = ${vendor.id}`,
    );
    expect(row?.token_hash).toBe(hashSecret(token));
    expect(JSON.stringify(row)).not.toContain(token);
    const outbox = await eventually(async () => {
      const rows = await queryRows<{ status: string }>(
        t.database.db,
        sql`select * from mails where vendor_id = ${vendor.id} and kind = 'notification_email_confirm'`,
      );
      return rows.every((r) => r.status === "SENT") ? rows : undefined;
    });
    expect(JSON.stringify(outbox)).not.toContain(token);

    // A mail scanner fetching the link changes nothing: the page asks for a click.
    const reader = new Browser(t.url);
    const page = await reader.get(link);
    expect(page.status).toBe(200);
    expect(page.text).toContain("Bella Sposa");
    expect(page.text).toContain(next);
    await deliveredOnlyTo(vendor.email, await inquire(vendor.id));
    const confirmed = await reader.submit(page, {});
    expect(confirmed.status).toBe(303);
    expect((await reader.get(confirmed.location ?? "")).text).toContain("now come to this address");

    const settings = await browser.get(SETTINGS);
    expect(shownAddress(settings)).toBe(next);
    expect(settings.text).not.toContain("Waiting for confirmation");
    await deliveredOnlyTo(next, await inquire(vendor.id));

    // The link worked once.
    const again = await new Browser(t.url).get(link);
    expect(again.status).toBe(400);
    expect(again.text).toContain("no longer valid");
    const activity = await browser.get("/dashboard/activity");
    expect(activity.text).toContain('data-action="settings.notification_email_requested"');
    expect(activity.text).toContain('data-action="settings.notification_email_confirmed"');
  });

  it("a link older than a day, or replaced by a newer one, does not work", async () => {
    const { vendor, browser } = await signedInVendor(t);
    const first = address("first");
    await postFrom(browser, SETTINGS, CHANGE, { notificationEmail: first });
    const late = await confirmationLink(first);
    clock.advance(24 * 3600 * 1000 + 1000);
    try {
      expect((await followLink(late)).status).toBe(400);
    } finally {
      clock.setOffset(0);
    }
    const second = address("second");
    await postFrom(browser, SETTINGS, CHANGE, { notificationEmail: first });
    const replaced = await confirmationLink(first, 2);
    await postFrom(browser, SETTINGS, CHANGE, { notificationEmail: second });
    expect((await followLink(replaced)).status).toBe(400);
    expect((await followLink(await confirmationLink(second))).status).toBe(303);
    expect(shownAddress(await browser.get(SETTINGS))).toBe(second);
    expect(vendor.email).not.toBe(second);
  });

  it("a change asked by an owner who is then removed can no longer be confirmed", async () => {
    const { vendor, founder, second, secondBrowser } = await shopWithTwoOwners();
    const theirs = address("theirs");
    await postFrom(secondBrowser, SETTINGS, CHANGE, { notificationEmail: theirs });
    const link = await confirmationLink(theirs);
    await follow(founder, await confirmThrough(founder, `${TEAM}/${second.id}/remove`));
    const page = await new Browser(t.url).get(link);
    expect(page.status).toBe(400);
    expect(page.text).toContain("no longer valid");
    expect(shownAddress(await founder.get(SETTINGS))).toBe(vendor.email);
    await deliveredOnlyTo(vendor.email, await inquire(vendor.id));
  });

  it("a bad address, or the one in force, is refused naming the field, and mails nothing", async () => {
    const { vendor, browser } = await signedInVendor(t);
    for (const [value, message] of [
      ["not-an-address", "notificationEmail must be an e-mail address"],
      [`${"x".repeat(250)}@example.test`, "notificationEmail must be an e-mail address"],
      [vendor.email.toUpperCase(), "notificationEmail is already where notifications go"],
    ] as const) {
      const page = await follow(
        browser,
        await postFrom(browser, SETTINGS, CHANGE, { notificationEmail: value }),
      );
      expect(flashOf(page)).toMatchObject({ kind: "error" });
      expect(flashOf(page)?.text).toContain(message);
    }
    const rows = await queryRows(
      t.database.db,
      sql`select 1 from notification_email_changes where vendor_id = ${vendor.id}`,
    );
    expect(rows).toEqual([]);
  });

  it("staff cannot change it (403) and do not see it", async () => {
    const vendor = await createVendor(t.ctx);
    const staff = await createMember(t.ctx, vendor.id);
    const browser = await signedInBrowser(t, staff.email);
    expect((await browser.get(SETTINGS)).status).toBe(403);
    const orders = await browser.get("/dashboard/orders");
    const res = await browser.post(CHANGE, { _csrf: csrfOf(orders), notificationEmail: address("staff") });
    expect(res.status).toBe(403);
    const rows = await queryRows(
      t.database.db,
      sql`select 1 from notification_email_changes where vendor_id = ${vendor.id}`,
    );
    expect(rows).toEqual([]);
  });
});

describe("invitations die with their sender's standing", () => {
  /** The invitation link of the latest mail to `email`. */
  async function invitationLink(email: string): Promise<string> {
    const [received] = await mail.sink.waitFor(email);
    const text = received?.parsed.text ?? "";
    const link = /(https?:\/\/\S+\/invitation\?token=\S+)/.exec(text)?.[1];
    if (!link) throw new Error(`no invitation link in: ${text}`);
    return link.slice(link.indexOf("/invitation"));
  }

  async function expectDead(link: string, invitee: string) {
    const browser = new Browser(t.url);
    const page = await browser.get(link);
    expect(page.status).toBe(400);
    expect(page.text).toContain("This invitation is no longer valid");
    // Even a form kept from before cannot use it.
    const res = await browser.post("/invitation", {
      _csrf: csrfOf(await browser.get("/login")),
      token: decodeURIComponent(new URL(link, t.url).searchParams.get("token") ?? ""),
      name: "Back Again",
      password: "a long enough passphrase",
    });
    expect(res.status).toBe(400);
    expect(res.text).toContain("This invitation is no longer valid");
    await expect(signedInBrowser(t, invitee, "a long enough passphrase")).rejects.toThrow(
      /sign-in failed: 401/,
    );
  }

  it("an invitation sent by an owner who is then removed cannot be accepted", async () => {
    const { founder, second, secondBrowser } = await shopWithTwoOwners();
    const alias = address("olga-alias");
    await postFrom(secondBrowser, TEAM, `${TEAM}/invitations`, { email: alias, role: "owner" });
    const link = await invitationLink(alias);
    const removed = await follow(founder, await confirmThrough(founder, `${TEAM}/${second.id}/remove`));
    await expectDead(link, alias);
    // The owner who removed them is told, and the team page no longer lists it.
    expect(flashOf(removed)?.text).toContain("The invitation they sent no longer works");
    expect(removed.text).not.toContain(alias);
  });

  it("an invitation sent by an owner who is then made staff cannot be accepted", async () => {
    const { founder, second, secondBrowser } = await shopWithTwoOwners();
    const invitee = address("invitee");
    await postFrom(secondBrowser, TEAM, `${TEAM}/invitations`, { email: invitee, role: "staff" });
    const link = await invitationLink(invitee);
    await postFrom(founder, TEAM, `${TEAM}/${second.id}/role`, { role: "staff" });
    await expectDead(link, invitee);
  });

  it("an invitation whose sender left before revocation existed cannot be accepted either", async () => {
    const { vendor, browser } = await signedInVendor(t);
    const invitee = address("legacy");
    await postFrom(browser, TEAM, `${TEAM}/invitations`, { email: invitee, role: "owner" });
    const link = await invitationLink(invitee);
    // What removal left behind before: the row, its sender set null by the foreign key.
    await t.database.db.execute(
      sql`update member_invitations set invited_by = null where vendor_id = ${vendor.id}`,
    );
    await expectDead(link, invitee);
  });
});
