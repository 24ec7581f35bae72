// Issue 25 item 4: a worker that leaves, however it leaves, gives its endpoint capacity back within
// one lease, and a worker that comes back gets its share. Two worker processes drain a backlog to
// one slow endpoint (its cap of POSTs in flight, across workers); one is SIGKILLed and restarted,
// then the other is stopped (SIGTERM) and restarted, a rolling restart. The receiver counts its
// open requests over time and which worker sent each (their User-Agents name their PUBLIC_URL).
// PostgreSQL only: PGlite serves one process.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createVendorWithKey } from "../helpers/factories.ts";
import { freePort } from "../helpers/ports.ts";
import { childEnv, type ServerProcess, startServer, waitForHealth } from "../helpers/processes.ts";
import { createScratchDatabase, type ScratchDatabase } from "../helpers/scratch-database.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";
import { eventually, type Receiver, startReceiver } from "../helpers/webhook-receiver.ts";

const pgUrl = process.env.TEST_DATABASE_URL;
const CAP = 6;
const ANSWER_MS = 300;
const TIMEOUT_MS = 1_000;
/** A claim's lease (dispatcher.ts): two timeouts and 5 s. */
const LEASE_MS = 2 * TIMEOUT_MS + 5_000;
const BACKLOG = 2_000;

describe.skipIf(!pgUrl)("a worker that leaves (PostgreSQL)", () => {
  let t: TestApp;
  let scratch: ScratchDatabase | undefined;
  let receiver: Receiver;
  const open = new Set<number>();
  /** [ms since start, requests open] at each change, and who sent each request. */
  const timeline: Array<[number, number]> = [];
  const senders: Array<{ at: number; by: string }> = [];
  const started = Date.now();
  const workers: Record<string, ServerProcess> = {};
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    scratch = await createScratchDatabase(pgUrl ?? "");
    t = await startTestApp({ databaseUrl: scratch.url });
    let n = 0;
    receiver = await startReceiver((req) => {
      const id = n++;
      open.add(id);
      timeline.push([Date.now() - started, open.size]);
      senders.push({
        at: Date.now() - started,
        by: String(req.headers["user-agent"]).match(/worker-\d/)?.[0] ?? "?",
      });
      // Open until answered, or until its sender is gone (a SIGKILLed worker's connections are
      // closed by the kernel), as the shared receiver counts them: what the cap bounds is the POSTs
      // the workers have open. Counted to the answer alone, a killed worker's last POSTs stayed
      // "open" for up to ANSWER_MS while the other worker, rightly, took their slots at once (a
      // dead holder's leases are requeued at the next poll): one run saw a peak of 12.
      void req.closed.then(() => {
        open.delete(id);
        timeline.push([Date.now() - started, open.size]);
      });
      return { status: 200, until: new Promise<void>((r) => setTimeout(r, ANSWER_MS).unref()) };
    });
    env = childEnv({
      DATABASE_URL: scratch.url,
      WEBHOOK_ALLOW_PRIVATE_URLS: "true",
      WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      WEBHOOK_ENDPOINT_CONCURRENCY: String(CAP),
      SHUTDOWN_GRACE_MS: "3000",
    });
  }, 120_000);
  afterAll(async () => {
    for (const w of Object.values(workers)) if (w.child.exitCode === null) w.child.kill("SIGKILL");
    await Promise.all(Object.values(workers).map((w) => w.exited));
    await receiver?.close();
    await t?.close();
    await scratch?.drop();
  });

  async function startWorker(name: string) {
    const port = await freePort();
    const w = startServer(
      ["--role", "worker"],
      { ...env, WORKER_PORT: String(port), PUBLIC_URL: `http://${name}.test` },
      port,
    );
    workers[name] = w;
    await waitForHealth(w);
    return Date.now() - started;
  }

  /** The most requests open at once in [from, to) ms since start. */
  const peak = (from: number, to: number) => {
    let last = 0;
    let max = 0;
    for (const [at, n] of timeline) {
      if (at < from) last = n;
      else if (at < to) max = Math.max(max, n, last);
    }
    return max;
  };
  /** The mean number of requests open over [from, to) ms since start. */
  const mean = (from: number, to: number) => {
    let last = 0;
    let area = 0;
    let at = from;
    for (const [t, n] of timeline) {
      if (t <= from) {
        last = n;
        continue;
      }
      if (t >= to) break;
      area += last * (t - at);
      at = t;
      last = n;
    }
    area += last * (to - at);
    return area / (to - from);
  };
  /** Requests open, sampled every second from `from` (for the report). */
  const perSecond = (from: number, to: number) => {
    const out: number[] = [];
    for (let s = from; s < to; s += 1_000) out.push(peak(s, s + 1_000));
    return out.join(" ");
  };

  it("capacity comes back within one lease after a SIGKILL and after a SIGTERM, and a restarted worker gets its share", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx);
    const hook = await t.api.post(
      "/api/vendor/webhooks",
      { url: receiver.url, events: ["order.created"] },
      { key },
    );
    expect(hook.status).toBe(201);
    // The backlog, events and their deliveries, as enqueueEvent writes them.
    await t.database.db.execute(sql`
      with ev as (
        insert into events (id, vendor_id, type, data, created_at, dispatched_at)
        select 'e' || substr(md5(random()::text), 1, 23), ${vendor.id}, 'order.created',
               jsonb_build_object('id', 'o' || g), now() - interval '1 minute' + g * interval '1 ms',
               now()
        from generate_series(1, ${BACKLOG}) g
        returning id, created_at
      )
      insert into webhook_deliveries (id, webhook_id, vendor_id, event_id, event_type, status, next_attempt_at, created_at, updated_at)
      select 'd' || substr(md5(random()::text), 1, 23), ${hook.body.id}, ${vendor.id}, ev.id, 'order.created',
             'PENDING', ev.created_at, ev.created_at, ev.created_at
      from ev`);

    await startWorker("worker-1");
    await startWorker("worker-2");
    await eventually(async () => open.size === CAP, 30_000);
    const steady = Date.now() - started;

    // worker-1 dies: its leases end within one lease, and the cap is full again after it.
    workers["worker-1"]?.child.kill("SIGKILL");
    await workers["worker-1"]?.exited;
    const killed = Date.now() - started;
    const restarted1 = await startWorker("worker-1");
    await eventually(async () => Date.now() - started > killed + LEASE_MS + 2_000, 60_000);
    const afterKill = [killed + LEASE_MS, killed + LEASE_MS + 2_000] as const;

    // worker-2 stops gracefully and comes back.
    workers["worker-2"]?.child.kill("SIGTERM");
    await workers["worker-2"]?.exited;
    const stopped = Date.now() - started;
    const restarted2 = await startWorker("worker-2");
    await eventually(
      async () => Date.now() - started > Math.max(stopped, restarted2) + LEASE_MS + 2_000,
      60_000,
    );
    const afterStop = [stopped + LEASE_MS, stopped + LEASE_MS + 2_000] as const;
    const end = Date.now() - started;

    const firstFrom = (name: string, after: number) =>
      senders.find((s) => s.by === name && s.at >= after)?.at;
    console.log(
      `cap ${CAP}, answers in ${ANSWER_MS} ms, lease ${LEASE_MS} ms; both running from ${steady} ms; ` +
        `worker-1 SIGKILLed at ${killed} ms, back at ${restarted1} ms, first POST at ${firstFrom("worker-1", restarted1)} ms; ` +
        `worker-2 SIGTERMed at ${stopped} ms, back at ${restarted2} ms, first POST at ${firstFrom("worker-2", restarted2)} ms\n` +
        `requests open, peak per second from ${steady} ms: ${perSecond(steady, end)}\n` +
        `mean open from one lease after the kill: ${mean(...afterKill).toFixed(1)}, after the stop: ${mean(...afterStop).toFixed(1)}, ` +
        `over the last 3 s: ${mean(end - 3_000, end).toFixed(1)}`,
    );
    // Capacity comes back: one lease after each departure every slot is in use again (the peak
    // reaches the cap: a slot still leased to the departed worker would keep it below), and the
    // endpoint is busy, above half its cap on average (about the departed worker's share). How
    // close the mean comes to the cap is the machine's speed, not the leases: the gap between one
    // POST's answer and the next is a record and a claim, and a CI run under load held 4.5-4.9
    // open on average from the stop to the end, its peak at the cap every second.
    for (const window of [afterKill, afterStop]) {
      expect(peak(...window)).toBe(CAP);
      expect(mean(...window)).toBeGreaterThan(CAP / 2);
    }
    expect(peak(0, end)).toBeLessThanOrEqual(CAP);
    // Each restarted worker sends within one lease of its start.
    expect(firstFrom("worker-1", restarted1)).toBeLessThan(restarted1 + LEASE_MS);
    expect(firstFrom("worker-2", restarted2)).toBeLessThan(restarted2 + LEASE_MS);
  }, 240_000);
});
