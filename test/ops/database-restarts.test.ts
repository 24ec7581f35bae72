// PostgreSQL restarted again and again under keyed writers. Before the
// fix every BEGIN that failed during a restart leaked a pooled connection: after 15 restarts under
// 40 writers the whole pool had leaked, the API answered 503 for minutes with PostgreSQL up, and
// SIGTERM ended in "drain timed out" (exit 1); restarts also answered 500 ("Client has
// encountered a connection error and is not queryable"). Here a private cluster is restarted ten
// times (fast and immediate shutdowns in turn) under 16 writers against a pool of 3 connections;
// then a write answers 2xx within seconds, nothing answered 500, every 503 was problem+json
// with Retry-After, the log has one short line per 503 and one unreachable/back pair per
// outage, and SIGTERM drains to exit 0. Only the cluster this test started is ever stopped.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "../helpers/api-client.ts";
import { freePort } from "../helpers/ports.ts";
import {
  hasPrivatePostgres,
  type PrivatePostgres,
  privatePostgresMissing,
  startPrivatePostgres,
} from "../helpers/private-postgres.ts";
import { childEnv, type ServerProcess, startService, vendorWithKeyByCli } from "../helpers/processes.ts";

const RESTARTS = 10;
const WRITERS = 16;
/** How long after PostgreSQL accepts connections again a write must succeed. */
const RECOVERY_LIMIT_MS = 5_000;

let cluster: PrivatePostgres | undefined;
let service: ServerProcess | undefined;

beforeAll(async () => {
  if (hasPrivatePostgres) cluster = await startPrivatePostgres("restarts-pg");
}, 120_000);

afterAll(async () => {
  if (service && service.child.exitCode === null) service.child.kill("SIGKILL");
  await service?.exited;
  await cluster?.destroy();
}, 60_000);

describe.skipIf(!hasPrivatePostgres)("PostgreSQL restarted under load (private cluster)", () => {
  if (!hasPrivatePostgres) console.warn(privatePostgresMissing);

  it(`${RESTARTS} restarts under ${WRITERS} keyed writers: no leak, no 500, 2xx within seconds, SIGTERM exits 0`, async () => {
    const pg = cluster as PrivatePostgres;
    const port = await freePort();
    const env = childEnv({
      DATABASE_URL: pg.url,
      PORT: String(port),
      HOST: "127.0.0.1",
      DATABASE_POOL_SIZE: "3",
      DB_CONNECT_TIMEOUT_MS: "1000",
      LOG_LEVEL: "warn",
      SHUTDOWN_GRACE_MS: "5000",
      // The writers share one key; on a quiet host they pass the default 600 a minute, and a 429
      // is not what this test is about.
      RATE_LIMIT_PER_MINUTE: "1000000",
    });
    const { key } = await vendorWithKeyByCli(env, "Restarts");
    const api = apiClient(`http://127.0.0.1:${port}`);
    service = await startService(env);

    const statuses = new Map<number, number>();
    const badAnswers: string[] = [];
    let lastSuccessAt = 0;
    let writing = true;
    let n = 0;
    const writer = async (w: number) => {
      while (writing) {
        const res = await api
          .post(
            "/api/vendor/orders",
            { customerName: `Writer ${w}`, type: "SUIT" },
            { key, headers: { "idempotency-key": `restart-${w}-${n++}` } },
          )
          .catch((err) => ({ status: 0, headers: new Headers(), body: { error: String(err) } }));
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status === 201) lastSuccessAt = performance.now();
        else if (res.status === 503) {
          const problem = res.headers.get("content-type")?.startsWith("application/problem+json");
          if (
            !problem ||
            !/^\d+$/.test(res.headers.get("retry-after") ?? "") ||
            res.body?.code !== "unavailable"
          ) {
            badAnswers.push(JSON.stringify({ status: res.status, body: res.body }));
          }
          // A client honouring Retry-After would wait; this one only yields, to keep the load up.
          await new Promise((r) => setTimeout(r, 20));
        } else badAnswers.push(JSON.stringify({ status: res.status, body: res.body }));
      }
    };
    const writers = Array.from({ length: WRITERS }, (_, w) => writer(w));

    const recoveries: number[] = [];
    try {
      for (let round = 0; round < RESTARTS; round++) {
        await pg.stop(round % 2 === 0 ? "fast" : "immediate");
        await pg.start();
        const upAt = performance.now();
        // Writers succeed again: the first 201 after PostgreSQL accepts connections.
        while (lastSuccessAt < upAt && performance.now() - upAt < 30_000) {
          await new Promise((r) => setTimeout(r, 10));
        }
        recoveries.push(Math.round(lastSuccessAt - upAt));
      }
    } finally {
      writing = false;
      await Promise.all(writers);
    }
    console.log(
      `${RESTARTS} restarts under ${WRITERS} writers: statuses ${JSON.stringify(Object.fromEntries(statuses))}, ` +
        `PostgreSQL up → first 201 (ms): ${JSON.stringify(recoveries)}`,
    );
    expect(badAnswers.slice(0, 5)).toEqual([]);
    for (const ms of recoveries) expect(ms).toBeLessThan(RECOVERY_LIMIT_MS);

    // After the last restart the pool is whole: a burst of writes, more than the pool holds at
    // once, all succeed within seconds (with the leak: 503 "timeout exceeded when trying to connect").
    const started = performance.now();
    const burst = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        api.post("/api/vendor/orders", { customerName: `After ${i}`, type: "SUIT" }, { key }),
      ),
    );
    expect(burst.map((r) => r.status)).toEqual(burst.map(() => 201));
    expect(performance.now() - started).toBeLessThan(RECOVERY_LIMIT_MS);
    expect((await api.get("/ready")).status).toBe(200);

    // Operators' view: one short line per refused request, no stack and no SQL; an outage begins
    // with one "database unreachable" and ends with one "database back".
    const lines = service
      .output()
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const refusals = lines.filter((l) => l.msg === "503: database unavailable");
    expect(refusals.length).toBe(statuses.get(503) ?? 0);
    for (const l of refusals) {
      expect(JSON.stringify(l).length).toBeLessThan(400);
      expect(JSON.stringify(l)).not.toMatch(/stack|insert into|select |\\n\s+at /);
    }
    const unreachable = lines.filter((l) => l.msg === "database unreachable").length;
    const back = lines.filter((l) => l.msg === "database back").length;
    expect(unreachable).toBeGreaterThan(0);
    // One pair per restart, or two: a pooled connection to the old server fails when next used,
    // which can come just after a new connection to the new one said "back" (seen at load 8: 12
    // pairs for 10 restarts). Never one line per refused request.
    expect(unreachable).toBeLessThanOrEqual(2 * RESTARTS);
    expect(back).toBe(unreachable);
    // No request logged an error (a stack): the dispatcher's and the mail sender's own loops, which
    // log their failed ticks, are not requests (lines without reqId).
    expect(lines.filter((l) => l.reqId !== undefined && Number(l.level) >= 50)).toEqual([]);

    service.child.kill("SIGTERM");
    expect(await service.exited).toBe(0);
  }, 240_000);
});
