// Processes on one host, on a PostgreSQL cluster of the test's own (stopped for
// the start-up case): a second `--role worker` starts with the defaults (WORKER_PORT 3001 taken:
// its probes move to a free port); API_PROCESSES=2 starts next to a worker holding WORKER_PORT
// (forked API processes no longer check it); an API process killed is replaced while the other
// serves; a database refusing connections at start is waited for, with one line per retry, and
// given up on after DATABASE_START_TIMEOUT_SECONDS with exit 1. Only processes and the cluster
// this file started are ever signalled.
import fs from "node:fs";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "../helpers/api-client.ts";
import { freePort } from "../helpers/ports.ts";
import {
  hasPrivatePostgres,
  type PrivatePostgres,
  privatePostgresMissing,
  startPrivatePostgres,
} from "../helpers/private-postgres.ts";
import {
  childEnv,
  outputMatching,
  type ServerProcess,
  startServer,
  waitForHealth,
} from "../helpers/processes.ts";
import { eventually } from "../helpers/webhook-receiver.ts";

let cluster: PrivatePostgres | undefined;
const started: ServerProcess[] = [];
const track = (s: ServerProcess) => {
  started.push(s);
  return s;
};

beforeAll(async () => {
  if (hasPrivatePostgres) cluster = await startPrivatePostgres("supervision-pg");
}, 120_000);

afterAll(async () => {
  for (const s of started) if (s.child.exitCode === null) s.child.kill("SIGKILL");
  await Promise.all(started.map((s) => s.exited));
  await cluster?.destroy();
}, 60_000);

/** The env of a process on the private cluster, with WORKER_PORT as the operator left it. */
function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const e = childEnv({ DATABASE_URL: (cluster as PrivatePostgres).url, LOG_LEVEL: "info", ...extra });
  if (!("WORKER_PORT" in extra)) delete e.WORKER_PORT; // childEnv's 0 would hide the default
  return e;
}

/** The JSON log line `msg` of a process, once written. */
async function logLine(server: ServerProcess, msg: string): Promise<Record<string, unknown>> {
  return eventually(async () => {
    if (server.child.exitCode !== null) throw new Error(`exited early:\n${server.output()}`);
    const line = server
      .output()
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.msg === msg);
    return line;
  }, 60_000);
}

/** The pids of the processes `parent` forked (node:cluster's API processes). */
function childPids(parent: number): number[] {
  return fs
    .readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        const stat = fs.readFileSync(`/proc/${p}/stat`, "utf8");
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === parent;
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe.skipIf(!hasPrivatePostgres)("processes side by side on one host (private cluster)", () => {
  if (!hasPrivatePostgres) console.warn(privatePostgresMissing);

  it("a second --role worker with the defaults starts, its probes on another port", async () => {
    // Whoever holds 3001 (a first worker, or anything else on this machine), the second worker
    // starts: hold it here, so the test does not depend on what else runs.
    const holder = net.createServer();
    const held = await new Promise<boolean>((resolve) => {
      holder.once("error", () => resolve(false));
      holder.listen({ port: 3001, host: "127.0.0.1" }, () => resolve(true));
    });
    try {
      const worker = track(startServer(["--role", "worker"], env(), await freePort()));
      const startedLine = await logLine(worker, "vendor-api started");
      const port = Number(startedLine.probesPort);
      expect(port).not.toBe(3001);
      expect(port).toBeGreaterThan(0);
      expect(worker.output()).toMatch(/WORKER_PORT 3001 \(the default\) taken/);
      expect((await fetch(`http://127.0.0.1:${port}/ready`)).status).toBe(200);
      worker.child.kill("SIGTERM");
      expect(await worker.exited).toBe(0);
    } finally {
      if (held) holder.close();
    }
  }, 120_000);

  it("WORKER_PORT set and taken is still an operator's error: one line, exit 1", async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen({ port: 0, host: "127.0.0.1" }, () => resolve()));
    const port = (holder.address() as net.AddressInfo).port;
    try {
      const worker = track(
        startServer(["--role", "worker"], env({ WORKER_PORT: String(port) }), await freePort()),
      );
      expect(await worker.exited).toBe(1);
      expect(worker.output()).toMatch(new RegExp(`Port ${port} .*WORKER_PORT`));
    } finally {
      holder.close();
    }
  }, 60_000);

  it("API_PROCESSES=2 starts next to a worker holding WORKER_PORT; a killed API process is replaced while the other serves", async () => {
    const workerPort = await freePort();
    const worker = track(
      startServer(["--role", "worker"], env({ WORKER_PORT: String(workerPort) }), await freePort()),
    );
    await logLine(worker, "vendor-api started");

    const apiPort = await freePort();
    const api = track(
      startServer(["--role", "api"], env({ API_PROCESSES: "2", WORKER_PORT: String(workerPort) }), apiPort),
    );
    await waitForHealth(api, 90_000);
    const client = apiClient(api.url);
    await eventually(async () => childPids(api.child.pid as number).length === 2, 60_000);
    const [victim] = childPids(api.child.pid as number);
    process.kill(victim as number, "SIGKILL");

    // The other keeps serving while the replacement starts; then there are two again. (A
    // connection node:cluster had just handed to the killed process dies with it: each probe is
    // bounded, and only the survivor's answers are counted.)
    const statuses: number[] = [];
    await eventually(async () => {
      const status = await fetch(`${api.url}/health`, { signal: AbortSignal.timeout(2_000) }).then(
        (r) => r.status,
        () => 0,
      );
      statuses.push(status);
      const pids = childPids(api.child.pid as number);
      return statuses.includes(200) && pids.length === 2 && !pids.includes(victim as number);
    }, 60_000);
    expect(statuses.filter((s) => s !== 200 && s !== 0)).toEqual([]);
    expect((await client.get("/health")).status).toBe(200);
    await outputMatching(api, /an API process exited \(SIGKILL\); starting another in \d/);
    expect(api.child.exitCode).toBeNull();
    expect((await client.get("/ready")).status).toBe(200);

    api.child.kill("SIGTERM");
    worker.child.kill("SIGTERM");
    expect(await api.exited).toBe(0);
    expect(await worker.exited).toBe(0);
  }, 180_000);

  it("a database refusing connections at start is retried with back-off, logged, and then served", async () => {
    const pg = cluster as PrivatePostgres;
    await pg.stop("fast");
    let restarted = false;
    try {
      const port = await freePort();
      const server = track(
        startServer(["--role", "api"], env({ DATABASE_START_TIMEOUT_SECONDS: "120" }), port),
      );
      await eventually(
        async () => /database not reachable at start \(ECONNREFUSED.*retry 2 in/.test(server.output()),
        60_000,
      );
      expect(server.child.exitCode).toBeNull();
      await pg.start();
      restarted = true;
      await waitForHealth(server, 60_000);
      expect((await apiClient(server.url).get("/ready")).status).toBe(200);
      server.child.kill("SIGTERM");
      expect(await server.exited).toBe(0);
    } finally {
      if (!restarted) await pg.start();
    }
  }, 180_000);

  it("…and given up on after DATABASE_START_TIMEOUT_SECONDS: one line, exit 1", async () => {
    const pg = cluster as PrivatePostgres;
    await pg.stop("fast");
    try {
      const server = track(
        startServer(["--role", "api"], env({ DATABASE_START_TIMEOUT_SECONDS: "2" }), await freePort()),
      );
      expect(await server.exited).toBe(1);
      expect(server.output()).toMatch(/database not reachable within DATABASE_START_TIMEOUT_SECONDS \(2 s\)/);
      expect(server.output()).not.toMatch(/\n\s+at /);
    } finally {
      await pg.start();
    }
  }, 120_000);
});
