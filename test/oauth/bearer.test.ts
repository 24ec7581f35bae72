import { describe, expect, it } from "vitest";
import { createVendorWithKey } from "../helpers/factories.ts";
import { createClient, obtainTokens } from "../helpers/oauth.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

describe("access tokens at the API (RFC 6750, CONTRACT 2 and 3)", () => {
  it("an access token acts for the vendor who authorized, never for the application's owner or another vendor", async () => {
    const client = await createClient(t.ctx);
    const tokens = await obtainTokens(t, client, "orders:read orders:write");
    const { key: otherKey } = await createVendorWithKey(t.ctx);
    const theirs = await t.api.post(
      "/api/vendor/orders",
      { customerName: "Other", type: "BRIDAL_DRESS" },
      { key: otherKey },
    );
    expect(theirs.status).toBe(201);
    const mine = await t.api.post(
      "/api/vendor/orders",
      { customerName: "Mine", type: "BRIDAL_DRESS" },
      { token: tokens.access_token },
    );
    expect(mine.status).toBe(201);
    const list = await t.api.get("/api/vendor/orders", { token: tokens.access_token });
    expect(list.body.orders.map((o: { id: string }) => o.id)).toEqual([mine.body.id]);
    expect(
      (await t.api.get(`/api/vendor/orders/${theirs.body.id}`, { token: tokens.access_token })).status,
    ).toBe(404);
  });

  it('an unknown, malformed or refresh token sent as Bearer is 401 with error="invalid_token"', async () => {
    const client = await createClient(t.ctx);
    const tokens = await obtainTokens(t, client);
    for (const token of ["vat_unknown", "garbage", tokens.refresh_token]) {
      const res = await t.api.get("/api/vendor/orders", { token });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe("invalid_credentials");
      expect(res.headers.get("www-authenticate")).toBe('Bearer realm="vendor-api", error="invalid_token"');
    }
  });

  it("a token in the query string is never accepted (RFC 6750 2.3, RFC 9700 2.4)", async () => {
    const client = await createClient(t.ctx);
    const tokens = await obtainTokens(t, client);
    const res = await t.api.get(`/api/vendor/orders?access_token=${tokens.access_token}`);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="vendor-api"');
  });

  it("a token lacking the route's scope is 403 insufficient_scope naming the scope", async () => {
    const client = await createClient(t.ctx);
    const tokens = await obtainTokens(t, client, "orders:read");
    const res = await t.api.post(
      "/api/vendor/orders",
      { customerName: "A", type: "BRIDAL_DRESS" },
      { token: tokens.access_token },
    );
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("insufficient_scope");
    expect(res.headers.get("www-authenticate")).toBe(
      'Bearer realm="vendor-api", error="insufficient_scope", scope="orders:write"',
    );
  });
});
