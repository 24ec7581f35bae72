// On PostgreSQL any number of dispatchers run side by side and never send one attempt twice
// (CONTRACT 7): two worker processes, 500 events, a receiver that always answers 200, and every
// delivery id arrives exactly once. PostgreSQL only (PGlite serves one process).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createVendorWithKey } from "../helpers/factories.ts";
import { childEnv, type ServerProcess, startWorker } from "../helpers/processes.ts";
import { createScratchDatabase, type ScratchDatabase } from "../helpers/scratch-database.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";
import { eventually, type Receiver, startReceiver } from "../helpers/webhook-receiver.ts";

const pgUrl = process.env.TEST_DATABASE_URL;
const EVENTS = 500;

describe.skipIf(!pgUrl)("two dispatcher processes on PostgreSQL", () => {
  let t: TestApp;
  let receiver: Receiver;
  const workers: ServerProcess[] = [];
  let scratch: ScratchDatabase | undefined;
  beforeAll(async () => {
    // A database of its own, so the workers see only this file's events (exactly-once is counted
    // per delivery id, and other files' work would only slow them down).
    scratch = await createScratchDatabase(pgUrl ?? "");
    // 500 writes with one key in well under a minute: lift the per-credential budget.
    t = await startTestApp({ config: { rateLimitPerMinute: 100_000 }, databaseUrl: scratch.url });
    receiver = await startReceiver();
    const env = childEnv({
      DATABASE_URL: scratch.url,
      WEBHOOK_ALLOW_PRIVATE_URLS: "true",
      WEBHOOK_TIMEOUT_MS: "3000",
      WEBHOOK_RETRY_DELAYS_MS: "50,100,150",
    });
    for (let i = 0; i < 2; i++) {
      workers.push(await startWorker(env));
    }
  }, 120_000);
  afterAll(async () => {
    for (const w of workers) w.child.kill("SIGTERM");
    await Promise.all(workers.map((w) => w.exited));
    await receiver.close();
    await t.close();
    await scratch?.drop();
  });

  it(`deliver ${EVENTS} events exactly once each, counted by delivery id`, async () => {
    for (const w of workers) expect(w.child.exitCode).toBeNull();
    const { key } = await createVendorWithKey(t.ctx);
    const hook = await t.api.post(
      "/api/vendor/webhooks",
      { url: receiver.url, events: ["order.status_changed"] },
      { key },
    );
    expect(hook.status).toBe(201);
    // Orders first (their order.created is not subscribed), then 500 status changes.
    const orders: string[] = [];
    for (let i = 0; i < EVENTS / 5; i++) {
      const res = await t.api.post("/api/vendor/orders", { customerName: "N", type: "RENTAL" }, { key });
      orders.push(res.body.id);
    }
    const path = ["IN_PRODUCTION", "FITTING_READY", "PICKED_UP", "RETURNED", "COMPLETED"];
    for (const status of path) {
      for (let i = 0; i < orders.length; i += 20) {
        const results = await Promise.all(
          orders
            .slice(i, i + 20)
            .map((id) => t.api.put(`/api/vendor/orders/${id}/status`, { status }, { key })),
        );
        for (const r of results) expect(r.status).toBe(200);
      }
    }
    await receiver.waitFor(EVENTS, 120_000);
    const log = await eventually(async () => {
      const rows = await t.database.pool?.query(
        "select count(*)::int as n, count(*) filter (where status = 'SUCCEEDED')::int as ok, sum(attempt_count)::int as attempts from webhook_deliveries where webhook_id = $1",
        [hook.body.id],
      );
      const row = rows?.rows[0];
      return row?.ok === EVENTS && row;
    });
    // Every delivery recorded, no claim can take one again; any duplicate already sent arrives
    // before its worker exits (SIGTERM lets POSTs in flight finish).
    for (const w of workers) w.child.kill("SIGTERM");
    expect(await Promise.all(workers.map((w) => w.exited))).toEqual([0, 0]);
    const deliveryIds = receiver.requests.map((r) => r.headers["x-service-delivery"]);
    expect(receiver.requests).toHaveLength(EVENTS);
    expect(new Set(deliveryIds).size).toBe(EVENTS);
    expect(new Set(receiver.requests.map((r) => r.body.id)).size).toBe(EVENTS);
    expect(log).toEqual({ n: EVENTS, ok: EVENTS, attempts: EVENTS });
  }, 240_000);
});
