// `npm run bench`: the app (`npm start`: API and dispatcher in one process) against the one-statement
// node:http baseline (bench/baseline-server.ts) on the same PostgreSQL data, for four endpoints;
// then, unless BENCH_DISPATCHER=0, the dispatcher's CPU share measured apart. See bench/README.md.
// Env: BENCH_DURATION (s, 10), BENCH_WARMUP (s, 3), BENCH_CONNECTIONS (50), BENCH_ROUNDS (2: one pair),
// BENCH_DATABASE_URL (an existing database instead of a throwaway one), BENCH_ENDPOINTS
// (list,create,status,customer), BENCH_APP_LOG_LEVEL (warn), BENCH_BACKEND (pg | pglite: the app
// alone on embedded PGlite), BENCH_API_PROCESSES (N > 0: the app as N `--role api` processes via
// API_PROCESSES plus one `--role worker`, instead of `npm start`), BENCH_DISPATCHER (1),
// BENCH_POOLER (N > 0: the app through a private PgBouncer in transaction mode with N server
// connections, DATABASE_POOL_MODE=transaction; the baseline stays direct), BENCH_BASELINE (1; 0
// measures the app alone). Endpoint `list304`: the order list with If-None-Match naming its
// current ETag (answered 304).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import pg from "pg";
import { type PgBouncer, startPgBouncer } from "../scripts/pgbouncer.ts";
import { cpuSecondsOfTree, freePort, ROOT, rssOfTree, type Server, startServer } from "./processes.ts";
import { type Seeded, seedOrders, seedStatusOrders, seedVendors } from "./seed.ts";

const num = (name: string, fallback: number) => Number(process.env[name] || fallback);
const DURATION = num("BENCH_DURATION", 10);
const WARMUP = num("BENCH_WARMUP", 3);
const CONNECTIONS = num("BENCH_CONNECTIONS", 50);
// Two by default: one round with each server first, the pair a ratio is taken from (README).
const ROUNDS = num("BENCH_ROUNDS", 2);
const APP_LOG_LEVEL = process.env.BENCH_APP_LOG_LEVEL || "warn";
const BACKEND = process.env.BENCH_BACKEND === "pglite" ? "pglite" : "pg";
const API_PROCESSES = num("BENCH_API_PROCESSES", 0);
const DISPATCHER = process.env.BENCH_DISPATCHER !== "0" && BACKEND === "pg" && API_PROCESSES === 0;
const ONLY = (process.env.BENCH_ENDPOINTS || "list,create,status,customer").toLowerCase().split(",");
const POOLER = BACKEND === "pg" ? num("BENCH_POOLER", 0) : 0;
const BASELINE = process.env.BENCH_BASELINE !== "0";
const ADMIN_URL = "postgres://postgres@127.0.0.1:5432/postgres";

interface Measurement {
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  rssMaxMb: number;
  /** CPU milliseconds the server's processes spent per request (user + system). */
  cpuMsPerReq: number;
  /** CPU milliseconds the PostgreSQL backends serving the bench database spent per request. */
  pgCpuMsPerReq: number;
  requests: number;
  non2xx: number;
  errors: number;
  /** PostgreSQL backends connected to the bench database at the end of the run. */
  pgConnections: number;
}

/** One benchmarked endpoint: how to make its requests. */
interface Endpoint {
  id: string;
  name: string;
  /** The status every answer must have (200-299 when unset). */
  status?: number;
  requests(seeded: Seeded): autocannon.Request[];
}

let unique = 0;
const tag = String(process.pid);

// autocannon builds every connection's first request before any is sent, and all connections
// then send the last one built: those first requests carry no e-mail, so they cannot conflict
// (an order then creates a customer without e-mail; a customer create, a customer without one).
let built = 0;
const firstRound = () => built++ < CONNECTIONS;
const resetBuilt = () => {
  built = 0;
};

const ENDPOINTS: Endpoint[] = [
  {
    id: "list",
    name: "GET /api/vendor/orders",
    requests: (s) => [{ method: "GET", path: "/api/vendor/orders", headers: { "x-api-key": s.readKey } }],
  },
  {
    id: "list304",
    name: "GET /api/vendor/orders, If-None-Match current (304)",
    status: 304,
    requests: (s) => [
      {
        method: "GET",
        path: "/api/vendor/orders",
        headers: { "x-api-key": s.readKey, "if-none-match": s.listEtag ?? "" },
      },
    ],
  },
  {
    id: "create",
    name: "POST /api/vendor/orders (new customer)",
    requests: (s) => [
      {
        method: "POST",
        path: "/api/vendor/orders",
        headers: { "x-api-key": s.writeKey, "content-type": "application/json" },
        setupRequest: (req) => {
          const n = ++unique;
          const email = firstRound() ? undefined : `new-${tag}-${n}@example.com`;
          return { ...req, body: JSON.stringify(orderBody(n, email)) };
        },
      },
    ],
  },
  {
    id: "status",
    name: "PUT /api/vendor/orders/{id}/status",
    requests: (s) => [
      {
        method: "PUT",
        headers: { "x-api-key": s.writeKey, "content-type": "application/json" },
        setupRequest: (req) => {
          // FITTING_READY <-> ALTERATIONS: either target is valid from either state (a move to the
          // current status is allowed and only appends history), so no request can fail; each
          // order alternates, so nearly every request is a real move with its event.
          firstRound();
          const id = s.statusOrders[++unique % s.statusOrders.length] as string;
          const to = s.statusOf.get(id) === "FITTING_READY" ? "ALTERATIONS" : "FITTING_READY";
          s.statusOf.set(id, to);
          return {
            ...req,
            path: `/api/vendor/orders/${id}/status`,
            body: JSON.stringify({ status: to, message: "Fitting booked", imageUrl: null }),
          };
        },
      },
    ],
  },
  {
    id: "customer",
    name: "POST /api/vendor/customers",
    requests: (s) => [
      {
        method: "POST",
        path: "/api/vendor/customers",
        headers: { "x-api-key": s.writeKey, "content-type": "application/json" },
        setupRequest: (req) => {
          const n = ++unique;
          const email = firstRound() ? null : `cust-${tag}-${n}@example.com`;
          return { ...req, body: JSON.stringify(customerBody(n, email)) };
        },
      },
    ],
  },
];

export function orderBody(n: number, email: string | undefined) {
  return {
    customerName: `New Customer ${n}`,
    ...(email ? { customerEmail: email } : {}),
    customerPhone: "+49 30 1234567",
    weddingDate: "2027-06-12",
    type: (["BRIDAL_DRESS", "SUIT", "RENTAL"] as const)[n % 3],
    model: `Model ${n % 17}`,
    size: "38",
    color: "ivory",
    description: "Lace bodice, long train, hand-finished hem. ".repeat(2),
    specialRequests: n % 2 ? "Extra buttons" : null,
  };
}

function customerBody(n: number, email: string | null) {
  return {
    name: `Customer ${n}`,
    email,
    phone: "+49 30 7654321",
    weddingDate: "2027-05-01",
    notes: "Prefers Saturday fittings",
    measurements: { bust: 88, waist: 70, hips: 94 },
  };
}

/** PIDs of the PostgreSQL backends connected to the bench database (PostgreSQL on this host). */
async function backendPids(admin: pg.Client | undefined, db: string): Promise<number[]> {
  if (!admin) return [];
  const { rows } = await admin.query<{ pid: number }>(
    // Client backends only: autovacuum works when it decides to, and would charge one server for
    // the rows another wrote (like the WAL writer and checkpointer, it is not counted).
    "select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid() and backend_type = 'client backend'",
    [db],
  );
  return rows.map((r) => r.pid);
}

function cpuOfPids(pids: number[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const pid of pids) {
    try {
      out.set(pid, cpuSecondsOfTree(pid, false));
    } catch {
      // ended
    }
  }
  return out;
}

interface Target {
  url: string;
  /** Processes whose CPU is the server's (the app and its children, or the app and its worker). */
  pids: number[];
}

async function load(
  target: Target,
  endpoint: Endpoint,
  seeded: Seeded,
  seconds: number,
  pgWatch: { admin: pg.Client | undefined; db: string },
): Promise<Measurement> {
  let rssMax = 0;
  const sample = () => {
    rssMax = Math.max(
      rssMax,
      target.pids.reduce((n, pid) => n + rssOfTree(pid), 0),
    );
  };
  sample();
  const sampler = setInterval(sample, 250);
  const cpuBefore = target.pids.reduce((n, pid) => n + cpuSecondsOfTree(pid), 0);
  const pgPids = await backendPids(pgWatch.admin, pgWatch.db);
  const pgBefore = cpuOfPids(pgPids);
  resetBuilt();
  const result = await autocannon({
    url: target.url,
    connections: CONNECTIONS,
    duration: seconds,
    requests: endpoint.requests(seeded),
  });
  const cpu = target.pids.reduce((n, pid) => n + cpuSecondsOfTree(pid), 0) - cpuBefore;
  const pgAfter = cpuOfPids(await backendPids(pgWatch.admin, pgWatch.db));
  let pgCpu = 0;
  for (const [pid, s] of pgAfter) pgCpu += s - (pgBefore.get(pid) ?? 0);
  clearInterval(sampler);
  sample();
  const total = result.requests.total;
  const statuses = result.statusCodeStats as Record<string, { count: number }>;
  const expected = endpoint.status ? (statuses[String(endpoint.status)]?.count ?? 0) : total - result.non2xx;
  return {
    reqPerSec: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    rssMaxMb: rssMax / 2 ** 20,
    cpuMsPerReq: total ? (cpu * 1000) / total : Number.NaN,
    pgCpuMsPerReq: total && pgWatch.admin ? (pgCpu * 1000) / total : Number.NaN,
    requests: total,
    non2xx: total - expected,
    errors: result.errors + result.timeouts,
    pgConnections: pgAfter.size,
  };
}

/** Both servers must answer the same requests with the same JSON and write the same events. */
async function checkSameWork(app: Server, baseline: Server, seeded: Seeded, db: pg.Client): Promise<void> {
  const get = async (s: Server) => {
    const res = await fetch(`${s.url}/api/vendor/orders`, { headers: { "x-api-key": seeded.readKey } });
    return { body: await res.text(), etag: res.headers.get("etag") };
  };
  const [ga, gb] = await Promise.all([get(app), get(baseline)]);
  const a = ga.body;
  if (a !== gb.body) throw new Error("GET /api/vendor/orders: the baseline's body differs from the app's");
  if (!ga.etag || ga.etag !== gb.etag) {
    throw new Error(`GET /api/vendor/orders: ETag ${gb.etag} from the baseline, ${ga.etag} from the app`);
  }
  const list = JSON.parse(a) as { orders: Array<{ updates: unknown[] }> };
  if (list.orders.length !== 100 || list.orders.some((o) => o.updates.length !== 3)) {
    throw new Error("seed data is not 100 orders with 3 history entries each");
  }
  // Ids, instants and order numbers (the second create takes the next) differ between two runs
  // of the same request; everything else must not.
  const strip = (v: unknown): unknown =>
    JSON.parse(JSON.stringify(v), (k, val) =>
      /^(id|customerId|createdAt|updatedAt|email|name|number)$/.test(k) ? typeof val : val,
    );
  // What a write leaves beside its answer: its outbox events, its activity-log entries and its
  // mails, each compared as the app and the baseline wrote them (ids and instants aside).
  const written = {
    events: "select type, data from events where vendor_id = $1 and id <> all($2::text[]) order by type",
    activity:
      "select action, actor_kind, actor_name, detail, (subject_id is not null) as subject from activity where vendor_id = $1 and id <> all($2::text[]) order by action",
    mails:
      "select kind, data, status from mails where vendor_id = $1 and id <> all($2::text[]) order by kind",
  } as const;
  const idsOf = async () => {
    const ids = {} as Record<keyof typeof written, string[]>;
    for (const table of Object.keys(written) as Array<keyof typeof written>) {
      const { rows } = await db.query<{ id: string }>(`select id from ${table} where vendor_id = $1`, [
        seeded.writeVendorId,
      ]);
      ids[table] = rows.map((r) => r.id);
    }
    return ids;
  };
  const call = async (s: Server, method: string, url: string, body: unknown) => {
    const before = await idsOf();
    const res = await fetch(`${s.url}${url}`, {
      method,
      headers: { "x-api-key": seeded.writeKey, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    const rowsOf = async (table: keyof typeof written) =>
      strip((await db.query(written[table], [seeded.writeVendorId, before[table]])).rows);
    return {
      status: res.status,
      location: res.headers.get("location")?.replace(/[a-z0-9]+$/, "<id>"),
      body: strip(JSON.parse(text)),
      keys: Object.keys(JSON.parse(text) as object),
      events: await rowsOf("events"),
      activity: await rowsOf("activity"),
      mails: await rowsOf("mails"),
    };
  };
  const same = async (what: string, f: (s: Server, n: number) => Promise<unknown>) => {
    const pa = JSON.stringify(await f(app, 1));
    const pb = JSON.stringify(await f(baseline, 1));
    if (pa !== pb) throw new Error(`${what} differs:\n app      ${pa}\n baseline ${pb}`);
  };
  await same("POST /api/vendor/orders", (s, n) =>
    call(s, "POST", "/api/vendor/orders", orderBody(n, `check-${s.name}-${tag}@example.com`)),
  );
  const [o1, o2] = seeded.statusOrders;
  await same("PUT /api/vendor/orders/{id}/status", (s) => {
    const id = s === app ? o1 : o2;
    seeded.statusOf.set(id as string, "ALTERATIONS");
    return call(s, "PUT", `/api/vendor/orders/${id}/status`, { status: "ALTERATIONS", message: "m" });
  });
  await same("PUT status, invalid move", async (s) => {
    const id = s === app ? o1 : o2;
    const res = await fetch(`${s.url}/api/vendor/orders/${id}/status`, {
      method: "PUT",
      headers: { "x-api-key": seeded.writeKey, "content-type": "application/json" },
      body: JSON.stringify({ status: "PICKED_UP" }),
    });
    return res.status;
  });
  await same("POST /api/vendor/customers", (s, n) =>
    call(s, "POST", "/api/vendor/customers", customerBody(n, `check-c-${s.name}-${tag}@example.com`)),
  );
  await same("POST /api/vendor/customers, e-mail taken", async (s) => {
    const res = await fetch(`${s.url}/api/vendor/customers`, {
      method: "POST",
      headers: { "x-api-key": seeded.writeKey, "content-type": "application/json" },
      body: JSON.stringify(customerBody(0, `check-c-${s.name}-${tag}@example.com`)),
    });
    return res.status;
  });
  await same("revoked or unknown key", async (s) => {
    const res = await fetch(`${s.url}/api/vendor/orders`, {
      headers: { "x-api-key": `vk_${"x".repeat(43)}` },
    });
    return res.status;
  });
  console.log(
    `check: same GET body (${a.length} bytes) and ETag; same answers, outbox events, activity entries and mails for the create, status and customer requests`,
  );
}

/**
 * One figure from each round's ratio. Rounds alternate which server goes first, and on this
 * shared host the order moved a round's ratio by a third and more (GET, one 9-round run: 0.71-0.95
 * with the baseline first, 0.84-1.55 with the app first), so a round alone is biased by its order.
 * The geometric mean of two consecutive rounds, one of each order, cancels that; the median over
 * such pairs keeps one slow spell of the host from deciding. An odd last round is left out of the
 * pairs (a single round counts alone).
 */
function pairedRatio(ratios: number[]): number {
  if (ratios.length < 2) return ratios[0] ?? Number.NaN;
  const pairs: number[] = [];
  for (let i = 0; i + 1 < ratios.length; i += 2)
    pairs.push(Math.sqrt((ratios[i] as number) * (ratios[i + 1] as number)));
  return median(pairs);
}

function median(values: number[]): number {
  const s = [...values].sort((x, y) => x - y);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

async function startApp(name: string, env: Record<string, string>, role: "all" | "api" | "split") {
  const common = { ...env, LOG_LEVEL: APP_LOG_LEVEL, RATE_LIMIT_PER_MINUTE: "1000000" };
  const quiet = { quiet: APP_LOG_LEVEL !== "warn" };
  if (role === "all") {
    const app = await startServer(name, "src/main.ts", common, quiet);
    return {
      servers: [app],
      target: { url: app.url, pids: [app.child.pid as number] },
      app,
      worker: undefined,
    };
  }
  const processes = API_PROCESSES > 0 ? String(API_PROCESSES) : "1";
  const app = await startServer(name, "src/main.ts", { ...common, API_PROCESSES: processes }, quiet, [
    "--role",
    "api",
  ]);
  const workerPort = await freePort();
  const worker = await startServer(
    `${name}-worker`,
    "src/main.ts",
    { ...common, WORKER_PORT: String(workerPort), PORT: String(await freePort()) },
    { ...quiet, healthPort: workerPort },
    ["--role", "worker"],
  );
  return {
    servers: [app, worker],
    target: { url: app.url, pids: [app.child.pid as number] },
    app,
    worker,
  };
}

async function main(): Promise<void> {
  const dbName = `vendor_api_bench_${tag}`;
  const own = BACKEND === "pg" && !process.env.BENCH_DATABASE_URL;
  const databaseUrl = process.env.BENCH_DATABASE_URL || `postgres://postgres@127.0.0.1:5432/${dbName}`;
  const admin = BACKEND === "pg" ? new pg.Client({ connectionString: ADMIN_URL }) : undefined;
  await admin?.connect();
  if (own) await admin?.query(`create database ${pg.escapeIdentifier(dbName)}`);
  const dataDir = BACKEND === "pglite" ? fs.mkdtempSync(path.join(os.tmpdir(), "vendor-api-bench-")) : "";
  const watchDb = new URL(databaseUrl).pathname.slice(1);
  const pgWatch = { admin, db: watchDb };
  const servers: Server[] = [];
  const loadBefore = os.loadavg();
  let db: pg.Client | undefined;
  let bouncer: PgBouncer | undefined;
  try {
    const env: Record<string, string> =
      BACKEND === "pg" ? { DATABASE_URL: databaseUrl } : { DATA_DIR: dataDir };
    if (POOLER > 0) {
      bouncer = await startPgBouncer({ upstream: databaseUrl, poolSize: POOLER });
      console.log(`PgBouncer (transaction mode, pool ${POOLER}) on port ${bouncer.port}`);
    }
    const appEnv: Record<string, string> = bouncer
      ? {
          DATABASE_URL: bouncer.url(databaseUrl),
          DATABASE_DIRECT_URL: databaseUrl,
          DATABASE_POOL_MODE: "transaction",
        }
      : env;
    const keys = await seedVendors(env, tag);
    const appMode = API_PROCESSES > 0 ? "split" : "all";
    const started = await startApp("app", appEnv, appMode);
    servers.push(...started.servers);
    const seeded = await seedOrders(started.app, keys);
    seeded.listEtag = (
      await fetch(`${started.app.url}/api/vendor/orders`, { headers: { "x-api-key": seeded.readKey } })
    ).headers.get("etag") as string;
    await seedStatusOrders(started.app, seeded, Math.max(2 * CONNECTIONS, 100));
    // Through the pooler, its CPU is the app's (it does the work the app's own pool does direct).
    const appTarget = bouncer
      ? { ...started.target, pids: [...started.target.pids, bouncer.pid] }
      : started.target;
    const targets: Array<[string, Target]> = [[`app (${describeMode(appMode)})`, appTarget]];
    db = BACKEND === "pg" ? new pg.Client({ connectionString: databaseUrl }) : undefined;
    await db?.connect();
    if (BACKEND === "pg" && BASELINE) {
      const baseline = await startServer("baseline", "bench/baseline-server.ts", env);
      servers.push(baseline);
      await checkSameWork(started.app, baseline, seeded, db as pg.Client);
      targets.push([
        "baseline (node:http + pg, one statement)",
        { url: baseline.url, pids: [baseline.child.pid as number] },
      ]);
    }

    const endpoints = ENDPOINTS.filter((e) => ONLY.includes(e.id));
    const runs = new Map<string, Measurement[]>();
    for (let round = 1; round <= ROUNDS; round++) {
      for (const endpoint of endpoints) {
        // Who goes first alternates between rounds, so neither always follows the other's writes.
        const both = round % 2 === 1 ? targets : [...targets].reverse();
        // A 304 is the app's alone (the baseline has no ETags): it is compared with the app's full list.
        const order = endpoint.status === 304 ? both.filter(([n]) => !n.startsWith("baseline")) : both;
        for (const [name, target] of order) {
          if (WARMUP > 0) await load(target, endpoint, seeded, WARMUP, pgWatch);
          // Each measurement starts from a settled database: the rows written so far (the warm-up's
          // too) are vacuumed and analyzed, and the dirty pages written out (checkpoint), now
          // rather than by autovacuum, a backend or the checkpointer in the middle of a run. The
          // analyze also re-plans both servers' prepared statements on statistics that know the
          // tables' size: a plan cached while a table was nearly empty (a scan where an index
          // lookup belongs) made whichever server wrote first slower as its run grew the table.
          await db?.query("vacuum (analyze)");
          await db?.query("checkpoint");
          const m = await load(target, endpoint, seeded, DURATION, pgWatch);
          if (m.non2xx || m.errors)
            throw new Error(`${name} ${endpoint.name}: ${m.non2xx} non-2xx, ${m.errors} errors`);
          const key = `${endpoint.name}|${name}`;
          runs.set(key, [...(runs.get(key) ?? []), m]);
          console.log(
            `round ${round} ${endpoint.name} ${name}: ${m.reqPerSec.toFixed(0)} req/s, CPU ms/req Node ${m.cpuMsPerReq.toFixed(2)} + PostgreSQL ${m.pgCpuMsPerReq.toFixed(2)}, ${m.pgConnections} PostgreSQL connections`,
          );
        }
      }
    }
    for (const s of servers.splice(0)) await s.stop();

    let dispatcher: DispatcherShare | undefined;
    if (DISPATCHER && endpoints.some((e) => e.id === "create")) {
      dispatcher = await measureDispatcherShare(
        env,
        seeded,
        endpoints.find((e) => e.id === "create") as Endpoint,
        pgWatch,
        servers,
      );
    }

    const summary = (key: string): Measurement => {
      const ms = runs.get(key) ?? [];
      const pick = (f: (m: Measurement) => number) => median(ms.map(f));
      return {
        reqPerSec: pick((m) => m.reqPerSec),
        p50Ms: pick((m) => m.p50Ms),
        p99Ms: pick((m) => m.p99Ms),
        rssMaxMb: Math.max(...ms.map((m) => m.rssMaxMb)),
        cpuMsPerReq: pick((m) => m.cpuMsPerReq),
        pgCpuMsPerReq: pick((m) => m.pgCpuMsPerReq),
        requests: ms.reduce((n, m) => n + m.requests, 0),
        non2xx: 0,
        errors: 0,
        pgConnections: Math.max(...ms.map((m) => m.pgConnections)),
      };
    };
    const rows = endpoints.map((endpoint) => {
      const baseline = runs.get(`${endpoint.name}|${targets.find(([n]) => n.startsWith("baseline"))?.[0]}`);
      return {
        endpoint: endpoint.name,
        servers: targets.map(([name]) => {
          const own = runs.get(`${endpoint.name}|${name}`) ?? [];
          return {
            name,
            ...summary(`${endpoint.name}|${name}`),
            // Each round's ratio pairs two measurements taken back to back, so a slow spell of the
            // shared machine (other VMs on the host) weighs on both sides of it alike.
            roundRatios: baseline
              ? own.map((m, i) => m.reqPerSec / (baseline[i]?.reqPerSec ?? Number.NaN))
              : [],
            roundCpuRatios: baseline
              ? own.map((m, i) => {
                  const b = baseline[i];
                  return b
                    ? (b.cpuMsPerReq + b.pgCpuMsPerReq) / (m.cpuMsPerReq + m.pgCpuMsPerReq)
                    : Number.NaN;
                })
              : [],
          };
        }),
      };
    });
    const loadAfter = os.loadavg();
    printTable(rows, loadBefore, loadAfter, dispatcher);
    const results = {
      date: new Date().toISOString(),
      node: process.version,
      backend: BACKEND,
      loadAverage: { before: loadBefore, after: loadAfter },
      settings: {
        durationS: DURATION,
        warmupS: WARMUP,
        connections: CONNECTIONS,
        rounds: ROUNDS,
        appLogLevel: APP_LOG_LEVEL,
        apiProcesses: API_PROCESSES,
        pooler: POOLER,
      },
      rows,
      dispatcher,
      runs: Object.fromEntries(runs),
    };
    const out = path.join(ROOT, `bench/results/latest${BACKEND === "pglite" ? "-pglite" : ""}.json`);
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
    console.log(`\nwritten ${path.relative(process.cwd(), out)}`);
  } finally {
    for (const s of servers) await s.stop();
    await bouncer?.stop();
    await db?.end();
    if (own) await admin?.query(`drop database if exists ${pg.escapeIdentifier(dbName)} with (force)`);
    await admin?.end();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

function describeMode(mode: "all" | "api" | "split"): string {
  if (mode === "all") return "npm start";
  return `${API_PROCESSES || 1} x --role api + 1 x --role worker`;
}

interface DispatcherShare {
  workerCpuS: number;
  apiCpuS: number;
  pgCpuS: number;
  requests: number;
  share: number;
  /** API CPU per request with the dispatcher in another process (compare with npm start's). */
  apiCpuMsPerReq: number;
  reqPerSec: number;
}

/**
 * The dispatcher's CPU share while creates run at full speed, no webhook registered: the app split
 * into `--role api` and `--role worker` (the worker runs the dispatcher and housekeeping, nothing
 * else), creates driven at the API, and the worker's CPU divided by the CPU of both processes
 * plus the PostgreSQL backends of the bench database (the worker's own queries included).
 */
async function measureDispatcherShare(
  env: Record<string, string>,
  seeded: Seeded,
  endpoint: Endpoint,
  pgWatch: { admin: pg.Client | undefined; db: string },
  servers: Server[],
): Promise<DispatcherShare> {
  const started = await startApp("split", env, "split");
  servers.push(...started.servers);
  const worker = started.worker as Server;
  try {
    if (WARMUP > 0) await load(started.target, endpoint, seeded, WARMUP, pgWatch);
    const w0 = cpuSecondsOfTree(worker.child.pid as number);
    const a0 = cpuSecondsOfTree(started.app.child.pid as number);
    const p0 = cpuOfPids(await backendPids(pgWatch.admin, pgWatch.db));
    const m = await load(started.target, endpoint, seeded, DURATION, pgWatch);
    const workerCpuS = cpuSecondsOfTree(worker.child.pid as number) - w0;
    const apiCpuS = cpuSecondsOfTree(started.app.child.pid as number) - a0;
    let pgCpuS = 0;
    for (const [pid, s] of cpuOfPids(await backendPids(pgWatch.admin, pgWatch.db)))
      pgCpuS += s - (p0.get(pid) ?? 0);
    return {
      workerCpuS,
      apiCpuS,
      pgCpuS,
      requests: m.requests,
      share: workerCpuS / (workerCpuS + apiCpuS + pgCpuS),
      apiCpuMsPerReq: (apiCpuS * 1000) / m.requests,
      reqPerSec: m.reqPerSec,
    };
  } finally {
    for (const s of started.servers) await s.stop();
  }
}

type Row = {
  endpoint: string;
  servers: Array<Measurement & { name: string; roundRatios: number[]; roundCpuRatios: number[] }>;
};

function printTable(
  rows: Row[],
  before: number[],
  after: number[],
  dispatcher: DispatcherShare | undefined,
): void {
  const f = (n: number, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : "-");
  console.log(
    `\n${BACKEND}${POOLER ? ` (the app through PgBouncer, transaction mode, pool ${POOLER})` : ""}; ${CONNECTIONS} connections, ${DURATION} s per measurement after ${WARMUP} s warm-up, ${ROUNDS} round(s), median; app LOG_LEVEL=${APP_LOG_LEVEL}; load average ${before.map((l) => l.toFixed(2)).join(" ")} before, ${after.map((l) => l.toFixed(2)).join(" ")} after`,
  );
  console.log(
    "x baseline = req/s / the baseline's req/s in the same round (each round's in brackets), summed up over pairs of rounds:\n" +
      "  the geometric mean of a pair (one round with each server first), then the median over pairs;\n" +
      "x by CPU = the same for the baseline's Node + PostgreSQL CPU per request / the server's; req/s and CPU columns: medians\n",
  );
  console.log(
    "| endpoint | server | req/s | x baseline | x by CPU | p50 ms | p99 ms | RSS MB | Node CPU ms/req | PG CPU ms/req | PG connections |",
  );
  console.log("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of rows) {
    for (const m of r.servers) {
      if (!m.requests) continue; // not measured (the baseline has no 304)
      const each = m.roundRatios.length > 1 ? ` (${m.roundRatios.map((x) => f(x, 2)).join(", ")})` : "";
      const ratio = m.roundRatios.length ? `${f(pairedRatio(m.roundRatios), 2)}${each}` : "-";
      const cpuRatio = m.roundCpuRatios.length ? f(pairedRatio(m.roundCpuRatios), 2) : "-";
      console.log(
        `| ${r.endpoint} | ${m.name} | ${f(m.reqPerSec)} | ${ratio} | ${cpuRatio} | ${f(m.p50Ms)} | ${f(m.p99Ms)} | ${f(m.rssMaxMb)} | ${f(m.cpuMsPerReq, 2)} | ${f(m.pgCpuMsPerReq, 2)} | ${m.pgConnections} |`,
      );
    }
  }
  if (dispatcher) {
    console.log(
      `\ndispatcher CPU share (no webhook; creates at full speed against --role api, dispatcher alone in --role worker): ` +
        `worker ${f(dispatcher.workerCpuS, 2)} s of ${f(dispatcher.workerCpuS + dispatcher.apiCpuS + dispatcher.pgCpuS, 2)} s ` +
        `(worker + api + PostgreSQL backends) = ${f(dispatcher.share * 100, 2)}%; ` +
        `${f(dispatcher.reqPerSec)} creates/s, api ${f(dispatcher.apiCpuMsPerReq, 2)} CPU ms/req`,
    );
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
