import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { oauthAccessTokens, oauthRefreshTokens } from "../../src/db/schema/index.ts";
import { hashSecret } from "../../src/lib/crypto.ts";
import { purgeExpiredCredentials } from "../../src/maintenance/housekeeping.ts";
import { authorizeCode, createClient, exchangeCode, refresh } from "../helpers/oauth.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

describe("housekeeping purges credentials that can no longer be used", () => {
  it("keeps live tokens and rotated refresh tokens until they expire, then deletes them", async () => {
    const client = await createClient(t.ctx);
    const { code, verifier } = await authorizeCode(t, client);
    const tokens = (await exchangeCode(t, client, code, verifier)).body;
    const rotated = await refresh(t, client, tokens.refresh_token);
    expect(rotated.status).toBe(200);

    // Now: nothing of this grant is expired, so nothing of it goes; the new token still works.
    await purgeExpiredCredentials(t.ctx.db, new Date());
    expect((await t.api.get("/api/vendor/orders", { token: rotated.body.access_token })).status).toBe(200);
    // Reuse detection still sees the rotated token: presenting it again fails and revokes the grant.
    expect((await refresh(t, client, tokens.refresh_token)).status).toBe(400);

    // Once this grant's tokens have expired (moved into the past here, so that other test files
    // sharing a PostgreSQL database keep their live tokens), housekeeping deletes them.
    const past = new Date(Date.now() - 1000);
    const [access] = await t.ctx.db
      .select({ grantId: oauthAccessTokens.grantId })
      .from(oauthAccessTokens)
      .where(eq(oauthAccessTokens.tokenHash, hashSecret(rotated.body.access_token)));
    const grantId = access?.grantId as string;
    await t.ctx.db
      .update(oauthAccessTokens)
      .set({ expiresAt: past })
      .where(eq(oauthAccessTokens.grantId, grantId));
    await t.ctx.db
      .update(oauthRefreshTokens)
      .set({ expiresAt: past })
      .where(eq(oauthRefreshTokens.grantId, grantId));
    await purgeExpiredCredentials(t.ctx.db, new Date());
    const left = await t.ctx.db
      .select()
      .from(oauthRefreshTokens)
      .where(eq(oauthRefreshTokens.grantId, grantId));
    expect(left).toEqual([]);
    const leftAccess = await t.ctx.db
      .select()
      .from(oauthAccessTokens)
      .where(eq(oauthAccessTokens.grantId, grantId));
    expect(leftAccess).toEqual([]);
    expect((await t.api.get("/api/vendor/orders", { token: rotated.body.access_token })).status).toBe(401);
  });
});
