// Two-step sign-in and the sessions it leaves behind (the audit's low findings):
// - turning it on for oneself ends one's other sessions (a stolen session opened with the
//   password alone does not survive it); the browser that turned it on goes on;
// - an owner requiring it of everyone ends every session of the members who have not set it up,
//   but the owner's own current one; members who have it keep theirs;
// - an owner can reset a member's lost authenticator from the Team page (a confirmation step,
//   CSRF-protected, owners only, in the activity log): the member is signed out and, the shop
//   requiring it, sets two-step sign-in up again at their next sign-in.
import { sql } from "drizzle-orm";
import { generate } from "otplib";
import { describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.ts";
import { Browser, decodeEntities, type PageResponse } from "../helpers/browser.ts";
import { confirmThrough, flashOf, follow, postFrom, signedInVendor } from "../helpers/dashboard.ts";
import { createMember, TEST_PASSWORD } from "../helpers/factories.ts";
import { signedInBrowser } from "../helpers/oauth.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp({ config: { signInRateLimitPerMinute: 1000 } });
const TEAM = "/dashboard/settings/team";

/** Whether the browser's session still opens the dashboard. */
async function signedIn(browser: Browser): Promise<boolean> {
  const res = await browser.get("/dashboard/orders");
  if (res.status === 200) return true;
  expect(res.status).toBe(303);
  expect(res.location).toMatch(/^\/login/);
  return false;
}

function keyOn(page: PageResponse): string {
  const key = /<code class="secret-key">([^<]+)<\/code>/.exec(page.text)?.[1];
  if (!key) throw new Error(`no key on page: ${page.text.slice(0, 300)}`);
  return decodeEntities(key).replace(/\s+/g, "");
}

/** Turns two-step sign-in on from the account page of `browser`. */
async function turnOn(browser: Browser): Promise<PageResponse> {
  const setup = await browser.get("/dashboard/account/two-step");
  const code = await generate({ secret: keyOn(setup) });
  const res = await postFrom(browser, "/dashboard/account/two-step", "/dashboard/account/two-step", { code });
  const done = await follow(browser, res);
  expect(flashOf(done)?.text).toContain("Two-step sign-in is on");
  return done;
}

describe("turning two-step sign-in on", () => {
  it("ends the member's other sessions and keeps the one that turned it on", async () => {
    const { vendor, browser } = await signedInVendor(t);
    const other = await signedInBrowser(t, vendor.email);
    const staffOfShop = await createMember(t.ctx, vendor.id);
    const colleague = await signedInBrowser(t, staffOfShop.email);
    await turnOn(browser);
    expect(await signedIn(browser)).toBe(true);
    expect(await signedIn(other)).toBe(false);
    // Someone else's session is not theirs to end.
    expect(await signedIn(colleague)).toBe(true);
  });

  it("required for everyone, ends the sessions of members without it but the owner's current one", async () => {
    const { vendor, browser: owner } = await signedInVendor(t);
    const ownerElsewhere = await signedInBrowser(t, vendor.email);
    const staffWithout = await signedInBrowser(t, (await createMember(t.ctx, vendor.id)).email);
    const withTwoStep = await signedInBrowser(t, (await createMember(t.ctx, vendor.id)).email);
    await turnOn(withTwoStep);
    const other = await signedInVendor(t);

    const res = await postFrom(owner, TEAM, `${TEAM}/two-step`, { required: "on" });
    expect(flashOf(await follow(owner, res))?.kind).toBe("success");
    expect(await signedIn(owner)).toBe(true);
    expect(await signedIn(ownerElsewhere)).toBe(false);
    expect(await signedIn(staffWithout)).toBe(false);
    expect(await signedIn(withTwoStep)).toBe(true);
    // Another shop's members are untouched.
    expect(await signedIn(other.browser)).toBe(true);
  });
});

describe("an owner resets a member's lost authenticator", () => {
  it("from the member's row, after a confirmation step: the member is signed out, enrols again at the next sign-in, and the log says who did it", async () => {
    const { vendor, browser: owner } = await signedInVendor(t);
    const member = await createMember(t.ctx, vendor.id, { name: "Sam Lost-Phone" });
    const memberBrowser = await signedInBrowser(t, member.email);
    await turnOn(memberBrowser);
    expect((await postFrom(owner, TEAM, `${TEAM}/two-step`, { required: "on" })).status).toBe(303);

    const team = await owner.get(TEAM);
    const row = team.text.split(`data-member-id="${member.id}"`)[1]?.split("</tr>")[0] ?? "";
    expect(row).toContain(`href="${TEAM}/${member.id}/two-step/reset"`);
    // Not on the owner's own row: they turn their own off with their password.
    const ownRow = team.text.split(`data-member-id="${vendor.ownerId}"`)[1]?.split("</tr>")[0] ?? "";
    expect(ownRow).not.toContain("two-step/reset");

    // CSRF: a post without the page's token is refused and changes nothing.
    const forged = await owner.post(`${TEAM}/${member.id}/two-step/reset`, { confirmed: "yes" });
    expect(forged.status).toBe(403);
    expect(await signedIn(memberBrowser)).toBe(true);

    const done = await follow(owner, await confirmThrough(owner, `${TEAM}/${member.id}/two-step/reset`));
    expect(flashOf(done)).toMatchObject({ kind: "success", text: expect.stringContaining("Sam Lost-Phone") });
    expect(await signedIn(memberBrowser)).toBe(false);
    const [row2] = await queryRows<{ on: boolean; codes: number }>(
      t.database.db,
      sql`select totp_enabled_at is not null or totp_secret is not null as on,
            (select count(*) from member_recovery_codes c where c.member_id = m.id)::int as codes
          from members m where m.id = ${member.id}`,
    );
    expect(row2).toEqual({ on: false, codes: 0 });
    const log = await queryRows<{ actor: string }>(
      t.database.db,
      sql`select actor_id as actor from activity
          where vendor_id = ${vendor.id} and action = 'member.two_step_reset' and subject_id = ${member.id}`,
    );
    expect(log).toEqual([{ actor: vendor.ownerId }]);

    // The next sign-in asks the member to set it up again (the shop requires it).
    const again = new Browser(t.url);
    const signIn = await again.submit(await again.get("/login"), {
      email: member.email,
      password: TEST_PASSWORD,
    });
    expect(signIn.location).toMatch(/^\/login\/two-step\/setup/);
  });

  it("is the owners' alone: staff cannot reach it", async () => {
    const { vendor } = await signedInVendor(t);
    const owner2 = await createMember(t.ctx, vendor.id, { role: "owner" });
    const ownerBrowser = await signedInBrowser(t, owner2.email);
    await turnOn(ownerBrowser);
    const staff = await signedInBrowser(t, (await createMember(t.ctx, vendor.id)).email);
    const page = await staff.get(`${TEAM}/${owner2.id}/two-step/reset`);
    expect([403, 404]).toContain(page.status);
    expect(await signedIn(ownerBrowser)).toBe(true);
  });
});
