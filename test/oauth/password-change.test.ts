import { describe, expect, it } from "vitest";
import { findMemberByEmail } from "../../src/modules/members/members.repository.ts";
import { changeMemberPassword } from "../../src/modules/members/members.service.ts";
import { TEST_PASSWORD } from "../helpers/factories.ts";
import {
  authorizeCode,
  authorizePath,
  createClient,
  exchangeCode,
  obtainTokens,
  pkcePair,
  refresh,
  signedInBrowser,
  validParams,
} from "../helpers/oauth.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

describe("a vendor's password change revokes every grant and dashboard session (CONTRACT 6)", () => {
  it("after a password change the vendor's access and refresh tokens, of every application, and sessions are dead", async () => {
    const clientA = await createClient(t.ctx);
    const clientB = await createClient(t.ctx);
    const a = await obtainTokens(t, clientA);
    const member = await findMemberByEmail(t.ctx.db, a.email);
    if (!member) throw new Error("member");
    // The same vendor authorizes a second application in a second browser.
    const browser = await signedInBrowser(t, a.email);
    const consent = await browser.get(authorizePath(validParams(clientB, pkcePair().challenge)));
    expect(consent.status).toBe(200);
    const b = await obtainTokens(t, clientB);

    await changeMemberPassword(t.ctx, member.vendorId, member.id, {
      currentPassword: TEST_PASSWORD,
      newPassword: "a brand new passphrase",
    });

    expect((await t.api.get("/api/vendor/orders", { token: a.access_token })).status).toBe(401);
    expect((await refresh(t, clientA, a.refresh_token)).body.error).toBe("invalid_grant");
    // The session is gone: the authorize page sends the browser to sign in again.
    const again = await browser.get(authorizePath(validParams(clientB, pkcePair().challenge)));
    expect(again.status).toBe(302);
    expect(again.location).toMatch(/^\/login\?/);
    // Another vendor's tokens are untouched.
    expect((await t.api.get("/api/vendor/orders", { token: b.access_token })).status).toBe(200);
    // The new password signs in; the old one does not.
    await expect(signedInBrowser(t, a.email, TEST_PASSWORD)).rejects.toThrow(/sign-in failed: 401/);
    await signedInBrowser(t, a.email, "a brand new passphrase");
  });

  it("the current password must be given correctly, and nothing is revoked when it is not", async () => {
    const client = await createClient(t.ctx);
    const tokens = await obtainTokens(t, client);
    const member = await findMemberByEmail(t.ctx.db, tokens.email);
    if (!member) throw new Error("member");
    await expect(
      changeMemberPassword(t.ctx, member.vendorId, member.id, {
        currentPassword: "wrong password",
        newPassword: "another passphrase",
      }),
    ).rejects.toMatchObject({ code: "validation_failed" });
    expect((await t.api.get("/api/vendor/orders", { token: tokens.access_token })).status).toBe(200);
  });

  it("a code issued before the password change can no longer be exchanged", async () => {
    const client = await createClient(t.ctx);
    const { code, verifier, email } = await authorizeCode(t, client);
    const member = await findMemberByEmail(t.ctx.db, email);
    if (!member) throw new Error("member");
    await changeMemberPassword(t.ctx, member.vendorId, member.id, {
      currentPassword: TEST_PASSWORD,
      newPassword: "a brand new passphrase",
    });
    const res = await exchangeCode(t, client, code, verifier);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("invalid_grant");
  });
});
