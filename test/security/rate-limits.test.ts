// Limits that cannot be dodged (CONTRACT 8). TRUST_PROXY lets the test speak from many
// client addresses (X-Forwarded-For), as clients behind a reverse proxy do.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { INQUIRIES_PER_VENDOR_PER_HOUR } from "../../src/modules/inquiries/inquiries.service.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { clientCredentials, createClient, obtainTokens, refresh } from "../helpers/oauth.ts";
import { useTestApp } from "../helpers/test-app.ts";

const LIMIT = 5;
const t = useTestApp({
  env: {
    RATE_LIMIT_PER_MINUTE: String(LIMIT),
    TRUST_PROXY: "true",
    // Unset: the failure budget defaults to the smaller of 30 and the per-credential limit.
    AUTH_FAILURES_PER_MINUTE: "",
    OAUTH_RATE_LIMIT_PER_MINUTE: "20",
  },
});

let nextAddress = 1;
/** A client address no other test uses. */
const freshAddress = () => `198.51.100.${nextAddress++}`;
const from = (address: string) => ({ "x-forwarded-for": address });

describe("made-up credentials count against the client address", () => {
  for (const header of ["x-api-key", "authorization"] as const) {
    it(`15 random ${header} values from one address: 401 until the failure budget is spent, then 429`, async () => {
      const address = freshAddress();
      const statuses: number[] = [];
      for (let i = 0; i < 15; i++) {
        const secret = `${header === "x-api-key" ? "vk_" : "Bearer vat_"}${randomBytes(32).toString("base64url")}`;
        const res = await t.api.get("/api/vendor/profile", {
          headers: { ...from(address), [header]: secret },
        });
        statuses.push(res.status);
        expect(res.headers.get("ratelimit-policy")).toBe(`"auth-failures";q=${LIMIT};w=60`);
      }
      expect(statuses.slice(0, LIMIT)).toEqual(Array(LIMIT).fill(401));
      expect(statuses.slice(LIMIT)).toEqual(Array(15 - LIMIT).fill(429));
    });
  }

  it("a credential that authenticates is never refused because others failed from its address (issue 24 item 4)", async () => {
    const polling = await createVendorWithKey(t.ctx);
    const address = freshAddress();
    // A neighbour behind the same NAT, or a stale integration, spends the address's failure budget.
    for (let i = 0; i < LIMIT + 3; i++) {
      await t.api.get("/api/vendor/profile", {
        key: `vk_${randomBytes(32).toString("base64url")}`,
        headers: from(address),
      });
    }
    // A key not used before from that address still works, again and again.
    for (let i = 0; i < 3; i++) {
      const res = await t.api.get("/api/vendor/profile", { key: polling.key, headers: from(address) });
      expect(res.status).toBe(200);
      expect(res.headers.get("ratelimit-policy")).toBe(`"credential";q=${LIMIT};w=60`);
    }
    // The made-up ones keep getting 429.
    const refused = await t.api.get("/api/vendor/profile", {
      key: `vk_${randomBytes(32).toString("base64url")}`,
      headers: from(address),
    });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  for (const header of ["x-api-key", "authorization"] as const) {
    it(`a made-up ${header} costs at most one statement, inside the budget and past it`, async () => {
      const address = freshAddress();
      const made = 3 * LIMIT;
      const before = t.database.queryCount();
      for (let i = 0; i < made; i++) {
        const secret = `${header === "x-api-key" ? "vk_" : "Bearer vat_"}${randomBytes(32).toString("base64url")}`;
        await t.api.get("/api/vendor/profile", { headers: { ...from(address), [header]: secret } });
      }
      expect(t.database.queryCount() - before).toBeLessThanOrEqual(made);
    });
  }

  it("an authenticated key has its own budget whatever address it comes from", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    for (let i = 0; i < LIMIT; i++) {
      expect((await t.api.get("/api/vendor/profile", { key, headers: from(freshAddress()) })).status).toBe(
        200,
      );
    }
    expect((await t.api.get("/api/vendor/profile", { key, headers: from(freshAddress()) })).status).toBe(429);
  });
});

describe("one budget per address, whatever its spelling; IPv6 per /64 (issue 24 item 6)", () => {
  it.each([
    [
      "IPv4 and its IPv4-mapped IPv6 spelling",
      ["198.51.100.200", "::ffff:198.51.100.200", "::FFFF:c633:64c8"],
    ],
    [
      "addresses of one IPv6 /64",
      ["2001:db8:1:2::1", "2001:DB8:1:2:ffff::9", "2001:0db8:0001:0002:0:0:0:77"],
    ],
  ])("%s share the failure budget", async (_label, spellings) => {
    const statuses: number[] = [];
    for (let i = 0; i <= LIMIT; i++) {
      const res = await t.api.get("/api/vendor/profile", {
        key: `vk_${randomBytes(32).toString("base64url")}`,
        headers: from(spellings[i % spellings.length] ?? ""),
      });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([...Array(LIMIT).fill(401), 429]);
    // The next /64 is another budget.
    if (spellings[0]?.startsWith("2001")) {
      const next = await t.api.get("/api/vendor/profile", { key: "vk_x", headers: from("2001:db8:1:3::1") });
      expect(next.status).toBe(401);
    }
  });
});

describe("the per-credential budget of OAuth is per grant (issue 24 item 6)", () => {
  it("a refresh does not open a fresh budget: the new access token continues the grant's count", async () => {
    const client = await createClient(t.ctx);
    const tokens = await obtainTokens(t, client);
    for (let i = 0; i < LIMIT - 1; i++) {
      expect((await t.api.get("/api/vendor/orders", { token: tokens.access_token })).status).toBe(200);
    }
    const refreshed = await refresh(t, client, tokens.refresh_token);
    expect(refreshed.status).toBe(200);
    const last = await t.api.get("/api/vendor/orders", { token: refreshed.body.access_token });
    expect(last.status).toBe(200);
    expect(last.headers.get("ratelimit-remaining")).toBe("0");
    expect((await t.api.get("/api/vendor/orders", { token: refreshed.body.access_token })).status).toBe(429);
  });
});

describe("an inquiry flood does not close a vendor's form to genuine senders", () => {
  it(`${INQUIRIES_PER_VENDOR_PER_HOUR + 4} inquiries from 4 addresses, then a new customer is accepted and a flooder refused`, async () => {
    const { vendor } = await createVendorWithKey(t.ctx);
    const path = `/api/public/vendors/${vendor.id}/inquiries`;
    const body = { name: "Flood", email: "flood@example.com", message: "spam" };
    const flooders = [freshAddress(), freshAddress(), freshAddress(), freshAddress()];
    const perAddress = (INQUIRIES_PER_VENDOR_PER_HOUR + 4) / flooders.length;
    for (const address of flooders) {
      for (let i = 0; i < perAddress; i++) {
        const res = await t.api.post(path, body, { headers: from(address) });
        if (res.status !== 201 && res.status !== 429) throw new Error(`${res.status} ${res.text}`);
      }
    }
    const genuine = await t.api.post(
      path,
      { name: "Maria", email: "maria@example.com", message: "Do you have size 38?" },
      { headers: from(freshAddress()) },
    );
    expect(genuine.status).toBe(201);
    const again = await t.api.post(path, body, { headers: from(flooders[0] ?? "") });
    expect(again.status).toBe(429);
    const retryAfter = Number(again.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
  });
});

describe("OAuth endpoints are limited per client address; failed client authentications count per address", () => {
  const tokenCall = (address: string, form: Record<string, string>) =>
    fetch(`${t.url}/api/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...from(address) },
      body: new URLSearchParams(form).toString(),
    });

  for (const path of ["/api/oauth/token", "/api/oauth/revoke"]) {
    it(`${path}: failed client authentications from one address get 429 with RateLimit headers`, async () => {
      const address = freshAddress();
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) {
        const res = await fetch(t.url + path, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded", ...from(address) },
          body: new URLSearchParams({
            grant_type: "authorization_code",
            token: "x",
            client_id: `app_${randomBytes(16).toString("base64url")}`,
            client_secret: "guess",
          }).toString(),
        });
        statuses.push(res.status);
        // The tighter of the two budgets: failures (5) before requests (20).
        expect(res.headers.get("ratelimit-policy")).toBe(`"auth-failures";q=${LIMIT};w=60`);
        if (res.status === 429) {
          expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
          expect(await res.json()).toMatchObject({ error: "temporarily_unavailable" });
        }
      }
      expect(statuses.slice(0, LIMIT)).toEqual(Array(LIMIT).fill(401));
      expect(statuses.slice(LIMIT)).toEqual(Array(12 - LIMIT).fill(429));
    });
  }

  it("wrong secrets naming a client_id, from many addresses or from its own, never close its token endpoint to it (issue 24 item 4)", async () => {
    const client = await createClient(t.ctx);
    const tokens = await obtainTokens(t, client);
    const own = freshAddress();
    const guess = (address: string, i: number) =>
      tokenCall(address, {
        grant_type: "refresh_token",
        refresh_token: "vrt_x",
        client_id: client.clientId,
        client_secret: `guess${i}`,
      });
    // More wrong secrets than the request budget per address (20), from fresh addresses each.
    for (let i = 0; i < 25; i++) expect((await guess(freshAddress(), i)).status).toBe(401);
    // And the failure budget of the client's own address spent.
    for (let i = 0; i < LIMIT + 1; i++) await guess(own, i);
    expect((await guess(own, 99)).status).toBe(429);
    const res = await tokenCall(own, {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      ...clientCredentials(client),
    });
    expect(res.status).toBe(200);
  });

  it("the authorization endpoint carries the headers and refuses past its budget", async () => {
    const address = freshAddress();
    let last: Response | undefined;
    for (let i = 0; i < 21; i++) {
      last = await fetch(`${t.url}/api/oauth/authorize?client_id=app_unknown`, {
        headers: from(address),
        redirect: "manual",
      });
      if (i < 20) {
        expect(last.status).toBe(400);
        expect(last.headers.get("ratelimit-policy")).toBe(`"authorize";q=20;w=60`);
      }
    }
    expect(last?.status).toBe(429);
  });

  it("the authorization endpoint stays open to a client whose client_id others sent from many addresses", async () => {
    const client = await createClient(t.ctx);
    for (let i = 0; i < 25; i++) {
      await fetch(`${t.url}/api/oauth/authorize?client_id=${client.clientId}`, {
        headers: from(freshAddress()),
        redirect: "manual",
      });
    }
    const res = await fetch(`${t.url}/api/oauth/authorize?client_id=${client.clientId}`, {
      headers: from(freshAddress()),
      redirect: "manual",
    });
    expect(res.status).not.toBe(429);
  });
});
