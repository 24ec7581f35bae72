// Verified API keys held in memory (src/modules/api-keys/verified-keys.ts): a key's first request
// reads its row, later ones do not, and a key stops working as soon as it is revoked, however the
// revocation is made: by this process at once, by anyone else (the CLI, an operator's SQL, a
// vendor deleted) as soon as the api_key_changes trigger's notification arrives. While the LISTEN
// connection is down, nothing is trusted from memory.
import { eq, sql } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../src/db/client.ts";
import { apiKeys, vendors } from "../../src/db/schema/index.ts";
import { hashSecret } from "../../src/lib/crypto.ts";
import {
  authenticateApiKey,
  createApiKey,
  revokeApiKey,
} from "../../src/modules/api-keys/api-keys.service.ts";
import { forgetApiKey, openVerifiedKeys } from "../../src/modules/api-keys/verified-keys.ts";
import { createVendor, createVendorWithKey } from "../helpers/factories.ts";
import { directUrlOf } from "../helpers/pooler.ts";
import { startTestApp, type TestApp, useTestApp } from "../helpers/test-app.ts";
import { eventually } from "../helpers/webhook-receiver.ts";

const t = useTestApp();

/** Statements one request sent, and its status. */
async function statementsFor(key: string) {
  const before = t.database.queryCount();
  const res = await t.api.get("/api/vendor/profile", { key });
  return { status: res.status, statements: t.database.queryCount() - before };
}

/** A key whose last use is recorded already (that write, once a minute, is not what is counted). */
async function usedKey() {
  const { vendor, key } = await createVendorWithKey(t.ctx);
  await t.api.get("/api/vendor/profile", { key });
  await eventually(async () => {
    const [row] = await t.ctx.db.select().from(apiKeys).where(eq(apiKeys.vendorId, vendor.id));
    return row?.lastUsedAt != null;
  });
  const [row] = await t.ctx.db.select().from(apiKeys).where(eq(apiKeys.vendorId, vendor.id));
  return { vendor, key, id: row?.id as string };
}

describe("a verified key is held in memory", () => {
  it("its first request reads the key; the next ones send only their own statement", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const first = await statementsFor(key);
    expect(first.status).toBe(200);
    const second = await statementsFor(key);
    expect(second).toEqual({ status: 200, statements: 1 });
    // The first also recorded the key's last use: lookup + profile + that write, at most.
    expect(first.statements).toBeGreaterThan(second.statements);
  });

  it("revoked by this process (dashboard, API, CLI through the server): refused on the very next request", async () => {
    const { vendor, key, id } = await usedKey();
    expect((await statementsFor(key)).statements).toBe(1);
    expect(await revokeApiKey(t.ctx, vendor.id, id)).toBe(true);
    expect((await t.api.get("/api/vendor/profile", { key })).status).toBe(401);
  });

  it("revoked by an operator's own SQL: refused once the trigger's notification arrives", async () => {
    const { key, id } = await usedKey();
    expect((await statementsFor(key)).statements).toBe(1);
    await t.ctx.db.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.id, id));
    await eventually(async () => (await t.api.get("/api/vendor/profile", { key })).status === 401, 5_000);
  });

  it("its vendor deleted (the key goes with it): refused once the notification arrives", async () => {
    const { vendor, key } = await usedKey();
    expect((await statementsFor(key)).statements).toBe(1);
    await t.ctx.db.delete(vendors).where(eq(vendors.id, vendor.id));
    await eventually(async () => (await t.api.get("/api/vendor/profile", { key })).status === 401, 5_000);
  });

  it("a key's last use is still recorded once a minute while it is served from memory", async () => {
    const { key, id } = await usedKey();
    // Pretend the last recorded use was long ago: the held credential still says it was just now,
    // so no write happens until its minute is up (the same resolution as before the cache).
    await t.ctx.db
      .update(apiKeys)
      .set({ lastUsedAt: new Date(Date.UTC(2000, 0, 1)) })
      .where(eq(apiKeys.id, id));
    expect((await statementsFor(key)).statements).toBe(1);
    const [row] = await t.ctx.db.select().from(apiKeys).where(eq(apiKeys.id, id));
    expect(row?.lastUsedAt?.getUTCFullYear()).toBe(2000);
  });
});

describe("API_KEY_CACHE_SECONDS=0", () => {
  let uncached: TestApp;
  beforeAll(async () => {
    uncached = await startTestApp({ env: { API_KEY_CACHE_SECONDS: "0" } });
  });
  afterAll(() => uncached.close());

  it("reads the key on every request", async () => {
    const { vendor, key } = await createVendorWithKey(uncached.ctx);
    await uncached.api.get("/api/vendor/profile", { key });
    // The first request records the key's use off the request path. Until that write commits,
    // every read finds no recorded use and records it again: a third statement, which a loaded
    // PostgreSQL made visible. Counted from the recorded use on, as usedKey does.
    await eventually(async () => {
      const [row] = await uncached.ctx.db.select().from(apiKeys).where(eq(apiKeys.vendorId, vendor.id));
      return row?.lastUsedAt != null;
    });
    for (let i = 0; i < 2; i++) {
      const before = uncached.database.queryCount();
      expect((await uncached.api.get("/api/vendor/profile", { key })).status).toBe(200);
      expect(uncached.database.queryCount() - before).toBe(2);
    }
  });
});

// PostgreSQL only: another session's row lock holds the first request's last-use write in flight
// (what a loaded server does for a while), which PGlite's single connection cannot show.
describe.skipIf(!process.env.TEST_DATABASE_URL)(
  "API_KEY_CACHE_SECONDS=0, the first use still being recorded",
  () => {
    let uncached: TestApp;
    beforeAll(async () => {
      uncached = await startTestApp({ env: { API_KEY_CACHE_SECONDS: "0" } });
    });
    afterAll(() => uncached.close());

    it("the next request does not record the use a second time (issue 24 item 13: 3 statements, not 2)", async () => {
      const { vendor, key } = await createVendorWithKey(uncached.ctx);
      const [row] = await uncached.ctx.db.select().from(apiKeys).where(eq(apiKeys.vendorId, vendor.id));
      const locker = new pg.Client({
        connectionString: directUrlOf(process.env.TEST_DATABASE_URL as string),
      });
      await locker.connect();
      try {
        await locker.query("begin");
        await locker.query("select 1 from api_keys where id = $1 for update", [row?.id]);
        expect((await uncached.api.get("/api/vendor/profile", { key })).status).toBe(200);
        for (let i = 0; i < 2; i++) {
          const before = uncached.database.queryCount();
          expect((await uncached.api.get("/api/vendor/profile", { key })).status).toBe(200);
          expect(uncached.database.queryCount() - before).toBe(2);
        }
      } finally {
        await locker.query("rollback");
        await locker.end();
      }
      // The held write goes through once the lock is gone.
      await eventually(async () => {
        const [after] = await uncached.ctx.db.select().from(apiKeys).where(eq(apiKeys.vendorId, vendor.id));
        return after?.lastUsedAt != null;
      });
    });
  },
);

describe("the cache's own rules", () => {
  /** The test's database, with the cache's LISTEN callbacks in reach to play a lost connection. */
  function observed(database: Database) {
    const hooks: { notify?: (payload: string) => void; lost?: () => void } = {};
    const wrapped: Database = {
      ...database,
      listen: (channel, fn, onLost) => {
        hooks.notify = fn;
        hooks.lost = onLost;
        return database.listen(channel, fn, onLost);
      },
    };
    return { wrapped, hooks };
  }

  async function lookups(fn: () => Promise<unknown>) {
    const before = t.database.queryCount();
    await fn();
    return t.database.queryCount() - before;
  }

  it("while the LISTEN connection is down nothing is held; once it is back, reads are held again", async () => {
    const { wrapped, hooks } = observed(t.database);
    const keys = await openVerifiedKeys(wrapped, 60_000);
    try {
      const vendor = await createVendor(t.ctx);
      const { row, key } = await createApiKey(t.ctx, { vendorId: vendor.id, name: "k" });
      const auth = () => authenticateApiKey(t.ctx, key, keys);
      await auth(); // read, held, and its use recorded (off the request path: wait for it)
      await eventually(async () => {
        const [held] = await t.ctx.db.select().from(apiKeys).where(eq(apiKeys.id, row.id));
        return held?.lastUsedAt != null;
      });
      expect(await lookups(auth)).toBe(0);
      hooks.lost?.();
      expect(await lookups(auth)).toBe(1);
      expect(await lookups(auth)).toBe(1);
      hooks.notify?.("");
      expect(await lookups(auth)).toBe(1);
      expect(await lookups(auth)).toBe(0);
    } finally {
      await keys.close();
    }
  });

  it("a read that began before a change is not held: it may have read the row as it was", async () => {
    const keys = await openVerifiedKeys(t.database, 60_000);
    try {
      const vendor = await createVendor(t.ctx);
      const { row, key } = await createApiKey(t.ctx, { vendorId: vendor.id, name: "k" });
      const credential = {
        id: row.id,
        vendorId: vendor.id,
        keyHash: hashSecret(key),
        scopes: null,
        revoked: false,
        lastUsedMs: Date.now(),
      };
      const began = keys.generation();
      forgetApiKey("another-key"); // any change, while the read was on its way
      keys.remember(credential, began);
      expect(keys.get(credential.keyHash)).toBeUndefined();
      keys.remember(credential, keys.generation());
      expect(keys.get(credential.keyHash)).toBe(credential);
    } finally {
      await keys.close();
    }
  });

  it("an entry is trusted for the configured age at most", async () => {
    const keys = await openVerifiedKeys(t.database, 40);
    try {
      const credential = {
        id: "k1",
        vendorId: "v1",
        keyHash: hashSecret("vk_example"),
        scopes: null,
        revoked: false,
        lastUsedMs: Date.now(),
      };
      keys.remember(credential, keys.generation());
      expect(keys.get(credential.keyHash)).toBe(credential);
      await eventually(async () => keys.get(credential.keyHash) === undefined, 2_000);
    } finally {
      await keys.close();
    }
  });

  it("the trigger notifies on revocation and deletion only, not on the once-a-minute use record", async () => {
    const heard: string[] = [];
    const unlisten = await t.database.listen("api_key_changes", (id) => heard.push(id));
    try {
      const vendor = await createVendor(t.ctx);
      const { row } = await createApiKey(t.ctx, { vendorId: vendor.id, name: "k" });
      await t.ctx.db.update(apiKeys).set({ lastUsedAt: new Date() }).where(eq(apiKeys.id, row.id));
      await t.ctx.db.execute(sql`update api_keys set revoked_at = now() where id = ${row.id}`);
      await eventually(async () => heard.includes(row.id));
      await t.ctx.db.delete(apiKeys).where(eq(apiKeys.id, row.id));
      // Notifications arrive in commit order: once this one is heard, every earlier one was.
      await t.ctx.db.execute(sql`select pg_notify('api_key_changes', 'sentinel')`);
      await eventually(async () => heard.includes("sentinel"));
      expect(heard.filter((id) => id === row.id)).toHaveLength(2);
    } finally {
      await unlisten();
    }
  });
});
