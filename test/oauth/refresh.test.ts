import { describe, expect, it } from "vitest";
import { exchangeRefreshToken } from "../../src/oauth/grants/refresh-token.ts";
import { adjustableClock } from "../helpers/clock.ts";
import { createClient, obtainTokens, refresh } from "../helpers/oauth.ts";
import { useTestApp } from "../helpers/test-app.ts";

const clock = adjustableClock();
const t = useTestApp({ now: clock.now });

const ordersStatus = async (token: string) => (await t.api.get("/api/vendor/orders", { token })).status;

describe("grant_type=refresh_token (RFC 6749 6, RFC 9700 4.14, CONTRACT 6)", () => {
  it("every refresh rotates the refresh token: new tokens are issued and the old refresh token stops working", async () => {
    const client = await createClient(t.ctx);
    const first = await obtainTokens(t, client);
    const second = await refresh(t, client, first.refresh_token);
    expect(second.status).toBe(200);
    expect(second.headers.get("cache-control")).toBe("no-store");
    expect(second.body).toEqual({
      access_token: expect.stringMatching(/^vat_/),
      token_type: "Bearer",
      expires_in: 3600,
      refresh_token: expect.stringMatching(/^vrt_/),
      scope: "orders:read orders:write",
    });
    expect(second.body.refresh_token).not.toBe(first.refresh_token);
    expect(await ordersStatus(second.body.access_token)).toBe(200);
    const third = await refresh(t, client, second.body.refresh_token);
    expect(third.status).toBe(200);
  });

  it("reuse of a rotated refresh token is invalid_grant and revokes the grant: the old and the new tokens all stop working", async () => {
    const client = await createClient(t.ctx);
    const first = await obtainTokens(t, client);
    const second = await refresh(t, client, first.refresh_token);
    expect(second.status).toBe(200);

    const reuse = await refresh(t, client, first.refresh_token);
    expect(reuse.status).toBe(400);
    expect(reuse.body.error).toBe("invalid_grant");

    // The new refresh token (the legitimate client's or the attacker's, the server cannot tell) is dead.
    const afterReuse = await refresh(t, client, second.body.refresh_token);
    expect(afterReuse.status).toBe(400);
    expect(afterReuse.body.error).toBe("invalid_grant");
    // And so are the access tokens of the grant, old and new.
    expect(await ordersStatus(second.body.access_token)).toBe(401);
    expect(await ordersStatus(first.access_token)).toBe(401);
    // The old token stays refused on every later attempt.
    expect((await refresh(t, client, first.refresh_token)).body.error).toBe("invalid_grant");
  });

  it("concurrent refreshes with one token: exactly one succeeds, the others are invalid_grant", async () => {
    const client = await createClient(t.ctx);
    const first = await obtainTokens(t, client);
    const results = await Promise.all([1, 2, 3, 4].map(() => refresh(t, client, first.refresh_token)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const loser of results.filter((r) => r.status !== 200)) {
      expect(loser.status).toBe(400);
      expect(loser.body.error).toBe("invalid_grant");
    }
    expect((await refresh(t, client, first.refresh_token)).body.error).toBe("invalid_grant");
  });

  it("a request received before the token was rotated (a racing client, not a replay) fails without revoking the grant", async () => {
    const client = await createClient(t.ctx);
    const first = await obtainTokens(t, client);
    const sentBefore = new Date(clock.now().getTime() - 1);
    const winner = await refresh(t, client, first.refresh_token);
    expect(winner.status).toBe(200);
    await expect(
      exchangeRefreshToken(t.ctx, client.application, { refresh_token: first.refresh_token }, sentBefore),
    ).rejects.toMatchObject({ error: "invalid_grant" });
    expect(await ordersStatus(winner.body.access_token)).toBe(200);
    expect((await refresh(t, client, winner.body.refresh_token)).status).toBe(200);
  });

  it("a refresh may narrow the scope: the new access token carries only the narrower scope", async () => {
    const client = await createClient(t.ctx);
    const first = await obtainTokens(t, client, "orders:read orders:write");
    const narrowed = await refresh(t, client, first.refresh_token, "orders:read");
    expect(narrowed.status).toBe(200);
    expect(narrowed.body.scope).toBe("orders:read");
    expect(await ordersStatus(narrowed.body.access_token)).toBe(200);
    const write = await t.api.post(
      "/api/vendor/orders",
      { customerName: "A", type: "BRIDAL_DRESS" },
      { token: narrowed.body.access_token },
    );
    expect(write.status).toBe(403);
    expect(write.body.code).toBe("insufficient_scope");
    // The refresh token keeps the grant's scope (RFC 6749 6), so a later refresh may ask for it again.
    const again = await refresh(t, client, narrowed.body.refresh_token);
    expect(again.body.scope).toBe("orders:read orders:write");
  });

  it("a refresh may never widen the scope: invalid_scope, and the refresh token is not used up", async () => {
    const client = await createClient(t.ctx);
    const first = await obtainTokens(t, client, "orders:read");
    const wider = await refresh(t, client, first.refresh_token, "orders:read orders:write");
    expect(wider.status).toBe(400);
    expect(wider.body.error).toBe("invalid_scope");
    const unknown = await refresh(t, client, first.refresh_token, "admin");
    expect(unknown.body.error).toBe("invalid_scope");
    expect((await refresh(t, client, first.refresh_token)).status).toBe(200);
  });

  it("a refresh token is bound to its client: another client gets invalid_grant", async () => {
    const client = await createClient(t.ctx);
    const other = await createClient(t.ctx);
    const first = await obtainTokens(t, client);
    const res = await refresh(t, other, first.refresh_token);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("invalid_grant");
  });

  it("an unknown or malformed refresh token is invalid_grant", async () => {
    const client = await createClient(t.ctx);
    for (const token of ["vrt_nope", "garbage", "x".repeat(5000)]) {
      const res = await refresh(t, client, token);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("invalid_grant");
    }
  });

  it("access tokens live 1 hour, refresh tokens 30 days", async () => {
    const client = await createClient(t.ctx);
    const first = await obtainTokens(t, client);
    clock.advance(3600 * 1000 + 1000);
    const expired = await t.api.get("/api/vendor/orders", { token: first.access_token });
    expect(expired.status).toBe(401);
    expect(expired.headers.get("www-authenticate")).toContain('error="invalid_token"');
    const second = await refresh(t, client, first.refresh_token);
    expect(second.status).toBe(200);
    clock.advance(30 * 24 * 3600 * 1000 + 1000);
    const late = await refresh(t, client, second.body.refresh_token);
    expect(late.status).toBe(400);
    expect(late.body.error).toBe("invalid_grant");
  });
});
