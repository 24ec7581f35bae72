// A frozen database does not hang requests (CONTRACT 9). The test starts a PostgreSQL cluster of
// its own (initdb + pg_ctl on a random port in a temp dir), runs the service on it, and stops the
// cluster's processes with SIGSTOP, as a partition or a stalled disk would: every API answer
// comes within 10 s, as 503 `unavailable` with Retry-After. After SIGCONT the same process serves
// again, without a restart. Only the cluster this test started is ever stopped.
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "../helpers/api-client.ts";
import { childEnv, type ServerProcess, startService, vendorWithKeyByCli } from "../helpers/processes.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { freePort } from "../helpers/test-app.ts";
import { sleep } from "../helpers/webhook-receiver.ts";

const BIN = "/usr/lib/postgresql/15/bin";
const hasPostgres = fs.existsSync(`${BIN}/initdb`);
const run = promisify(execFile);
// PostgreSQL refuses to run as root: then the cluster runs as the postgres user.
const asOwner = (cmd: string, args: string[]) =>
  process.getuid?.() === 0 ? run("runuser", ["-u", "postgres", "--", cmd, ...args]) : run(cmd, args);

let dir = "";
let pgPort = 0;
let service: ServerProcess | undefined;

/** The postmaster of our cluster and its children: the processes to freeze. */
function clusterPids(): number[] {
  const postmaster = Number(fs.readFileSync(path.join(dir, "data", "postmaster.pid"), "utf8").split("\n")[0]);
  const children = fs
    .readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        const stat = fs.readFileSync(`/proc/${p}/stat`, "utf8");
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === postmaster;
      } catch {
        return false;
      }
    })
    .map(Number);
  return [postmaster, ...children];
}
const signalCluster = (signal: NodeJS.Signals) => {
  for (const pid of clusterPids()) {
    try {
      process.kill(pid, signal);
    } catch {}
  }
};

beforeAll(async () => {
  if (!hasPostgres) return;
  dir = tempDir("frozen-pg");
  if (process.getuid?.() === 0) await run("chown", ["-R", "postgres", dir]);
  pgPort = await freePort();
  const data = path.join(dir, "data");
  await asOwner(`${BIN}/initdb`, ["-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"]);
  await asOwner(`${BIN}/pg_ctl`, [
    "-D",
    data,
    "-l",
    path.join(dir, "log"),
    "-w",
    "-o",
    `-p ${pgPort} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
    "start",
  ]);
}, 120_000);

afterAll(async () => {
  if (!dir) return;
  if (service && service.child.exitCode === null) service.child.kill("SIGKILL");
  await service?.exited;
  signalCluster("SIGCONT");
  await asOwner(`${BIN}/pg_ctl`, ["-D", path.join(dir, "data"), "-m", "immediate", "stop"]).catch(() => {});
  fs.rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe.skipIf(!hasPostgres)("a frozen PostgreSQL (private cluster, SIGSTOP)", () => {
  if (!hasPostgres) console.warn(`skipped: ${BIN}/initdb is missing, so no private cluster can be started`);

  it("every API answer comes within 10 s as 503 with Retry-After; after SIGCONT the service recovers", async () => {
    const port = await freePort();
    const env = childEnv({
      DATABASE_URL: `postgres://postgres@127.0.0.1:${pgPort}/postgres`,
      PORT: String(port),
      HOST: "127.0.0.1",
    });
    const { key } = await vendorWithKeyByCli(env, "Frozen");
    const api = apiClient(`http://127.0.0.1:${port}`);
    service = await startService(env);
    const order = { customerName: "Frozen", type: "SUIT" };
    expect((await api.get("/ready")).status).toBe(200);
    expect((await api.post("/api/vendor/orders", order, { key })).status).toBe(201);

    signalCluster("SIGSTOP");
    try {
      // Twice: first with pooled connections that hang, then once those were dropped.
      for (let round = 0; round < 2; round++) {
        const calls = [
          () => api.get("/ready"),
          () => api.get("/api/vendor/orders", { key }),
          () => api.get("/api/vendor/customers", { key }),
          () => api.post("/api/vendor/orders", order, { key }),
          () =>
            api.post("/api/vendor/orders", order, { key, headers: { "idempotency-key": `frozen-${round}` } }),
          () => api.get("/api/vendor/events", { key }),
        ];
        const answers = await Promise.all(
          calls.map(async (call) => {
            const started = Date.now();
            const res = await call().catch((err) => {
              throw new Error(`${err}: ${service?.output()}`);
            });
            return {
              ms: Date.now() - started,
              status: res.status,
              code: res.body?.code,
              retryAfter: res.headers.get("retry-after"),
            };
          }),
        );
        console.log(`frozen database, round ${round + 1}: ${JSON.stringify(answers)}`);
        for (const a of answers) {
          expect(a.ms).toBeLessThan(10_000);
          expect(a).toMatchObject({
            status: 503,
            code: "unavailable",
            retryAfter: expect.stringMatching(/^\d+$/),
          });
        }
      }
      // The process itself stays alive and says so.
      if (service.child.exitCode !== null) console.log(service.output());
      expect((await api.get("/health")).status).toBe(200);
    } finally {
      signalCluster("SIGCONT");
    }

    // The same process (no restart) serves again once the database answers.
    const until = Date.now() + 30_000;
    let created = 0;
    while (Date.now() < until) {
      const res = await api.post("/api/vendor/orders", order, { key });
      if (res.status === 201) {
        created = res.status;
        break;
      }
      await sleep(250);
    }
    expect(created).toBe(201);
    expect((await api.get("/ready")).status).toBe(200);
    expect(service.child.exitCode).toBeNull();
    service.child.kill("SIGTERM");
    expect(await service.exited).toBe(0);
  }, 180_000);
});
