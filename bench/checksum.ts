// The sync checksum at scale (CONTRACT 12, Sync checksum; target: within 200 ms of server time
// for a shop with 100,000 orders). Seeds one shop with BENCH_ORDERS orders (default 100,000)
// spread over the last year, straight into a throwaway PostgreSQL database (the rows' content
// does not matter to the checksum, only ids and stamps; the API would take minutes to make them),
// starts the app on it (`npm start` mode) and times GET /api/vendor/sync/checksum?resource=orders
// over one keep-alive connection on loopback, after a warm-up: what it reports is the server's
// time plus a loopback round trip (~0.2 ms), and, since on a shared host wall time is mostly
// waiting for a core, the CPU per request of the app process and of the database's backends
// (from /proc, as bench/run.ts measures). Also checks the answer counts every order.
//
//   npm run bench:checksum            BENCH_ORDERS=100000 BENCH_REQUESTS=30
import os from "node:os";
import pg from "pg";
import { cpuSecondsOf, cpuSecondsOfTree, type Server, startServer } from "./processes.ts";
import { seedVendors } from "./seed.ts";

const ORDERS = Number(process.env.BENCH_ORDERS ?? 100_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 30);
const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const tag = `checksum_${process.pid}`;

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;

async function main(): Promise<void> {
  const dbName = `vendor_api_bench_${tag}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${pg.escapeIdentifier(dbName)}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${dbName}`;
  const databaseUrl = url.toString();
  let app: Server | undefined;
  const db = new pg.Client({ connectionString: databaseUrl });
  try {
    const env = { DATABASE_URL: databaseUrl };
    // The CLI migrates the new database and makes the shop and its key.
    const keys = await seedVendors(env, tag);
    await db.connect();
    const seedStart = performance.now();
    await db.query(
      `insert into orders (id, vendor_id, number, type, status, tracking_token, created_at, updated_at)
       select substr(md5('order' || g), 1, 24), $1, 1000 + g, 'SUIT', 'ORDERED', md5('token' || g) || md5('more' || g), t, t
       from generate_series(1, $2::int) g,
            lateral (select now() - random() * interval '365 days' + g * interval '0 microseconds' as t) x`,
      [keys.writeVendorId, ORDERS],
    );
    await db.query("analyze orders");
    console.log(`seeded ${ORDERS} orders in ${Math.round(performance.now() - seedStart)} ms`);

    app = await startServer("app", "src/main.ts", {
      ...env,
      LOG_LEVEL: "warn",
      RATE_LIMIT_PER_MINUTE: "1000000",
    });
    const until = new Date(Date.now() + 60_000).toISOString();
    const path = `${app.url}/api/vendor/sync/checksum?resource=orders&until=${until}`;
    const get = async () => {
      const start = performance.now();
      const res = await fetch(path, { headers: { "x-api-key": keys.writeKey } });
      const body = (await res.json()) as { days: Array<{ count: number }> };
      const ms = performance.now() - start;
      if (res.status !== 200) throw new Error(`checksum: ${res.status} ${JSON.stringify(body)}`);
      return { ms, body };
    };
    for (let i = 0; i < 3; i++) await get();
    const backendCpu = async () => {
      const { rows } = await admin.query<{ pid: number }>(
        "select pid from pg_stat_activity where datname = $1 and backend_type = 'client backend'",
        [dbName],
      );
      return rows.reduce((sum, r) => {
        try {
          return sum + cpuSecondsOf(r.pid);
        } catch {
          return sum;
        }
      }, 0);
    };
    const appPid = app.child.pid as number;
    const cpuBefore = { app: cpuSecondsOfTree(appPid), pg: await backendCpu() };
    const times: number[] = [];
    let days = 0;
    let counted = 0;
    for (let i = 0; i < REQUESTS; i++) {
      const { ms, body } = await get();
      times.push(ms);
      days = body.days.length;
      counted = body.days.reduce((sum, d) => sum + d.count, 0);
    }
    const perRequest = (before: number, after: number) => ((after - before) * 1000) / REQUESTS;
    const appCpu = perRequest(cpuBefore.app, cpuSecondsOfTree(appPid));
    const pgCpu = perRequest(cpuBefore.pg, await backendCpu());
    if (counted !== ORDERS) throw new Error(`the checksum counted ${counted} orders of ${ORDERS}`);
    times.sort((a, b) => a - b);
    const f = (n: number) => n.toFixed(1);
    console.log(
      `GET /api/vendor/sync/checksum?resource=orders, ${ORDERS} orders over ${days} days, ${REQUESTS} requests: ` +
        `median ${f(quantile(times, 0.5))} ms, p90 ${f(quantile(times, 0.9))} ms, min ${f(times[0] as number)} ms, max ${f(times.at(-1) as number)} ms; ` +
        `CPU per request: app ${f(appCpu)} ms, PostgreSQL backends ${f(pgCpu)} ms; load average ${os.loadavg()[0]?.toFixed(1)}`,
    );
  } finally {
    await app?.stop();
    await db.end().catch(() => undefined);
    await admin.query(`drop database if exists ${pg.escapeIdentifier(dbName)} with (force)`);
    await admin.end();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
