// Webhook delivery benchmark (PostgreSQL): events per second from commit to receiver, and the
// latency from commit to arrival (p50, p99) at a steady rate.
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/<db> npm run bench:webhooks
// Options (env): BENCH_BURST (events in the throughput run, default 2000), BENCH_RATE (events/s
// in the latency run, default 100), BENCH_SECONDS (default 10), BENCH_WORKERS (dispatchers in
// this process, default 1). The receiver is a local node:http server answering 204.

import http from "node:http";
import type { AddressInfo } from "node:net";
import { allScopes } from "../src/auth/scopes.ts";
import { loadConfig } from "../src/config.ts";
import { openDatabase } from "../src/db/client.ts";
import { runMigrations } from "../src/db/migrate.ts";
import type { OrderSchema } from "../src/modules/orders/orders.schemas.ts";
import { createVendor } from "../src/modules/vendors/vendors.service.ts";
import { registerWebhook } from "../src/modules/webhooks/webhooks.service.ts";
import { startDispatcher } from "../src/webhook-delivery/dispatcher.ts";
import { enqueueEvent } from "../src/webhook-delivery/enqueue.ts";
import { systemResolver } from "../src/webhook-delivery/url-guard.ts";

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

const config = loadConfig({
  NODE_ENV: "production",
  SESSION_SECRET: "x".repeat(32),
  WEBHOOK_ALLOW_PRIVATE_URLS: "true",
  LOG_LEVEL: "silent",
  DATABASE_URL: url,
});
const database = await openDatabase({ kind: "pg", url }, { poolSize: 20 });
await runMigrations(database);
const ctx = { db: database.db, now: () => new Date() };

const committedAt = new Map<string, number>();
const arrivedAt = new Map<string, number>();
let onArrival: (() => void) | undefined;
const receiver = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const id = JSON.parse(Buffer.concat(chunks).toString("utf8")).id as string;
    if (!arrivedAt.has(id)) arrivedAt.set(id, performance.now());
    res.writeHead(204).end();
    onArrival?.();
  });
});
await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
const port = (receiver.address() as AddressInfo).port;

const vendor = await createVendor(ctx, {
  name: "Bench",
  email: `bench-${Date.now()}@example.test`,
  password: "bench-password-1",
});
await registerWebhook(
  ctx,
  vendor.id,
  { url: `http://127.0.0.1:${port}/hook`, events: ["order.created"] },
  { scopes: new Set(allScopes) },
  { allowPrivate: true, httpsOnly: false, resolver: systemResolver },
);

const data: OrderSchema = {
  id: "bench",
  type: "BRIDAL_DRESS",
  status: "ORDERED",
  model: "Aurora",
  size: "38",
  color: "Ivory",
  description: "A-line, lace sleeves".repeat(10),
  specialRequests: null,
  customerId: "tz4a98xxat96iws9zmbrgj3a",
  customer: { name: "Maria Silva", email: "maria@example.com" },
  updates: [
    { status: "ORDERED", message: "Order created", imageUrl: null, createdAt: new Date().toISOString() },
  ],
  createdAt: new Date().toISOString(),
  updatedAt: new Date().toISOString(),
};

async function emit(): Promise<void> {
  const id = await database.db.transaction((tx) =>
    enqueueEvent(tx, { vendorId: vendor.id, type: "order.created", data, createdAt: new Date() }),
  );
  committedAt.set(id, performance.now());
}

function waitForArrivals(n: number): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (arrivedAt.size >= n) {
        onArrival = undefined;
        resolve();
      }
    };
    onArrival = check;
    check();
  });
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

// 0. Drain: BURST events already committed (a backlog, e.g. after an outage), then the
//    dispatchers start: the dispatchers' own delivery rate, writers out of the picture.
for (let i = 0; i < BURST; i += 100) {
  await Promise.all(Array.from({ length: Math.min(100, BURST - i) }, () => emit()));
}
const d0 = performance.now();
const dispatchers = await Promise.all(
  Array.from({ length: WORKERS }, () => startDispatcher({ config, database })),
);
await waitForArrivals(BURST);
const d1 = performance.now();
console.log(
  `drain: ${BURST} queued events delivered in ${((d1 - d0) / 1000).toFixed(2)} s = ${(BURST / ((d1 - d0) / 1000)).toFixed(0)} events/s`,
);
committedAt.clear();
arrivedAt.clear();

// 1. Throughput: BURST events committed as fast as 20 concurrent writers manage.
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

// 2. Latency at a steady rate.
committedAt.clear();
arrivedAt.clear();
const total = RATE * SECONDS;
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
const latencies = [...committedAt].map(([id, c]) => (arrivedAt.get(id) ?? NaN) - c).sort((a, b) => a - b);
console.log(
  `latency at ${RATE} events/s for ${SECONDS} s (${total} events): p50 ${pct(latencies, 50).toFixed(1)} ms, ` +
    `p99 ${pct(latencies, 99).toFixed(1)} ms, max ${latencies.at(-1)?.toFixed(1)} ms`,
);

await Promise.all(dispatchers.map((d) => d.stop(2_000)));
receiver.close();
await database.close();
