// `npm run bench`: the app against a framework-free baseline (bench/baseline-server.ts) on the
// same PostgreSQL data, for GET and POST /api/vendor/orders. See bench/README.md.
// Env: BENCH_DURATION (s, 10), BENCH_WARMUP (s, 3), BENCH_CONNECTIONS (50), BENCH_ROUNDS (1),
// BENCH_DATABASE_URL (an existing database to use instead of a throwaway one), BENCH_ENDPOINTS
// (get,post), BENCH_APP_LOG_LEVEL (warn; "info" measures the production default's request logs).
import fs from "node:fs";
import path from "node:path";
import autocannon from "autocannon";
import pg from "pg";
import { cpuSecondsOf, ROOT, rssOf, type Server, startServer } from "./processes.ts";
import { type Seeded, seedOrders, seedVendors } from "./seed.ts";

const num = (name: string, fallback: number) => Number(process.env[name] || fallback);
const DURATION = num("BENCH_DURATION", 10);
const WARMUP = num("BENCH_WARMUP", 3);
const CONNECTIONS = num("BENCH_CONNECTIONS", 50);
const ROUNDS = num("BENCH_ROUNDS", 1);
const APP_LOG_LEVEL = process.env.BENCH_APP_LOG_LEVEL || "warn";
const ONLY = (process.env.BENCH_ENDPOINTS || "get,post").toLowerCase().split(",");
const ADMIN_URL = "postgres://postgres@127.0.0.1:5432/postgres";

type Endpoint = "GET /api/vendor/orders" | "POST /api/vendor/orders";
interface Measurement {
  reqPerSec: number;
  p99Ms: number;
  rssMaxMb: number;
  /** CPU milliseconds the server spent per request (user + system). */
  cpuMsPerReq: number;
  requests: number;
  non2xx: number;
  errors: number;
}

async function load(
  server: Server,
  endpoint: Endpoint,
  seeded: Seeded,
  seconds: number,
): Promise<Measurement> {
  const pid = server.child.pid as number;
  const post = endpoint.startsWith("POST");
  let rssMax = rssOf(pid);
  const sampler = setInterval(() => {
    rssMax = Math.max(rssMax, rssOf(pid));
  }, 250);
  const cpuBefore = cpuSecondsOf(pid);
  const result = await autocannon({
    url: `${server.url}/api/vendor/orders`,
    connections: CONNECTIONS,
    duration: seconds,
    method: post ? "POST" : "GET",
    headers: post
      ? { "x-api-key": seeded.writeKey, "content-type": "application/json" }
      : { "x-api-key": seeded.readKey },
    ...(post ? { body: seeded.postBody } : {}),
  });
  const cpu = cpuSecondsOf(pid) - cpuBefore;
  clearInterval(sampler);
  rssMax = Math.max(rssMax, rssOf(pid));
  return {
    reqPerSec: result.requests.average,
    p99Ms: result.latency.p99,
    rssMaxMb: rssMax / 2 ** 20,
    cpuMsPerReq: result.requests.total ? (cpu * 1000) / result.requests.total : Number.NaN,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

/** The app and the baseline must answer the same requests with the same JSON, or the race is unfair. */
async function checkSameAnswers(app: Server, baseline: Server, seeded: Seeded): Promise<void> {
  const get = (s: Server) =>
    fetch(`${s.url}/api/vendor/orders`, { headers: { "x-api-key": seeded.readKey } }).then((r) => r.text());
  const [a, b] = await Promise.all([get(app), get(baseline)]);
  if (a !== b) throw new Error("GET /api/vendor/orders: the baseline's body differs from the app's");
  const list = JSON.parse(a) as { orders: Array<{ updates: unknown[] }> };
  if (list.orders.length !== 100 || list.orders.some((o) => o.updates.length !== 3)) {
    throw new Error("seed data is not 100 orders with 3 history entries each");
  }
  const post = (s: Server) =>
    fetch(`${s.url}/api/vendor/orders`, {
      method: "POST",
      headers: { "x-api-key": seeded.writeKey, "content-type": "application/json" },
      body: seeded.postBody,
    }).then(async (r) => ({ status: r.status, body: JSON.parse(await r.text()) as Record<string, unknown> }));
  const [pa, pb] = [await post(app), await post(baseline)];
  const shape = (o: { status: number; body: Record<string, unknown> }) => {
    const { id: _i, createdAt: _c, updatedAt: _u, updates: _h, ...rest } = o.body;
    return JSON.stringify({ status: o.status, keys: Object.keys(o.body), rest });
  };
  if (shape(pa) !== shape(pb)) throw new Error(`POST differs: app ${shape(pa)} vs baseline ${shape(pb)}`);
  console.log(`check: same GET body (${a.length} bytes) and same POST answer from both servers`);
}

function median(values: number[]): number {
  const s = [...values].sort((x, y) => x - y);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

async function main(): Promise<void> {
  const tag = String(process.pid);
  const dbName = `vendor_api_bench_${tag}`;
  const own = !process.env.BENCH_DATABASE_URL;
  const databaseUrl = process.env.BENCH_DATABASE_URL || `postgres://postgres@127.0.0.1:5432/${dbName}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  if (own) {
    await admin.connect();
    await admin.query(`create database ${pg.escapeIdentifier(dbName)}`);
  }
  const servers: Server[] = [];
  try {
    const env = { DATABASE_URL: databaseUrl };
    const keys = await seedVendors(env, tag);
    const app = await startServer(
      "app",
      "src/main.ts",
      {
        ...env,
        LOG_LEVEL: APP_LOG_LEVEL,
        RATE_LIMIT_PER_MINUTE: "1000000",
      },
      { quiet: APP_LOG_LEVEL !== "warn" },
    );
    servers.push(app);
    const seeded = await seedOrders(app, keys);
    const baseline = await startServer("baseline", "bench/baseline-server.ts", env);
    servers.push(baseline);
    await checkSameAnswers(app, baseline, seeded);

    const endpoints = (["GET /api/vendor/orders", "POST /api/vendor/orders"] as const).filter((e) =>
      ONLY.includes(e.split(" ")[0]?.toLowerCase() ?? ""),
    );
    const runs = new Map<string, Measurement[]>();
    for (let round = 1; round <= ROUNDS; round++) {
      for (const endpoint of endpoints) {
        for (const server of [app, baseline]) {
          if (WARMUP > 0) await load(server, endpoint, seeded, WARMUP);
          const m = await load(server, endpoint, seeded, DURATION);
          if (m.non2xx || m.errors)
            throw new Error(`${server.name} ${endpoint}: ${m.non2xx} non-2xx, ${m.errors} errors`);
          const key = `${endpoint}|${server.name}`;
          runs.set(key, [...(runs.get(key) ?? []), m]);
          console.log(`round ${round} ${endpoint} ${server.name}: ${m.reqPerSec.toFixed(0)} req/s`);
        }
      }
    }

    const summary = (key: string): Measurement => {
      const ms = runs.get(key) ?? [];
      const pick = (f: (m: Measurement) => number) => median(ms.map(f));
      return {
        reqPerSec: pick((m) => m.reqPerSec),
        p99Ms: pick((m) => m.p99Ms),
        rssMaxMb: Math.max(...ms.map((m) => m.rssMaxMb)),
        cpuMsPerReq: pick((m) => m.cpuMsPerReq),
        requests: ms.reduce((n, m) => n + m.requests, 0),
        non2xx: 0,
        errors: 0,
      };
    };
    const rows = endpoints.map((endpoint) => {
      const a = summary(`${endpoint}|app`);
      const b = summary(`${endpoint}|baseline`);
      return {
        endpoint,
        app: a,
        baseline: b,
        ratio: a.reqPerSec / b.reqPerSec,
        cpuRatio: b.cpuMsPerReq / a.cpuMsPerReq,
      };
    });
    printTable(rows);
    const results = {
      date: new Date().toISOString(),
      node: process.version,
      settings: {
        durationS: DURATION,
        warmupS: WARMUP,
        connections: CONNECTIONS,
        rounds: ROUNDS,
        appLogLevel: APP_LOG_LEVEL,
      },
      rows,
      runs: Object.fromEntries(runs),
    };
    const out = path.join(ROOT, "bench/results/latest.json");
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
    console.log(`\nwritten ${path.relative(process.cwd(), out)}`);
  } finally {
    for (const s of servers) await s.stop();
    if (own) {
      await admin.query(`drop database if exists ${pg.escapeIdentifier(dbName)} with (force)`);
      await admin.end();
    }
  }
}

type Row = { endpoint: string; app: Measurement; baseline: Measurement; ratio: number; cpuRatio: number };

function printTable(rows: Row[]): void {
  const f = (n: number, d = 0) => n.toFixed(d);
  console.log(
    `\n${CONNECTIONS} connections, ${DURATION} s per measurement after ${WARMUP} s warm-up, ${ROUNDS} round(s), median; app LOG_LEVEL=${APP_LOG_LEVEL}`,
  );
  // req/s is shared-machine sensitive; CPU per request is the server's own cost, so its ratio
  // (baseline CPU / app CPU) is the steadier comparison when other work competes for the cores.
  console.log(
    "app/baseline = app req/s / baseline req/s; cpu ratio = baseline CPU per request / app CPU per request\n",
  );
  console.log("| endpoint | server | req/s | p99 ms | RSS max MB | CPU ms/req | app/baseline | cpu ratio |");
  console.log("|---|---|---:|---:|---:|---:|---:|---:|");
  for (const r of rows) {
    for (const [name, m] of [
      ["app", r.app],
      ["baseline", r.baseline],
    ] as const) {
      const ratio = name === "app" ? `${f(r.ratio, 2)} | ${f(r.cpuRatio, 2)}` : " | ";
      console.log(
        `| ${r.endpoint} | ${name} | ${f(m.reqPerSec)} | ${f(m.p99Ms)} | ${f(m.rssMaxMb)} | ${f(m.cpuMsPerReq, 2)} | ${ratio} |`,
      );
    }
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
