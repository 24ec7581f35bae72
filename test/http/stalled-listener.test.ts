// The API-key cache behind a LISTEN connection that stalls without dropping:
// the connection goes through a TCP proxy in this test that, on command, stops forwarding on the
// connections it holds (no error, no FIN: a peer that stopped answering, a forgetful NAT). A key
// revoked meanwhile by someone else (an operator's SQL: its notification is lost in the stall)
// must be refused within the heartbeat bound, not trusted for API_KEY_CACHE_SECONDS; then the
// listener reconnects and the cache trusts again. A private cluster, so this runs on both suites.
import net from "node:net";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, openDatabase } from "../../src/db/client.ts";
import { runMigrations } from "../../src/db/migrate.ts";
import { apiKeys } from "../../src/db/schema/index.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import {
  hasPrivatePostgres,
  type PrivatePostgres,
  privatePostgresMissing,
  startPrivatePostgres,
} from "../helpers/private-postgres.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";
import { eventually } from "../helpers/webhook-receiver.ts";

const HEARTBEAT_MS = 500;
const DEADLINE_MS = 1_000;

/** A TCP proxy to `port`; `stall()` stops every connection it holds now, later ones flow. */
interface StallingProxy {
  url(database: string): string;
  /** Connections opened through it so far. */
  readonly opened: number;
  stall(): void;
  close(): Promise<void>;
}

async function startStallingProxy(port: number): Promise<StallingProxy> {
  const live = new Set<{ client: net.Socket; server: net.Socket; stalled: boolean }>();
  let opened = 0;
  const proxy = net.createServer((client) => {
    opened++;
    const server = net.connect(port, "127.0.0.1");
    const pair = { client, server, stalled: false };
    live.add(pair);
    // Bytes are passed on only while the pair is not stalled; after that they vanish, as on a
    // link that silently stopped carrying anything (neither side is told).
    client.on("data", (chunk) => pair.stalled || server.write(chunk));
    server.on("data", (chunk) => pair.stalled || client.write(chunk));
    const end = () => {
      live.delete(pair);
      client.destroy();
      server.destroy();
    };
    client.on("close", () => pair.stalled || end());
    server.on("close", () => pair.stalled || end());
    client.on("error", () => {});
    server.on("error", () => {});
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const { port: own } = proxy.address() as net.AddressInfo;
  return {
    url: (database) => `postgres://postgres@127.0.0.1:${own}/${database}`,
    get opened() {
      return opened;
    },
    stall() {
      for (const pair of live) pair.stalled = true;
    },
    async close() {
      for (const pair of live) {
        pair.client.destroy();
        pair.server.destroy();
      }
      await new Promise((resolve) => proxy.close(resolve));
    },
  };
}

let cluster: PrivatePostgres | undefined;
let proxy: StallingProxy | undefined;
let t: TestApp | undefined;

beforeAll(async () => {
  if (!hasPrivatePostgres) return;
  cluster = await startPrivatePostgres("stalled-listener");
  proxy = await startStallingProxy(cluster.port);
  // The pool goes straight to the cluster; the LISTEN connection (directUrl) through the proxy.
  const database: Database = await openDatabase(
    { kind: "pg", url: cluster.url, directUrl: proxy.url("postgres") },
    { timeouts: { connectMs: DEADLINE_MS, queryMs: DEADLINE_MS }, listenHeartbeatMs: HEARTBEAT_MS },
  );
  await runMigrations(database);
  t = await startTestApp({ database, env: { API_KEY_CACHE_SECONDS: "60" } });
}, 60_000);

afterAll(async () => {
  await t?.close();
  await proxy?.close();
  await cluster?.destroy();
}, 30_000);

/** Statements one request sent, and its status. */
async function profile(key: string) {
  const app = t as TestApp;
  const before = app.database.queryCount();
  const res = await app.api.get("/api/vendor/profile", { key });
  return { status: res.status, statements: app.database.queryCount() - before };
}

describe.skipIf(!hasPrivatePostgres)("the API-key cache behind a stalled LISTEN connection", () => {
  if (!hasPrivatePostgres) console.warn(privatePostgresMissing);

  it("a key revoked during the stall is refused within the heartbeat bound; then the cache trusts again", async () => {
    const app = t as TestApp;
    const p = proxy as StallingProxy;
    const { vendor, key } = await createVendorWithKey(app.ctx);
    const vendorId = vendor.id;
    const [row] = await app.ctx.db.select().from(apiKeys).where(eq(apiKeys.vendorId, vendorId));
    expect(row).toBeDefined();
    // Held in memory: a request sends only its own statement.
    await eventually(async () => (await profile(key)).statements === 1);
    const connectionsBefore = p.opened;
    expect(connectionsBefore).toBeGreaterThan(0);

    p.stall();
    await app.ctx.db
      .update(apiKeys)
      .set({ revokedAt: new Date() })
      .where(eq(apiKeys.id, row?.id as string));
    const revokedAt = performance.now();
    // Without a heartbeat the held key answered 200 for API_KEY_CACHE_SECONDS (here 60 s).
    await eventually(async () => (await profile(key)).status === 401, 10_000);
    const refusedAfter = performance.now() - revokedAt;
    // The bound is HEARTBEAT_MS + DEADLINE_MS (1.5 s); the margin is for a loaded machine.
    console.log(`refused ${Math.round(refusedAfter)} ms after the revocation`);
    expect(refusedAfter).toBeLessThan(HEARTBEAT_MS + DEADLINE_MS + 3_000);

    // The listener opened a new connection through the proxy (the stalled one was given up),
    // and once it LISTENs again a fresh key is held in memory again.
    await eventually(async () => p.opened > connectionsBefore);
    const fresh = await createVendorWithKey(app.ctx);
    await eventually(async () => (await profile(fresh.key)).statements === 1);
    // ... and a revocation's notification arrives through the new connection.
    const [freshRow] = await app.ctx.db.select().from(apiKeys).where(eq(apiKeys.vendorId, fresh.vendor.id));
    await app.ctx.db
      .update(apiKeys)
      .set({ revokedAt: new Date() })
      .where(eq(apiKeys.id, freshRow?.id as string));
    await eventually(async () => (await profile(fresh.key)).status === 401, 5_000);
  });
});
