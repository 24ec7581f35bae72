// Limits that cannot be dodged (issue 11, CONTRACT 8). TRUST_PROXY lets the test speak from many
// client addresses (X-Forwarded-For), as clients behind a reverse proxy do.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { INQUIRIES_PER_VENDOR_PER_HOUR } from "../../src/modules/inquiries/inquiries.service.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { createClient } from "../helpers/oauth.ts";
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

  it("past the budget, credentials are refused before any lookup unless they authenticated within the window", async () => {
    const inUse = await createVendorWithKey(t.ctx);
    const idle = await createVendorWithKey(t.ctx);
    const address = freshAddress();
    expect((await t.api.get("/api/vendor/profile", { key: inUse.key, headers: from(address) })).status).toBe(
      200,
    );
    for (let i = 0; i < LIMIT; i++) {
      await t.api.get("/api/vendor/profile", {
        key: `vk_${randomBytes(32).toString("base64url")}`,
        headers: from(address),
      });
    }
    // A key not seen this window is refused like any made-up string: no lookup decides it.
    const refused = await t.api.get("/api/vendor/profile", { key: idle.key, headers: from(address) });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    // The integration in use behind the same address keeps working; other addresses are unaffected.
    expect((await t.api.get("/api/vendor/profile", { key: inUse.key, headers: from(address) })).status).toBe(
      200,
    );
    const elsewhere = await t.api.get("/api/vendor/profile", {
      key: idle.key,
      headers: from(freshAddress()),
    });
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.headers.get("ratelimit-policy")).toBe(`"credential";q=${LIMIT};w=60`);
  });

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

describe("OAuth endpoints are limited per client address and per client_id", () => {
  for (const path of ["/api/oauth/token", "/api/oauth/revoke"]) {
    it(`${path}: guesses from one address get 429 with RateLimit headers`, async () => {
      const address = freshAddress();
      const statuses: number[] = [];
      for (let i = 0; i < 25; i++) {
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
        expect(res.headers.get("ratelimit-limit")).toBe("20");
        expect(res.headers.get("ratelimit")).toMatch(/^"oauth(-client)?";r=\d+;t=\d+$/);
        if (res.status === 429) {
          expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
          expect(await res.json()).toMatchObject({ error: "temporarily_unavailable" });
        }
      }
      expect(statuses.slice(0, 20)).toEqual(Array(20).fill(401));
      expect(statuses.slice(20)).toEqual(Array(5).fill(429));
    });
  }

  it("one client_id guessed from many addresses gets 429 too", async () => {
    const client = await createClient(t.ctx);
    const statuses: number[] = [];
    for (let i = 0; i < 22; i++) {
      const res = await fetch(`${t.url}/api/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", ...from(freshAddress()) },
        body: new URLSearchParams({
          grant_type: "refresh_token",
          refresh_token: "vrt_x",
          client_id: client.clientId,
          client_secret: `guess${i}`,
        }).toString(),
      });
      statuses.push(res.status);
    }
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(401));
    expect(statuses.slice(20)).toEqual([429, 429]);
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
        expect(last.headers.get("ratelimit-policy")).toMatch(/^"(authorize|oauth-client)";q=20;w=60$/);
      }
    }
    expect(last?.status).toBe(429);
  });
});
