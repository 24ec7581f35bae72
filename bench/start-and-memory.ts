// Start time and resident memory of the service on embedded PGlite (no DATABASE_URL): a first
// start on a new data directory, a day's work (the bench's seed plus `--writes` writes), then
// `--restarts` warm restarts on the same directory. Each start is timed from spawn to the first
// 200 from /health, in wall and in CPU (user+system of the server's process, which is the pid
// we spawn: `npm start`'s command run through `sh -c exec`, without npm's own process), with the
// load average beside it; after `--idle` seconds of quiet, VmRSS and VmHWM from /proc.
//
//   npx tsx bench/start-and-memory.ts [--dist] [--idle 25] [--writes 1000] [--restarts 2]
//                                     [--data-dir DIR] [--template-dir DIR]
//
// --dist runs `node dist/main.js` (`npm run build` first) instead of `npm start`.
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { cpuSecondsOf, freePort, type Memory, memoryOf, ROOT } from "./processes.ts";

/** CPU seconds of the children the process has waited for (the initdb child), from /proc. */
function childrenCpuSecondsOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

import { seedOrders, seedVendors } from "./seed.ts";

const { values: args } = parseArgs({
  options: {
    dist: { type: "boolean", default: false },
    idle: { type: "string", default: "25" },
    writes: { type: "string", default: "1000" },
    restarts: { type: "string", default: "2" },
    "data-dir": { type: "string" },
  },
});
const idleSeconds = Number(args.idle);
const writes = Number(args.writes);
const restarts = Number(args.restarts);

const startScript = (
  JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
  }
).scripts[args.dist ? "start:prod" : "start"] as string;

const loadavg = () => (os.loadavg()[0] ?? 0).toFixed(1);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Started {
  child: ChildProcess;
  url: string;
  wallS: number;
  cpuS: number;
  childCpuS: number;
  loadBefore: string;
  loadAfter: string;
  /** The server's log lines before /health answered, with seconds since spawn. */
  lines: string[];
  stop(): Promise<void>;
}

async function start(dataDir: string): Promise<Started> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const loadBefore = loadavg();
  const t0 = performance.now();
  const child = spawn("sh", ["-c", `exec ${startScript}`], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: "127.0.0.1",
      PUBLIC_URL: url,
      LOG_LEVEL: "info",
      RATE_LIMIT_PER_MINUTE: "1000000",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  let healthy = false;
  const collect = (chunk: Buffer) => {
    if (healthy) return;
    const at = ((performance.now() - t0) / 1000).toFixed(1);
    for (const line of chunk.toString("utf8").split("\n")) {
      if (!line.trim()) continue;
      let text = line;
      try {
        text = (JSON.parse(line) as { msg?: string }).msg ?? line;
      } catch {
        // not JSON
      }
      lines.push(`${at.padStart(5)} s  ${text.slice(0, 140)}`);
    }
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited ${child.exitCode}:\n${lines.join("\n")}`);
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error("no /health within 180 s");
    await sleep(50);
  }
  healthy = true;
  const wallS = (performance.now() - t0) / 1000;
  const cpuS = cpuSecondsOf(child.pid as number);
  const childCpuS = childrenCpuSecondsOf(child.pid as number);
  // The rest of the output is drained, unread.
  child.stdout?.resume();
  child.stderr?.resume();
  return {
    child,
    url,
    wallS,
    cpuS,
    childCpuS,
    loadBefore,
    loadAfter: loadavg(),
    lines,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

async function dayOfWork(app: Started, dataDir: string, count: number): Promise<void> {
  // Vendors and keys through the CLI (the control socket of the running server), orders by HTTP.
  const keys = await seedVendors({ DATA_DIR: dataDir }, String(process.pid));
  const seeded = await seedOrders({ name: "app", url: app.url, child: app.child, stop: app.stop }, keys);
  const post = async (p: string, body: unknown, key = seeded.writeKey) => {
    const res = await fetch(`${app.url}/api/vendor${p}`, {
      method: p.includes("/status") ? "PUT" : "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${p}: ${res.status} ${text}`);
    return JSON.parse(text) as { id: string };
  };
  // A thousand writes, four at a time: a new order (its customer new every other time), its move
  // to production, a customer of its own.
  let done = 0;
  let n = 0;
  while (done < count) {
    await Promise.all(
      [0, 1, 2, 3].map(async () => {
        const i = n++;
        const kind = i % 3;
        if (kind === 0 || kind === 1) {
          const order = await post("/orders", {
            customerName: `Day ${i}`,
            customerEmail: `day-${i % 200}@example.com`,
            type: "SUIT",
            model: `Model ${i}`,
          });
          if (kind === 1) await post(`/orders/${order.id}/status`, { status: "IN_PRODUCTION" });
        } else {
          await post("/customers", { name: `Walk-in ${i}`, email: `walkin-${i}-${process.pid}@example.com` });
        }
      }),
    );
    done += 4;
  }
}

function report(label: string, s: Started, mem: Memory, memAfterIdle: Memory): void {
  console.log(
    `${label}: /health after ${s.wallS.toFixed(1)} s wall, ${s.cpuS.toFixed(1)} s CPU${s.childCpuS ? ` + ${s.childCpuS.toFixed(1)} s in its child` : ""} (load ${s.loadBefore} → ${s.loadAfter}); ` +
      `RSS at /health ${mem.rssMb} MB; after ${idleSeconds} s idle RSS ${memAfterIdle.rssMb} MB, peak (VmHWM) ${memAfterIdle.hwmMb} MB`,
  );
  for (const line of s.lines) console.log(`    ${line}`);
}

async function main(): Promise<void> {
  const dataDir = args["data-dir"] ?? fs.mkdtempSync(path.join(os.tmpdir(), "vendor-api-mem-"));
  console.log(
    `command: ${startScript}; DATA_DIR ${dataDir}; ${os.cpus().length} cores; node ${process.version}`,
  );
  const results: Record<string, unknown> = { command: startScript, at: new Date().toISOString() };

  const first = await start(dataDir);
  const atHealth = memoryOf(first.child.pid as number);
  await sleep(idleSeconds * 1000);
  const firstIdle = memoryOf(first.child.pid as number);
  report("first start (new data dir)", first, atHealth, firstIdle);
  results.first = {
    wallS: first.wallS,
    cpuS: first.cpuS,
    childCpuS: first.childCpuS,
    load: first.loadBefore,
    ...firstIdle,
  };

  if (writes > 0) {
    const t = performance.now();
    await dayOfWork(first, dataDir, writes);
    const after = memoryOf(first.child.pid as number);
    await sleep(idleSeconds * 1000);
    const afterIdle = memoryOf(first.child.pid as number);
    console.log(
      `day's work (seed: 2 vendors by CLI, 100 orders × 3 entries; then ${writes} writes) in ${((performance.now() - t) / 1000).toFixed(0)} s: ` +
        `RSS ${after.rssMb} MB at its end, ${afterIdle.rssMb} MB after ${idleSeconds} s idle, peak ${afterIdle.hwmMb} MB`,
    );
    results.dayOfWork = { writes, end: after, idle: afterIdle };
  }
  await first.stop();

  const warm: unknown[] = [];
  for (let i = 0; i < restarts; i++) {
    const s = await start(dataDir);
    const m = memoryOf(s.child.pid as number);
    await sleep(idleSeconds * 1000);
    const idle = memoryOf(s.child.pid as number);
    report(`warm restart ${i + 1}`, s, m, idle);
    warm.push({ wallS: s.wallS, cpuS: s.cpuS, load: s.loadBefore, ...idle });
    await s.stop();
  }
  results.warm = warm;
  if (!args["data-dir"]) fs.rmSync(dataDir, { recursive: true, force: true });
  console.log(JSON.stringify(results));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
