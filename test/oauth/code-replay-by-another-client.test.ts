// RFC 6749 4.1.3 (CONTRACT 6): a code is checked against the authenticated client, its redirect
// URI and verifier before anything else; only a replay that passes them revokes its tokens.
import { describe, expect, it } from "vitest";
import { authorizeCode, createClient, exchangeCode, pkcePair, refresh } from "../helpers/oauth.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

describe("a used code in the wrong hands", () => {
  it("another client replaying someone else's used code gets invalid_grant and revokes nothing", async () => {
    const rightful = await createClient(t.ctx);
    const stranger = await createClient(t.ctx);
    const { code, verifier } = await authorizeCode(t, rightful);
    const tokens = (await exchangeCode(t, rightful, code, verifier)).body;

    const replay = await exchangeCode(t, stranger, code, verifier);
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe("invalid_grant");
    expect((await t.api.get("/api/vendor/orders", { token: tokens.access_token })).status).toBe(200);
    expect((await refresh(t, rightful, tokens.refresh_token)).status).toBe(200);
  });

  it("the rightful client replaying with a wrong verifier revokes nothing; with the right one it revokes", async () => {
    const client = await createClient(t.ctx);
    const { code, verifier } = await authorizeCode(t, client);
    const tokens = (await exchangeCode(t, client, code, verifier)).body;
    const wrong = await exchangeCode(t, client, code, pkcePair().verifier);
    expect(wrong.body.error).toBe("invalid_grant");
    expect((await t.api.get("/api/vendor/orders", { token: tokens.access_token })).status).toBe(200);

    expect((await exchangeCode(t, client, code, verifier)).body.error).toBe("invalid_grant");
    expect((await t.api.get("/api/vendor/orders", { token: tokens.access_token })).status).toBe(401);
  });

  it("a foreign unused code is answered exactly like an unknown one (its existence is not revealed)", async () => {
    const rightful = await createClient(t.ctx);
    const stranger = await createClient(t.ctx);
    const { code, verifier } = await authorizeCode(t, rightful);
    const foreign = await exchangeCode(t, stranger, code, verifier);
    const unknown = await exchangeCode(t, stranger, `vac_${"x".repeat(43)}`, verifier);
    expect(foreign.status).toBe(400);
    expect(foreign.body).toEqual(unknown.body);
    expect(foreign.body.error).toBe("invalid_grant");
  });
});
