// A shop is a team (CONTRACT 10): owners invite people by e-mail (a one-time link valid 7 days,
// stored only as its hash, read here from a real SMTP server), change roles and remove members
// (signed out at once); the last owner stays; staff do the shop's daily work and nothing else,
// and every owner-only page and its form POST refuse them alike.
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { executeCommand } from "../../src/cli/commands.ts";
import { mails, memberInvitations } from "../../src/db/schema/index.ts";
import { hashSecret } from "../../src/lib/crypto.ts";
import { createApiKey } from "../../src/modules/api-keys/api-keys.service.ts";
import { Browser, type PageResponse } from "../helpers/browser.ts";
import { adjustableClock } from "../helpers/clock.ts";
import { confirmThrough, csrfOf, flashOf, follow, postFrom, signedInVendor } from "../helpers/dashboard.ts";
import { createMember, createVendor, TEST_PASSWORD } from "../helpers/factories.ts";
import { authorizePath, createClient, pkcePair, signedInBrowser, validParams } from "../helpers/oauth.ts";
import { useMailSender } from "../helpers/smtp.ts";
import { useTestApp } from "../helpers/test-app.ts";
import { eventually } from "../helpers/webhook-receiver.ts";

const clock = adjustableClock();
// The file signs in some forty times from one address: the sign-in pages' per-address budget is
// not what it tests (test/oauth/sign-in-rate-limit.test.ts does).
const t = useTestApp({ ownDatabase: true, now: clock.now, config: { signInRateLimitPerMinute: 1000 } });
const mail = useMailSender(() => t);
const TEAM = "/dashboard/settings/team";

/** The invitation link of the latest mail to `email`, as the invitee reads it. */
async function invitationLink(email: string, n = 1): Promise<string> {
  const received = await mail.sink.waitFor(email, n);
  const text = received[n - 1]?.parsed.text ?? "";
  const link = /(https?:\/\/\S+\/invitation\?token=\S+)/.exec(text)?.[1];
  if (!link) throw new Error(`no invitation link in: ${text}`);
  return link.slice(link.indexOf("/invitation"));
}

async function invite(owner: Browser, email: string, role = "staff"): Promise<PageResponse> {
  return postFrom(owner, TEAM, `${TEAM}/invitations`, { email, role });
}

/** Opens the link and joins with this name and password; the browser is then signed in. */
async function accept(link: string, name = "Rosa Counter", password = "rosa's own passphrase") {
  const browser = new Browser(t.url);
  const page = await browser.get(link);
  expect(page.status, page.text.slice(0, 300)).toBe(200);
  const res = await browser.submit(page, { name, password });
  return { browser, res };
}

describe("inviting a member", () => {
  it("mails a one-time link valid 7 days, kept only as a hash; the invitee chooses name and password and is staff", async () => {
    const { vendor, browser: owner } = await signedInVendor(t, "Casa Noiva");
    const email = `rosa-${randomUUID()}@example.test`;
    const sent = await follow(owner, await invite(owner, email));
    expect(flashOf(sent)?.text).toContain(`Invitation sent to ${email}`);
    expect(sent.text).toContain(email);

    const link = await invitationLink(email);
    const token = decodeURIComponent(new URL(link, t.url).searchParams.get("token") ?? "");
    const [row] = await t.ctx.db
      .select()
      .from(memberInvitations)
      .where(eq(memberInvitations.vendorId, vendor.id));
    expect(row?.tokenHash).toBe(hashSecret(token));
    expect(JSON.stringify(row)).not.toContain(token);
    expect(row && row.expiresAt.getTime() - row.createdAt.getTime()).toBe(7 * 24 * 3600 * 1000);
    // Once recorded as sent (the sink may have the mail before the sender records it), the
    // outbox row no longer holds the token either.
    const outbox = await eventually(async () => {
      const rows = await t.ctx.db.select().from(mails).where(eq(mails.vendorId, vendor.id));
      return rows.every((r) => r.status === "SENT") ? rows : undefined;
    });
    expect(JSON.stringify(outbox)).not.toContain(token);

    const page = await new Browser(t.url).get(link);
    expect(page.text).toContain("Casa Noiva");
    expect(page.text).toContain(email);
    const { browser, res } = await accept(link);
    expect(res.status).toBe(303);
    expect(res.location).toBe("/dashboard");
    const orders = await browser.get("/dashboard/orders");
    expect(orders.status).toBe(200);
    expect(orders.text).not.toContain('href="/dashboard/integrations"');
    expect(orders.text).not.toContain('href="/dashboard/settings"');

    // The link worked once.
    expect((await new Browser(t.url).get(link)).status).toBe(400);
    // They sign in with their own e-mail and password; the team page lists them as staff.
    await signedInBrowser(t, email, "rosa's own passphrase");
    const team = await owner.get(TEAM);
    expect(team.text).toContain("Rosa Counter");
    expect(team.text).toMatch(new RegExp(`${email}[\\s\\S]*?<option value="staff" selected>`));
  });

  it("a link older than 7 days, or cancelled, or replaced by a newer one, does not work", async () => {
    const { browser: owner } = await signedInVendor(t);
    const email = `late-${randomUUID()}@example.test`;
    await invite(owner, email);
    const first = await invitationLink(email);
    clock.advance(7 * 24 * 3600 * 1000 + 1000);
    try {
      expect((await new Browser(t.url).get(first)).status).toBe(400);
    } finally {
      clock.setOffset(0);
    }
    await invite(owner, email);
    const second = await invitationLink(email, 2);
    expect((await new Browser(t.url).get(first)).status).toBe(400);
    expect((await new Browser(t.url).get(second)).status).toBe(200);
    const team = await owner.get(TEAM);
    const cancel = /action="(\/dashboard\/settings\/team\/invitations\/[^"]+\/cancel)"/.exec(team.text)?.[1];
    expect(cancel).toBeDefined();
    await owner.post(cancel as string, { _csrf: csrfOf(team) });
    expect((await new Browser(t.url).get(second)).status).toBe(400);
  });

  it("an address that already has an account cannot take a second one; a bad name or password keeps the link", async () => {
    const { browser: owner } = await signedInVendor(t);
    const elsewhere = await createVendor(t.ctx);
    await invite(owner, elsewhere.email);
    const link = await invitationLink(elsewhere.email);
    const browser = new Browser(t.url);
    const page = await browser.get(link);
    const short = await browser.submit(page, { name: "X", password: "short" });
    expect(short.status).toBe(400);
    expect(short.text).toContain("10-1024 characters");
    const taken = await browser.submit(page, { name: "X", password: "long enough passphrase" });
    expect(taken.status).toBe(400);
    expect(taken.text).toContain("already has an account here");
    // The other shop's owner still signs in with their own password, to their own shop.
    await signedInBrowser(t, elsewhere.email);
  });

  it("inviting someone already in the team, or with a bad address or role, is refused", async () => {
    const { vendor, browser: owner } = await signedInVendor(t);
    const staff = await createMember(t.ctx, vendor.id);
    for (const [email, role, message] of [
      [staff.email, "staff", "already a member of this shop"],
      ["not-an-address", "staff", "valid e-mail address"],
      [`x-${randomUUID()}@example.test`, "admin", "owner or staff"],
    ] as const) {
      const page = await follow(owner, await invite(owner, email, role));
      expect(flashOf(page)).toMatchObject({ kind: "error" });
      expect(flashOf(page)?.text).toContain(message);
    }
  });
});

describe("roles and removal", () => {
  it("the last owner can be neither demoted nor removed; with a second owner both work", async () => {
    const { vendor, browser: owner } = await signedInVendor(t);
    const self = `${TEAM}/${vendor.ownerId}`;
    const demoted = await follow(owner, await postFrom(owner, TEAM, `${self}/role`, { role: "staff" }));
    expect(flashOf(demoted)?.text).toContain("last owner");
    const removed = await follow(owner, await confirmThrough(owner, `${self}/remove`));
    expect(flashOf(removed)?.text).toContain("last owner");
    expect((await owner.get(TEAM)).status).toBe(200);

    const other = await createMember(t.ctx, vendor.id, { name: "Second Owner" });
    await postFrom(owner, TEAM, `${TEAM}/${other.id}/role`, { role: "owner" });
    const now = await follow(owner, await postFrom(owner, TEAM, `${self}/role`, { role: "staff" }));
    expect(flashOf(now)?.text).toContain("is now staff");
    // Demoted, this browser is staff from its next request on.
    expect((await owner.get(TEAM)).status).toBe(403);
  });

  it("a removed member is signed out at once and cannot sign in again", async () => {
    const { vendor, browser: owner } = await signedInVendor(t);
    const staff = await createMember(t.ctx, vendor.id, { name: "Leaving Soon" });
    const theirs = await signedInBrowser(t, staff.email);
    expect((await theirs.get("/dashboard/orders")).status).toBe(200);
    const confirm = await owner.get(`${TEAM}/${staff.id}/remove`);
    expect(confirm.text).toContain("Remove Leaving Soon from the shop?");
    const done = await follow(owner, await confirmThrough(owner, `${TEAM}/${staff.id}/remove`));
    expect(flashOf(done)?.text).toContain("Leaving Soon was removed");
    const after = await theirs.get("/dashboard/orders");
    expect(after.status).toBe(303);
    expect(after.location).toMatch(/^\/login\?/);
    await expect(signedInBrowser(t, staff.email)).rejects.toThrow(/sign-in failed: 401/);
  });

  it("a member names themselves on the account page, and the team page shows the name", async () => {
    const { vendor, browser: owner } = await signedInVendor(t);
    const staff = await createMember(t.ctx, vendor.id, { name: "" });
    const theirs = await signedInBrowser(t, staff.email);
    const saved = await postFrom(theirs, "/dashboard/account", "/dashboard/account/name", {
      name: "Bea Bordados",
    });
    expect(flashOf(await follow(theirs, saved))?.text).toContain("Name saved");
    expect((await owner.get(TEAM)).text).toContain("Bea Bordados");
  });

  it("another shop's member id is the 404 page and changes nothing", async () => {
    const { browser: owner } = await signedInVendor(t);
    const other = await createVendor(t.ctx);
    const theirStaff = await createMember(t.ctx, other.id);
    expect((await owner.get(`${TEAM}/${theirStaff.id}/remove`)).status).toBe(404);
    const page = await owner.get(TEAM);
    expect(
      (await owner.post(`${TEAM}/${theirStaff.id}/role`, { _csrf: csrfOf(page), role: "owner" })).status,
    ).toBe(404);
    expect(
      (await owner.post(`${TEAM}/${theirStaff.id}/remove`, { _csrf: csrfOf(page), confirmed: "yes" })).status,
    ).toBe(404);
    await signedInBrowser(t, theirStaff.email);
  });
});

describe("what staff may not do: the page and the form POST both refuse", () => {
  it("integrations, settings, team, erasure, export and OAuth consent answer staff 403 and change nothing", async () => {
    const owner = await createVendor(t.ctx, "Staffed Shop");
    const staff = await createMember(t.ctx, owner.id);
    const { row: key } = await createApiKey(t.ctx, { vendorId: owner.id, name: "POS" });
    const browser = await signedInBrowser(t, staff.email);
    // Staff do the daily work: a customer, through the dashboard's own form.
    const created = await postFrom(browser, "/dashboard/customers/new", "/dashboard/customers", {
      name: "Ana Cliente",
      email: `ana-${randomUUID()}@example.test`,
    });
    expect(created.status).toBe(303);
    const customerId = /\/dashboard\/customers\/([^/?]+)$/.exec(created.location ?? "")?.[1] ?? "";
    expect(customerId).not.toBe("");
    const csrf = csrfOf(await browser.get("/dashboard/orders"));

    const pages = [
      "/dashboard/integrations",
      "/dashboard/integrations/api-keys",
      `/dashboard/integrations/api-keys/${key.id}/revoke`,
      "/dashboard/integrations/webhooks",
      "/dashboard/integrations/applications",
      "/dashboard/integrations/connected-apps",
      "/dashboard/settings",
      TEAM,
      `${TEAM}/${owner.ownerId}/remove`,
      `/dashboard/customers/${customerId}/erase`,
      "/dashboard/orders/export.csv",
      "/dashboard/customers/export.csv",
    ];
    for (const path of pages) {
      const res = await browser.get(path);
      expect(res.status, path).toBe(403);
      expect(res.text, path).toContain("Only the shop&#39;s owners can do this");
    }
    const posts: Array<[string, Record<string, string>]> = [
      ["/dashboard/integrations/api-keys", { name: "staff key" }],
      [`/dashboard/integrations/api-keys/${key.id}/revoke`, { confirmed: "yes" }],
      ["/dashboard/integrations/webhooks", { url: "https://hooks.example.com/x", events: "order.created" }],
      ["/dashboard/integrations/applications", { name: "Staff app", redirectUris: "https://app.example/cb" }],
      ["/dashboard/settings", { name: "Renamed by staff", timeZone: "UTC" }],
      [`${TEAM}/invitations`, { email: `x-${randomUUID()}@example.test`, role: "owner" }],
      [`${TEAM}/${staff.id}/role`, { role: "owner" }],
      [`${TEAM}/${owner.ownerId}/remove`, { confirmed: "yes" }],
      [`/dashboard/customers/${customerId}/erase`, { confirmed: "yes" }],
    ];
    for (const [path, form] of posts) {
      const res = await browser.post(path, { _csrf: csrf, ...form });
      expect(res.status, path).toBe(403);
      // Refused for the role, not for the token (a bad CSRF token is a 403 too).
      expect(res.text, path).toContain("Only the shop&#39;s owners can do this");
    }
    // Nothing changed: the key lives, the shop keeps its name, the customer exists, nobody was
    // invited and the staff member is still staff.
    const ownerBrowser = await signedInBrowser(t, owner.email);
    const keys = await ownerBrowser.get("/dashboard/integrations/api-keys");
    expect(keys.text).toContain("POS");
    expect(keys.text).not.toContain("staff key");
    expect(keys.text).not.toContain("Revoked");
    expect((await ownerBrowser.get("/dashboard/settings")).text).toContain('value="Staffed Shop"');
    expect((await browser.get(`/dashboard/customers/${customerId}`)).status).toBe(200);
    const team = await ownerBrowser.get(TEAM);
    expect(team.text).not.toContain("Invitations");
    expect(team.text).toMatch(new RegExp(`${staff.email}[\\s\\S]*?<option value="staff" selected>`));
    // No owner-only link or button shows to staff.
    const customer = await browser.get(`/dashboard/customers/${customerId}`);
    expect(customer.text).not.toContain("/erase");
    expect((await browser.get("/dashboard/customers")).text).not.toContain("export.csv");
    expect((await browser.get("/dashboard/orders")).text).not.toContain("export.csv");

    // OAuth consent: the page and its POST refuse staff, and no code reaches the application.
    const client = await createClient(t.ctx);
    const consent = await browser.get(authorizePath(validParams(client, pkcePair().challenge)));
    expect(consent.status).toBe(403);
    expect(consent.text).toContain("owners can connect applications");
    const posted = await browser.post("/api/oauth/authorize", {
      _csrf: csrf,
      ...validParams(client, pkcePair().challenge),
      decision: "allow",
    });
    expect(posted.status).toBe(403);
    expect(posted.text).toContain("owners can connect applications");
    expect(posted.location ?? "").not.toContain("code=");
  });

  it("staff create and move orders, and edit customers, appointments and inquiries", async () => {
    const owner = await createVendor(t.ctx);
    const staff = await createMember(t.ctx, owner.id);
    const browser = await signedInBrowser(t, staff.email);
    for (const path of [
      "/dashboard/orders",
      "/dashboard/customers",
      "/dashboard/appointments",
      "/dashboard/inquiries",
    ]) {
      expect((await browser.get(path)).status, path).toBe(200);
    }
    const created = await postFrom(browser, "/dashboard/orders/new", "/dashboard/orders", {
      customerName: "Maria Silva",
      customerEmail: `maria-${randomUUID()}@example.test`,
      type: "BRIDAL_DRESS",
      model: "Aurora",
    });
    expect(created.status, created.text.slice(0, 300)).toBe(303);
    const orderPath = created.location ?? "";
    const moved = await postFrom(browser, orderPath, `${orderPath}/status`, {
      status: "IN_PRODUCTION",
      message: "Cut today",
    });
    expect(moved.status).toBe(303);
    expect((await browser.get(orderPath)).text).toContain("In production");
  });
});

describe("the activity log names the member", () => {
  it("a staff member's change is logged under their name; the owner's team changes under the owner's", async () => {
    const { vendor, browser: owner } = await signedInVendor(t);
    const staff = await createMember(t.ctx, vendor.id, { name: "Sam Costura" });
    const theirs = await signedInBrowser(t, staff.email);
    await postFrom(theirs, "/dashboard/customers/new", "/dashboard/customers", { name: "Ana Cliente" });
    // Staff do not see the log.
    expect((await theirs.get("/dashboard/activity")).status).toBe(403);
    await invite(owner, `new-${randomUUID()}@example.test`);
    await postFrom(owner, TEAM, `${TEAM}/${staff.id}/role`, { role: "owner" });
    const log = await owner.get("/dashboard/activity");
    expect(log.status).toBe(200);
    expect(log.text).toMatch(/Sam Costura[\s\S]*?created customer/);
    expect(log.text).toContain("sent a team invitation");
    expect(log.text).toContain("changed the role of member");
  });
});

describe("the operator's CLI", () => {
  it("vendor create makes the shop's first owner, who signs in and manages the team; reset-password names a member", async () => {
    const email = `cli-owner-${randomUUID()}@example.test`;
    const created = await executeCommand(
      t.ctx,
      { command: "vendor create", name: "CLI Bridal", email, password: "operator's passphrase" },
      { publicUrl: t.url },
    );
    expect(created.result).toMatchObject({ name: "CLI Bridal", email });
    const owner = await signedInBrowser(t, email, "operator's passphrase");
    const team = await owner.get(TEAM);
    expect(team.status).toBe(200);
    expect(team.text).toMatch(new RegExp(`${email}[\\s\\S]*?<option value="owner" selected>`));
    // A staff member's e-mail names their own reset link (and their shop for --vendor).
    const { id: vendorId } = created.result as { id: string };
    const staff = await createMember(t.ctx, vendorId);
    const link = await executeCommand(
      t.ctx,
      { command: "vendor reset-password", vendor: staff.email },
      { publicUrl: t.url },
    );
    expect(link.text).toContain(`Password-reset link for ${staff.email}`);
  });
});

describe("passwords are per member", () => {
  it("a staff member's reset link sets only their password; the owner's is untouched", async () => {
    const owner = await createVendor(t.ctx);
    const staff = await createMember(t.ctx, owner.id);
    const browser = new Browser(t.url);
    const page = await browser.get("/forgot-password");
    await browser.submit(page, { email: staff.email });
    const [received] = await mail.sink.waitFor(staff.email);
    const link = /(\/reset-password\?token=\S+)/.exec(received?.parsed.text ?? "")?.[1] ?? "";
    const form = await browser.get(link);
    expect(form.status).toBe(200);
    expect((await browser.submit(form, { password: "staff's new passphrase" })).status).toBe(303);
    await signedInBrowser(t, staff.email, "staff's new passphrase");
    await expect(signedInBrowser(t, staff.email, TEST_PASSWORD)).rejects.toThrow(/401/);
    await signedInBrowser(t, owner.email, TEST_PASSWORD);
  });

  it("a member's password change voids that member's outstanding reset links", async () => {
    const owner = await createVendor(t.ctx);
    const staff = await createMember(t.ctx, owner.id);
    const anon = new Browser(t.url);
    await anon.submit(await anon.get("/forgot-password"), { email: staff.email });
    const [received] = await mail.sink.waitFor(staff.email);
    const link = /(\/reset-password\?token=\S+)/.exec(received?.parsed.text ?? "")?.[1] ?? "";
    expect((await anon.get(link)).status).toBe(200);
    const browser = await signedInBrowser(t, staff.email);
    const changed = await postFrom(browser, "/dashboard/account", "/dashboard/account/password", {
      currentPassword: TEST_PASSWORD,
      newPassword: "changed on purpose",
      confirmPassword: "changed on purpose",
    });
    expect(flashOf(await follow(browser, changed))?.kind).toBe("success");
    expect((await anon.get(link)).status).toBe(400);
  });
});
