// Webhook delivery benchmark (PostgreSQL): how fast worker processes drain a backlog to a local
// receiver, and the latency from commit to arrival (p50, p99) at a steady rate while an API
// process serves reads of the order list alongside.
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/<db> npm run bench:webhooks
// Options (env): BENCH_BURST (events in the drain and throughput runs, default 2000), BENCH_RATE
// (events/s in the latency run, default 100), BENCH_SECONDS (default 10), BENCH_WORKERS
// (dispatchers, default 1), BENCH_IN_PROCESS=1 (the dispatchers run in this process instead of
// as `--role worker` processes of the app), BENCH_READ_RATE (GET /api/vendor/orders per second
// against a `--role api` process during the latency run, default 100; 0 for none),
// BENCH_THROUGHPUT=0 (skip the 20-writer run), WEBHOOK_ENDPOINT_CONCURRENCY (passed to the
// dispatchers), BENCH_CPU_PROF_DIR (app processes write CPU profiles there), BENCH_WORKER_LOG_LEVEL
// (the workers' LOG_LEVEL, default info: one line per attempt), BENCH_DRAIN_WARMUP (events
// delivered before the drain, not counted, default 2000), BENCH_LATENCY_WARMUP (seconds of the
// latency run's load before it is measured, default 3).
//
// Processes: this one holds the receiver (a node:http server answering 204), the event writers
// (enqueueEvent in a transaction, the commit time taken when COMMIT returns) and the read load
// (autocannon at a fixed rate); the dispatchers and the API are the app's own processes
// (bench/processes.ts). One webhook endpoint receives everything.
//
// Drain: the backlog is queued while the endpoint's circuit is held open (as after an outage),
// with the workers already running; the clock starts when the circuit closes (and a NOTIFY wakes
// the workers), so neither process start-up nor the workers' first deliveries (the warm-up) count.

import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import autocannon from "autocannon";
import { sql } from "drizzle-orm";
import pg from "pg";
import { allScopes } from "../src/auth/scopes.ts";
import { loadConfig } from "../src/config.ts";
import { openDatabase } from "../src/db/client.ts";
import { runMigrations } from "../src/db/migrate.ts";
import { newId } from "../src/lib/ids.ts";
import { createApiKey } from "../src/modules/api-keys/api-keys.service.ts";
import type { OrderSchema } from "../src/modules/orders/orders.schemas.ts";
import { createVendor } from "../src/modules/use-cases/vendor-accounts.service.ts";
import { registerWebhook } from "../src/modules/webhooks/webhooks.service.ts";
import { EVENTS_CHANNEL } from "../src/outbox/event-types.ts";
import { eventCtes, notifyWhenQueued } from "../src/outbox/outbox-write.repository.ts";
import { type Dispatcher, startDispatcher } from "../src/webhook-delivery/dispatcher.ts";
import { systemResolver } from "../src/webhook-delivery/url-guard.ts";
import { cpuSecondsOfTree, freePort, machineTicks, type Server, startServer } from "./processes.ts";
import { seedOrders } from "./seed.ts";

const env = process.env;
const url = env.BENCH_DATABASE_URL ?? env.DATABASE_URL;
if (!url) {
  console.error("Set BENCH_DATABASE_URL (a PostgreSQL database the benchmark may write to)");
  process.exit(1);
}
const BURST = Number(env.BENCH_BURST ?? 2000);
const RATE = Number(env.BENCH_RATE ?? 100);
const SECONDS = Number(env.BENCH_SECONDS ?? 10);
const WORKERS = Number(env.BENCH_WORKERS ?? 1);
const IN_PROCESS = env.BENCH_IN_PROCESS === "1";
const READ_RATE = Number(env.BENCH_READ_RATE ?? 100);
const LATENCY_WARMUP = Number(env.BENCH_LATENCY_WARMUP ?? 3);
const DRAIN_WARMUP = Number(env.BENCH_DRAIN_WARMUP ?? 2000);
const dispatcherEnv: Record<string, string> = {
  NODE_ENV: "production",
  SESSION_SECRET: "x".repeat(32),
  WEBHOOK_ALLOW_PRIVATE_URLS: "true",
  DATABASE_URL: url,
  ...(env.WEBHOOK_ENDPOINT_CONCURRENCY
    ? { WEBHOOK_ENDPOINT_CONCURRENCY: env.WEBHOOK_ENDPOINT_CONCURRENCY }
    : {}),
};
const loadAvg = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
const loadBefore = loadAvg();

const config = loadConfig({ ...dispatcherEnv, LOG_LEVEL: "silent" });
const database = await openDatabase({ kind: "pg", url }, { poolSize: 20 });
await runMigrations(database);
const ctx = { db: database.db, now: () => new Date() };
const admin = new pg.Client({ connectionString: url });
await admin.connect();
const dbName = (await admin.query<{ db: string }>("select current_database() as db")).rows[0]?.db ?? "";

const committedAt = new Map<string, number>();
const arrivedAt = new Map<string, number>();
const seen = new Set<string>();
let duplicates = 0;
let onArrival: (() => void) | undefined;
const receiver = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const id = JSON.parse(Buffer.concat(chunks).toString("utf8")).id as string;
    if (seen.has(id)) duplicates++;
    else {
      seen.add(id);
      arrivedAt.set(id, performance.now());
    }
    res.writeHead(204).end();
    onArrival?.();
  });
});
await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
const port = (receiver.address() as AddressInfo).port;

// Webhooks left by an interrupted run would still be retried against receivers long gone.
await admin.query(
  "delete from webhooks where vendor_id in (select id from vendors where email like 'bench-%@example.test')",
);
// Dead row versions slow every index read of the queue; PostgreSQL's autovacuum would remove them,
// and it is off on the benchmark machine, so each run below starts on a vacuumed queue.
const vacuumQueue = () =>
  admin.query("vacuum analyze webhook_deliveries, webhook_attempts, events, webhooks");
// Those of earlier benchmark runs:
await vacuumQueue();
const vendor = await createVendor(ctx, {
  name: "Bench",
  email: `bench-${Date.now()}@example.test`,
  password: "bench-password-1",
});
const hook = await registerWebhook(
  ctx,
  vendor.id,
  { url: `http://127.0.0.1:${port}/hook`, events: ["order.created"] },
  { scopes: new Set(allScopes) },
  { allowPrivate: true, httpsOnly: false, resolver: systemResolver },
);
const webhookId = (hook as { id: string }).id;

// The dispatchers: worker processes of the app (or, with BENCH_IN_PROCESS=1, in this process).
const servers: Server[] = [];
const dispatchers: Dispatcher[] = [];
// Held open until the drain starts: the backlog queues as it would behind an outage.
await admin.query("update webhooks set circuit_open_until = now() + interval '1 hour' where id = $1", [
  webhookId,
]);
if (IN_PROCESS) {
  for (let i = 0; i < WORKERS; i++) dispatchers.push(await startDispatcher({ config, database }));
} else {
  const started = await Promise.all(
    Array.from({ length: WORKERS }, async (_, i) => {
      const workerPort = await freePort();
      return startServer(
        `worker-${i + 1}`,
        "src/main.ts",
        {
          ...dispatcherEnv,
          LOG_LEVEL: env.BENCH_WORKER_LOG_LEVEL ?? "info",
          WORKER_PORT: String(workerPort),
          PORT: String(await freePort()),
        },
        { quiet: !process.env.BENCH_NODE_FLAGS, healthPort: workerPort },
        ["--role", "worker"],
      );
    }),
  );
  servers.push(...started);
}
// A run that fails midway leaves no app process behind.
process.on("exit", () => {
  for (const server of servers) server.child.kill("SIGKILL");
});
const workerPids = servers.map((s) => s.child.pid as number);

const data: OrderSchema = {
  id: "bench",
  number: 1001,
  type: "BRIDAL_DRESS",
  status: "ORDERED",
  model: "Aurora",
  size: "38",
  color: "Ivory",
  description: "A-line, lace sleeves".repeat(10),
  specialRequests: null,
  dueDate: null,
  pickupDate: null,
  dueBackDate: null,
  customerId: "tz4a98xxat96iws9zmbrgj3a",
  customer: { name: "Maria Silva", email: "maria@example.com" },
  externalId: null,
  metadata: {},
  updates: [
    {
      status: "ORDERED",
      message: "Order created",
      imageUrl: null,
      photos: [],
      createdAt: new Date().toISOString(),
    },
  ],
  createdAt: new Date().toISOString(),
  updatedAt: new Date().toISOString(),
};

// One event per statement, committed on its own: what the app's hot writes do (the change, its
// events, their deliveries and the NOTIFY in one statement, enqueue.ts eventCtes), so the
// writers cost this process one round trip per event.
const payload = JSON.stringify(data);
async function emit(notify = true): Promise<void> {
  const id = newId();
  await database.db.execute(
    sql`with ${eventCtes(
      sql`select ${id}::text as id, ${vendor.id}::text as vendor_id, 'order.created'::text as type,
                 ${payload}::jsonb as data, ${new Date().toISOString()}::timestamptz as created_at,
                 null::text as target_webhook_id`,
    )}
    select ${notify ? notifyWhenQueued : sql`1`}`,
  );
  committedAt.set(id, performance.now());
}

function waitForArrivals(n: number, timeoutMs = 120_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      onArrival = undefined;
      reject(new Error(`only ${arrivedAt.size} of ${n} events arrived within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    const check = () => {
      if (arrivedAt.size >= n) {
        onArrival = undefined;
        clearTimeout(timer);
        resolve();
      }
    };
    onArrival = check;
    check();
  });
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

/** CPU seconds of the workers and of the database's PostgreSQL backends, for a per-delivery cost. */
async function cpuNow(): Promise<{ workers: number; pg: Map<number, number> }> {
  const { rows } = await admin.query<{ pid: number }>(
    "select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()",
    [dbName],
  );
  const pgCpu = new Map<number, number>();
  for (const { pid } of rows) {
    try {
      pgCpu.set(pid, cpuSecondsOfTree(pid, false));
    } catch {
      // ended, or PostgreSQL is on another host
    }
  }
  return { workers: workerPids.reduce((n, pid) => n + cpuSecondsOfTree(pid), 0), pg: pgCpu };
}
async function cpuSince(before: Awaited<ReturnType<typeof cpuNow>>) {
  const after = await cpuNow();
  let pgCpu = 0;
  for (const [pid, s] of after.pg) pgCpu += s - (before.pg.get(pid) ?? 0);
  return { workers: after.workers - before.workers, pg: pgCpu };
}
const commits = async () =>
  Number(
    (
      await admin.query<{ n: string }>("select xact_commit as n from pg_stat_database where datname = $1", [
        dbName,
      ])
    ).rows[0]?.n,
  );

// Not counted: DRAIN_WARMUP events delivered first, so the drain measures workers whose delivery
// path is compiled and whose pools are connected, as a backlog meets them after an outage; the
// queue is vacuumed again afterwards (as autovacuum would keep it).
if (DRAIN_WARMUP > 0) {
  await admin.query("update webhooks set circuit_open_until = null where id = $1", [webhookId]);
  for (let i = 0; i < DRAIN_WARMUP; i += 20) {
    await Promise.all(Array.from({ length: Math.min(20, DRAIN_WARMUP - i) }, () => emit()));
  }
  await waitForArrivals(DRAIN_WARMUP);
  committedAt.clear();
  arrivedAt.clear();
  await admin.query("update webhooks set circuit_open_until = now() + interval '1 hour' where id = $1", [
    webhookId,
  ]);
  await vacuumQueue();
}

// 0. Drain: BURST events queued behind the open circuit, then it closes.
for (let i = 0; i < BURST; i += 100) {
  // No NOTIFY for the backlog: the workers would only wake to find the circuit open.
  await Promise.all(Array.from({ length: Math.min(100, BURST - i) }, () => emit(false)));
}
const machine0 = machineTicks();
const cpu0 = await cpuNow();
const self0 = process.cpuUsage();
const x0 = await commits();
const d0 = performance.now();
await admin.query("update webhooks set circuit_open_until = null where id = $1", [webhookId]);
await admin.query("select pg_notify($1, '')", [EVENTS_CHANNEL]);
await waitForArrivals(BURST);
const d1 = performance.now();
const drainCpu = await cpuSince(cpu0);
const machine1 = machineTicks();
const machineAll =
  machine1.busy + machine1.idle + machine1.iowait - (machine0.busy + machine0.idle + machine0.iowait);
const share = (k: "busy" | "idle" | "iowait") =>
  `${(((machine1[k] - machine0[k]) / machineAll) * 100).toFixed(0)} %`;
const selfCpu = process.cpuUsage(self0);
const drainCommits = (await commits()) - x0;
console.log(
  `drain: ${BURST} queued events delivered in ${((d1 - d0) / 1000).toFixed(2)} s = ${(BURST / ((d1 - d0) / 1000)).toFixed(0)} events/s ` +
    `(${WORKERS} ${IN_PROCESS ? "in-process dispatchers" : "worker processes"}; ` +
    `${IN_PROCESS ? "" : `worker CPU ${((drainCpu.workers * 1000) / BURST).toFixed(3)} ms, `}` +
    `PostgreSQL CPU ${((drainCpu.pg * 1000) / BURST).toFixed(3)} ms, ` +
    `receiver (this process) ${((selfCpu.user + selfCpu.system) / 1000 / BURST).toFixed(3)} ms, ${(drainCommits / BURST).toFixed(2)} commits per delivery; ` +
    `machine ${share("busy")} busy, ${share("idle")} idle, ${share("iowait")} waiting on I/O)`,
);
committedAt.clear();
arrivedAt.clear();

// 1. Throughput: BURST events committed as fast as 20 concurrent writers manage.
if (env.BENCH_THROUGHPUT !== "0") await throughputRun();
async function throughputRun() {
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 20 }, async () => {
      while (next++ < BURST) await emit();
    }),
  );
  const committedAll = performance.now();
  await waitForArrivals(BURST);
  const t1 = performance.now();
  const throughput = BURST / ((t1 - t0) / 1000);
  console.log(
    `throughput: ${BURST} events in ${((t1 - t0) / 1000).toFixed(2)} s = ${throughput.toFixed(0)} events/s ` +
      `(commits took ${((committedAll - t0) / 1000).toFixed(2)} s)`,
  );
}

// 2. Latency at a steady rate, with an API process serving reads of a 100-order list alongside.
// The drain and throughput runs left two dead row versions per delivery in the queue's indexes:
// vacuumed first, as autovacuum would have done by the time a queue is back to a steady rate.
await vacuumQueue();
let api: Server | undefined;
let reads: Promise<autocannon.Result> | undefined;
if (READ_RATE > 0) {
  api = await startServer(
    "api",
    "src/main.ts",
    { ...dispatcherEnv, LOG_LEVEL: "info", RATE_LIMIT_PER_MINUTE: "1000000" },
    { quiet: true },
    ["--role", "api"],
  );
  servers.push(api);
  const reader = await createVendor(ctx, {
    name: "Bench reads",
    email: `bench-reads-${Date.now()}@example.test`,
    password: "bench-password-1",
  });
  const key = (await createApiKey(ctx, { vendorId: reader.id, name: "bench" })).key;
  const seeded = await seedOrders(api, { readKey: key, writeKey: key, writeVendorId: reader.id });
  // A short warm-up of the list, so the latency run does not see the API's first requests.
  await autocannon({
    url: `${api.url}/api/vendor/orders`,
    headers: { "x-api-key": seeded.readKey },
    connections: 4,
    duration: 1,
    overallRate: READ_RATE,
  });
  reads = autocannon({
    url: `${api.url}/api/vendor/orders`,
    headers: { "x-api-key": seeded.readKey },
    connections: 4,
    duration: LATENCY_WARMUP + SECONDS,
    overallRate: READ_RATE,
  });
}
/** Events at RATE per second for `seconds`, each committed on its own; resolves once all arrived. */
async function steadyEvents(seconds: number): Promise<void> {
  committedAt.clear();
  arrivedAt.clear();
  const total = RATE * seconds;
  const interval = 1000 / RATE;
  const start = performance.now();
  const writes: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = start + i * interval;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    writes.push(emit());
  }
  await Promise.all(writes);
  await waitForArrivals(total);
}
// Not counted: the same load for LATENCY_WARMUP seconds first, so the figures are the steady state
// (the API process's first requests and the workers' first claims after the drain run cold code).
if (LATENCY_WARMUP > 0) await steadyEvents(LATENCY_WARMUP);
const total = RATE * SECONDS;
await steadyEvents(SECONDS);
const latencies = [...committedAt].map(([id, c]) => (arrivedAt.get(id) ?? NaN) - c).sort((a, b) => a - b);
const readResult = await reads;
console.log(
  `latency at ${RATE} events/s for ${SECONDS} s (${total} events): p50 ${pct(latencies, 50).toFixed(1)} ms, ` +
    `p99 ${pct(latencies, 99).toFixed(1)} ms, max ${latencies.at(-1)?.toFixed(1)} ms` +
    (readResult
      ? `; reads alongside: GET /api/vendor/orders (100 orders) ${readResult.requests.average.toFixed(0)} req/s, ` +
        `p99 ${readResult.latency.p99} ms, ${readResult.non2xx + readResult.errors} failed`
      : "; no reads alongside"),
);
console.log(
  `duplicates received: ${duplicates}; load average ${loadBefore} before, ${loadAvg()} after; ${new Date().toISOString()}`,
);

await Promise.all(dispatchers.map((d) => d.stop(2_000)));
await Promise.all(servers.map((s) => s.stop()));
await admin.query("delete from webhooks where id = $1", [webhookId]);
receiver.close();
await admin.end();
await database.close();
