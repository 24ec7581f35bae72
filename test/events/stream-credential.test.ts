// A stream ends with its credential (CONTRACT 12): an open GET /api/vendor/events/stream was
// checked only when it connected, and went on delivering a shop's events after its key or OAuth
// grant was revoked, holding the shop's stream slots (429 for its valid keys) until a restart.
// Each way a credential ends: the stream closes within 2 s, and the shop's next stream with a
// valid credential gets its slot at once.
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { createApiKey, revokeApiKey } from "../../src/modules/api-keys/api-keys.service.ts";
import { findMemberByEmail } from "../../src/modules/members/members.repository.ts";
import { changeMemberPassword } from "../../src/modules/members/members.service.ts";
import { adjustableClock } from "../helpers/clock.ts";
import { createKey, createVendor, createVendorWithKey, TEST_PASSWORD } from "../helpers/factories.ts";
import { clientCredentials, createClient, oauthPost, obtainTokens } from "../helpers/oauth.ts";
import { openSse, type SseConnection } from "../helpers/sse.ts";
import { useTestApp } from "../helpers/test-app.ts";

/** CONTRACT 12's bound. */
const WITHIN_MS = 2_000;
const clock = adjustableClock();
// Two streams per shop, so two revoked ones held every slot before; no heartbeat within a test
// (a stream that ends says nothing more). The idle fallback poll far beyond a test's length: only
// a notification can end a stream in time.
const t = useTestApp({
  env: {
    EVENT_STREAM_MAX_PER_SHOP: "2",
    EVENT_STREAM_HEARTBEAT_MS: "300000",
    EVENT_STREAM_IDLE_POLL_MS: "600000",
  },
  now: clock.now,
});
const opened: SseConnection[] = [];
afterAll(() => {
  for (const s of opened) s.close();
});

async function stream(headers: Record<string, string>, query = ""): Promise<SseConnection> {
  const s = await openSse(`${t.url}/api/vendor/events/stream${query}`, headers);
  opened.push(s);
  expect(s.status).toBe(200);
  expect((await s.next()).comment).toBe("stream open");
  return s;
}
const byKey = (key: string, query = "") => stream({ "x-api-key": key }, query);
const byToken = (token: string) => stream({ authorization: `Bearer ${token}` });

/** Resolves with the milliseconds the stream took to end after `since`; throws if it sent more. */
async function endOf(s: SseConnection, since: number, timeoutMs = 10_000): Promise<number> {
  try {
    const more = await s.next(timeoutMs);
    throw new Error(`the stream sent ${JSON.stringify(more)} instead of ending`);
  } catch (error) {
    if ((error as Error).message !== "stream ended") throw error;
  }
  return Date.now() - since;
}

/** Every given stream ends within CONTRACT 12's 2 s of `since`. */
async function allEndWithin(streams: SseConnection[], since: number): Promise<void> {
  const took = await Promise.all(streams.map((s) => endOf(s, since)));
  // The bound is the contract's; the notification's way takes tens of milliseconds here.
  for (const ms of took) expect(ms).toBeLessThan(WITHIN_MS);
}

/** A stream with a valid credential of the shop gets a slot at once (no 429) and is live. */
async function slotIsFree(key: string) {
  const s = await byKey(key, "?types=order.created");
  const order = await t.api.post("/api/vendor/orders", { customerName: "After", type: "SUIT" }, { key });
  expect((await s.nextEvent()).json.data.id).toBe(order.body.id);
  s.close();
}

describe("an open event stream ends with its credential", () => {
  it("a revoked API key: its streams close within 2 s, and the shop's valid key gets a slot at once", async () => {
    const vendor = await createVendor(t.ctx);
    const { row, key } = await createApiKey(t.ctx, { vendorId: vendor.id, name: "leaked" });
    const valid = await createKey(t.ctx, vendor.id);
    // Both of the shop's slots, held by the key about to be revoked.
    const streams = [await byKey(key), await byKey(key)];
    const refused = await openSse(`${t.url}/api/vendor/events/stream`, { "x-api-key": valid });
    expect(refused.status).toBe(429);

    await revokeApiKey(t.ctx, vendor.id, row.id);
    await allEndWithin(streams, Date.now());
    await slotIsFree(valid);
    expect((await openSse(`${t.url}/api/vendor/events/stream`, { "x-api-key": key })).status).toBe(401);
  });

  it("a revoked OAuth grant (its refresh token revoked): the token's stream closes within 2 s", async () => {
    const client = await createClient(t.ctx);
    const tokens = await obtainTokens(t, client, "webhooks:read orders:read");
    const s = await byToken(tokens.access_token);
    const res = await oauthPost(t, "/api/oauth/revoke", {
      token: tokens.refresh_token,
      ...clientCredentials(client),
    });
    expect(res.status).toBe(200);
    await allEndWithin([s], Date.now());
  });

  it("a revoked access token: its stream closes within 2 s", async () => {
    const client = await createClient(t.ctx);
    const tokens = await obtainTokens(t, client, "webhooks:read orders:read");
    const s = await byToken(tokens.access_token);
    const res = await oauthPost(t, "/api/oauth/revoke", {
      token: tokens.access_token,
      ...clientCredentials(client),
    });
    expect(res.status).toBe(200);
    await allEndWithin([s], Date.now());
  });

  it("an expired access token: its stream closes within 2 s of the expiry", async () => {
    const client = await createClient(t.ctx);
    // Issued an hour (less 1.5 s) ago by the app's clock: it expires 1.5 s from now.
    const lifetimeLeftMs = 1_500;
    clock.setOffset(-(3_600_000 - lifetimeLeftMs));
    let tokens: Awaited<ReturnType<typeof obtainTokens>>;
    try {
      tokens = await obtainTokens(t, client, "webhooks:read orders:read");
    } finally {
      clock.setOffset(0);
    }
    const expiresAt = Date.now() + lifetimeLeftMs; // at the latest: the token was issued before this
    const s = await byToken(tokens.access_token);
    const afterExpiry = await endOf(s, expiresAt);
    expect(afterExpiry).toBeLessThan(WITHIN_MS);
  });

  it("a scope the stream needs taken away (an operator's SQL): its streams close within 2 s", async () => {
    const vendor = await createVendor(t.ctx);
    const { row, key } = await createApiKey(t.ctx, {
      vendorId: vendor.id,
      name: "POS",
      scopes: ["webhooks:read", "orders:read", "customers:read"],
    });
    const valid = await createKey(t.ctx, vendor.id);
    const everything = await byKey(key);
    const customersOnly = await byKey(key, "?types=customer.created");
    // orders:read goes: the stream of every readable type loses order events, so it ends; the
    // stream of customer events alone still has all it needs.
    await t.database.db.execute(
      sql`update api_keys set scopes = '["webhooks:read","customers:read"]'::jsonb where id = ${row.id}`,
    );
    await allEndWithin([everything], Date.now());
    // webhooks:read goes: the stream itself needs it.
    await t.database.db.execute(
      sql`update api_keys set scopes = '["customers:read"]'::jsonb where id = ${row.id}`,
    );
    await allEndWithin([customersOnly], Date.now());
    await slotIsFree(valid);
    expect((await openSse(`${t.url}/api/vendor/events/stream`, { "x-api-key": key })).status).toBe(403);
  });

  it("a deleted shop: its streams close within 2 s, by key and by OAuth token", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx);
    const byItsKey = await byKey(key);
    const client = await createClient(t.ctx);
    const tokens = await obtainTokens(t, client, "webhooks:read orders:read");
    const byItsToken = await byToken(tokens.access_token);
    const owner = await findMemberByEmail(t.database.db, tokens.email);
    if (!owner) throw new Error("no owner");
    await t.database.db.execute(sql`delete from vendors where id in (${vendor.id}, ${owner.vendorId})`);
    await allEndWithin([byItsKey, byItsToken], Date.now());
  });

  it("an owner's password change revokes the shop's grants: its OAuth streams close within 2 s", async () => {
    // Streams belong to a key or a grant, never to a member: removing a member leaves the shop's
    // credentials as they are. An owner's new password is what ends the shop's grants (CONTRACT 6).
    const client = await createClient(t.ctx);
    const tokens = await obtainTokens(t, client, "webhooks:read orders:read");
    const s = await byToken(tokens.access_token);
    const member = await findMemberByEmail(t.database.db, tokens.email);
    if (!member) throw new Error("no owner");
    await changeMemberPassword(t.ctx, member.vendorId, member.id, {
      currentPassword: TEST_PASSWORD,
      newPassword: "a new and long passphrase 42",
    });
    await allEndWithin([s], Date.now());
  });
});
