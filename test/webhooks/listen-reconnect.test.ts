// Issue 9 item 6: the LISTEN connection comes back after the database drops it. The listening
// backend is terminated (pg_terminate_backend, on this test's own database); without a process
// restart a new listener appears and deliveries return to the NOTIFY fast path instead of the
// 1 s polling fallback, and the dispatcher's advisory lock (its proof of life to the others,
// outbox.repository.ts requeueAbandoned) is held again, by the new session. PostgreSQL only:
// PGlite's notifications are in-process.
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { LISTENER_APPLICATION_NAME } from "../../src/db/client.ts";
import { queryRows } from "../../src/db/query-rows.ts";
import { useDeliveryFixture } from "../helpers/delivery-fixture.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import type { TestApp } from "../helpers/test-app.ts";
import { eventually, sleep } from "../helpers/webhook-receiver.ts";

const fixture = useDeliveryFixture();
let t: TestApp;
beforeAll(() => {
  t = fixture.t;
});

async function listenerPids(): Promise<number[]> {
  const rows = await queryRows<{ pid: number }>(
    t.database.db,
    sql`select pid from pg_stat_activity
        where datname = current_database() and application_name = ${LISTENER_APPLICATION_NAME}`,
  );
  return rows.map((r) => Number(r.pid));
}

/** The sessions holding an advisory lock on this database. */
async function lockHolderPids(): Promise<number[]> {
  const rows = await queryRows<{ pid: number }>(
    t.database.db,
    sql`select pid from pg_locks where locktype = 'advisory' and granted
        and database = (select oid from pg_database where datname = current_database())`,
  );
  return rows.map((r) => Number(r.pid));
}

describe.skipIf(!process.env.TEST_DATABASE_URL)("LISTEN after the connection drops", () => {
  it("reconnects, LISTENs and holds its lock again: deliveries return to the fast path without a restart", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const r = await fixture.receiver();
    await fixture.register(key, r.url, ["order.created"]);

    const [before] = await listenerPids();
    if (before === undefined) throw new Error("no LISTEN connection found");
    expect(await lockHolderPids()).toEqual([before]);
    await t.database.db.execute(sql`select pg_terminate_backend(${before})`);
    const after = await eventually(async () => {
      const pids = await listenerPids();
      return pids.length === 1 && pids[0] !== before && pids[0];
    }, 10_000);
    expect(after).not.toBe(before);
    // The lock is taken again once the new session LISTENs (the old one's went with its session).
    const holders = await eventually(async () => {
      const pids = await lockHolderPids();
      return pids.length > 0 && pids;
    }, 10_000);
    expect(holders).toEqual([after]);

    // Commit -> receipt: on the polling fallback the median would be ~500 ms or more.
    const latencies: number[] = [];
    for (let i = 0; i < 9; i++) {
      const started = Date.now();
      const created = await fixture.createOrder(key, `Reconnect ${i}`);
      expect(created.status).toBe(201);
      const got = await eventually(async () => r.requests.find((q) => q.body.data.id === created.body.id));
      latencies.push(got.at - started);
      await sleep(30);
    }
    latencies.sort((a, b) => a - b);
    expect(latencies[4]).toBeLessThan(400);
  });
});
