// Fairness benchmark (PostgreSQL): vendor A's receiver hangs (never answers; each attempt runs to
// WEBHOOK_TIMEOUT_MS, default 10 s) with BENCH_QUEUED (1000) deliveries queued; vendor B writes
// BENCH_RATE (50) events/s for BENCH_SECONDS (10) to a prompt receiver. Prints B's
// commit->receipt p50/p99/max and how many attempts A's receiver saw (cap and breaker at work).
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/<scratch db> npm run bench:fairness
import http from "node:http";
import type { AddressInfo } from "node:net";
import { allScopes } from "../src/auth/scopes.ts";
import { loadConfig } from "../src/config.ts";
import { openDatabase } from "../src/db/client.ts";
import { runMigrations } from "../src/db/migrate.ts";
import { createVendor } from "../src/modules/use-cases/vendor-accounts.service.ts";
import { registerWebhook } from "../src/modules/webhooks/webhooks.service.ts";
import { enqueueEvent } from "../src/outbox/enqueue.ts";
import { startDispatcher } from "../src/webhook-delivery/dispatcher.ts";
import { systemResolver } from "../src/webhook-delivery/url-guard.ts";

const env = process.env;
const url = env.BENCH_DATABASE_URL;
if (!url) {
  console.error("Set BENCH_DATABASE_URL (a scratch PostgreSQL database the benchmark may write to)");
  process.exit(1);
}
const QUEUED = Number(env.BENCH_QUEUED ?? 1000);
const RATE = Number(env.BENCH_RATE ?? 50);
const SECONDS = Number(env.BENCH_SECONDS ?? 10);
const config = loadConfig({
  NODE_ENV: "production",
  SESSION_SECRET: "x".repeat(32),
  WEBHOOK_ALLOW_PRIVATE_URLS: "true",
  LOG_LEVEL: "silent",
  DATABASE_URL: url,
  WEBHOOK_TIMEOUT_MS: env.WEBHOOK_TIMEOUT_MS ?? "10000",
});
const database = await openDatabase({ kind: "pg", url }, { poolSize: 20 });
await runMigrations(database);
const ctx = { db: database.db, now: () => new Date() };

async function listen(handler: http.RequestListener): Promise<{ server: http.Server; url: string }> {
  const server = http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` };
}
let hungAttempts = 0;
const hung = await listen(() => {
  hungAttempts++; // never answers
});
const arrivedAt = new Map<string, number>();
const prompt = await listen((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    arrivedAt.set(JSON.parse(Buffer.concat(chunks).toString("utf8")).id, performance.now());
    res.writeHead(204).end();
  });
});

const policy = { scopes: new Set(allScopes) };
const urlPolicy = { allowPrivate: true, httpsOnly: false, resolver: systemResolver };
const stamp = Date.now();
const a = await createVendor(ctx, {
  name: "Hung",
  email: `hung-${stamp}@example.test`,
  password: "bench-password-1",
});
const b = await createVendor(ctx, {
  name: "Prompt",
  email: `prompt-${stamp}@example.test`,
  password: "bench-password-1",
});
await registerWebhook(ctx, a.id, { url: hung.url, events: ["order.created"] }, policy, urlPolicy);
await registerWebhook(ctx, b.id, { url: prompt.url, events: ["order.created"] }, policy, urlPolicy);
const emit = (vendorId: string) =>
  database.db.transaction((tx) =>
    enqueueEvent(tx, {
      vendorId,
      type: "order.created",
      data: { id: "bench" } as never,
      createdAt: new Date(),
    }),
  );
for (let i = 0; i < QUEUED; i += 100) await Promise.all(Array.from({ length: 100 }, () => emit(a.id)));

const dispatchers = await Promise.all([1, 2].map(() => startDispatcher({ config, database })));
const committedAt = new Map<string, number>();
const start = performance.now();
for (let i = 0; i < RATE * SECONDS; i++) {
  const wait = start + (i * 1000) / RATE - performance.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  const id = await emit(b.id);
  committedAt.set(id, performance.now());
}
await new Promise((r) => setTimeout(r, 1500));
const lat = [...committedAt].map(([id, c]) => (arrivedAt.get(id) ?? Infinity) - c).sort((x, y) => x - y);
const pct = (p: number) => lat[Math.min(lat.length - 1, Math.floor((p / 100) * lat.length))] ?? NaN;
console.log(
  `fairness: A hung with ${QUEUED} queued (timeout ${config.webhookTimeoutMs} ms), B at ${RATE} events/s for ${SECONDS} s, 2 dispatchers: ` +
    `B commit->receipt p50 ${pct(50).toFixed(1)} ms, p99 ${pct(99).toFixed(1)} ms, max ${(lat.at(-1) ?? NaN).toFixed(1)} ms, ` +
    `${lat.filter((x) => x === Infinity).length} of ${lat.length} not arrived; A's receiver saw ${hungAttempts} attempts`,
);
await Promise.all(dispatchers.map((d) => d.stop(0)));
hung.server.closeAllConnections();
prompt.server.closeAllConnections();
hung.server.close();
prompt.server.close();
await database.close();
process.exit(0);
