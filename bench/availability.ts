// Availability at scale (CONTRACT 12, Availability; target: a 60-day window within 50 ms of
// server time for a shop with 5,000 appointments). Seeds one shop with BENCH_APPOINTMENTS
// appointments (default 5,000; PROPOSED, CONFIRMED and some CANCELLED) spread over the next 120
// days, straight into a throwaway PostgreSQL database, gives it capacity 3 and every day open
// 08:00-20:00 in Europe/Berlin (more candidates than a real week), starts the app on it and
// times GET /api/vendor/availability for 60 days over one keep-alive connection on loopback,
// after a warm-up, with the CPU per request of the app and of the database's backends.
//
//   npm run bench:availability        BENCH_APPOINTMENTS=5000 BENCH_REQUESTS=30
import os from "node:os";
import pg from "pg";
import { cpuSecondsOf, cpuSecondsOfTree, type Server, startServer } from "./processes.ts";
import { seedVendors } from "./seed.ts";

const APPOINTMENTS = Number(process.env.BENCH_APPOINTMENTS ?? 5_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 30);
const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const tag = `availability_${process.pid}`;

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
      `insert into customers (id, vendor_id, name, metadata, created_at, updated_at)
       values ('benchcustomer00000000001', $1, 'Bench Bride', '{}', now(), now())`,
      [keys.writeVendorId],
    );
    await db.query(
      `insert into appointments (id, vendor_id, customer_id, type, status, date, duration, metadata, created_at, updated_at)
       select substr(md5('appointment' || g), 1, 24), $1, 'benchcustomer00000000001',
              (array['CONSULTATION','FITTING','PICKUP'])[1 + g % 3],
              (array['PROPOSED','CONFIRMED','CONFIRMED','CANCELLED'])[1 + g % 4],
              date_trunc('hour', now()) + (g % 120) * interval '1 day' + (7 + g % 13) * interval '1 hour'
                + (g % 2) * interval '30 minutes',
              (array[90, 60, 30])[1 + g % 3], '{}', now(), now()
       from generate_series(1, $2::int) g`,
      [keys.writeVendorId, APPOINTMENTS],
    );
    await db.query("analyze appointments");
    console.log(`seeded ${APPOINTMENTS} appointments in ${Math.round(performance.now() - seedStart)} ms`);

    app = await startServer("app", "src/main.ts", {
      ...env,
      LOG_LEVEL: "warn",
      RATE_LIMIT_PER_MINUTE: "1000000",
    });
    const allDay = [{ from: "08:00", to: "20:00" }];
    const settings = await fetch(`${app.url}/api/vendor/booking/settings`, {
      method: "PUT",
      headers: { "x-api-key": keys.writeKey, "content-type": "application/json" },
      body: JSON.stringify({
        timeZone: "Europe/Berlin",
        openingHours: {
          mon: allDay,
          tue: allDay,
          wed: allDay,
          thu: allDay,
          fri: allDay,
          sat: allDay,
          sun: allDay,
        },
        types: { FITTING: { capacity: 3, minNoticeMinutes: 0, maxDaysAhead: 120 } },
      }),
    });
    if (settings.status !== 200) throw new Error(`settings: ${settings.status} ${await settings.text()}`);
    const from = new Date().toISOString().slice(0, 10);
    const to = new Date(Date.now() + 59 * 86_400_000).toISOString().slice(0, 10);
    const path = `${app.url}/api/vendor/availability?type=FITTING&from=${from}&to=${to}`;
    const get = async () => {
      const start = performance.now();
      const res = await fetch(path, { headers: { "x-api-key": keys.writeKey } });
      const body = (await res.json()) as { slots: string[] };
      const ms = performance.now() - start;
      if (res.status !== 200) throw new Error(`availability: ${res.status} ${JSON.stringify(body)}`);
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
    let slots = 0;
    for (let i = 0; i < REQUESTS; i++) {
      const { ms, body } = await get();
      times.push(ms);
      slots = body.slots.length;
    }
    const perRequest = (before: number, after: number) => ((after - before) * 1000) / REQUESTS;
    const appCpu = perRequest(cpuBefore.app, cpuSecondsOfTree(appPid));
    const pgCpu = perRequest(cpuBefore.pg, await backendCpu());
    times.sort((a, b) => a - b);
    const f = (n: number) => n.toFixed(1);
    console.log(
      `GET /api/vendor/availability, 60 days, ${APPOINTMENTS} appointments, ${slots} free slots, ${REQUESTS} requests: ` +
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
