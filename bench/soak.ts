// Soak: the service on embedded PGlite (npm start's command, a new DATA_DIR) under mixed traffic
// at a modest rate for a bounded time, printing its resident memory each minute, to show whether
// memory grows with use. Traffic, spread evenly over each second: order creates and lists,
// status moves, customer creates and lists, appointment bookings and lists, and the event feed.
//
//   npx tsx bench/soak.ts [minutes=60] [--rate 3] [--dist]
//
// Each line: minute, requests so far (errors), VmRSS, VmHWM, and where the memory is, from the
// server's /metrics: the JavaScript heap in use and V8's external memory, which holds PGlite's
// WebAssembly memory (it only grows); then the load average. The summary gives the first and last
// minute's RSS and the largest, and the slopes over the second half.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { cpuSecondsOf, freePort, memoryOf, ROOT } from "./processes.ts";
import { seedVendors } from "./seed.ts";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { rate: { type: "string", default: "3" }, dist: { type: "boolean", default: false } },
});
const minutes = Number(positionals[0] ?? 60);
const rate = Number(values.rate);
const script = (
  JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
  }
).scripts[values.dist ? "start:prod" : "start"] as string;

/** The JavaScript heap in use and V8's external memory, in MB, from the server's process metrics. */
async function heapMb(url: string): Promise<{ heap: number; external: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const mb = (name: string) =>
    Math.round(Number(new RegExp(`^vendor_api_${name} (\\S+)$`, "m").exec(text)?.[1]) / 1048576);
  return { heap: mb("nodejs_heap_size_used_bytes"), external: mb("nodejs_external_memory_bytes") };
}

const slopeOf = (values: number[]) =>
  values.length > 1 ? ((values.at(-1) as number) - (values[0] as number)) / (values.length - 1) : 0;
const signed = (n: number) => `${n >= 0 ? "+" : ""}${n.toFixed(2)}`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "vendor-api-soak-"));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn("sh", ["-c", `exec ${script}`], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: "127.0.0.1",
      PUBLIC_URL: url,
      LOG_LEVEL: "warn",
      RATE_LIMIT_PER_MINUTE: "1000000",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const pid = child.pid as number;
  const stop = () => {
    if (child.exitCode === null) child.kill("SIGTERM");
  };
  process.on("SIGINT", () => {
    stop();
    process.exit(130);
  });
  for (const until = Date.now() + 180_000; ; ) {
    if (child.exitCode !== null) throw new Error(`server exited ${child.exitCode}`);
    if (
      await fetch(`${url}/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (Date.now() > until) throw new Error("no /health within 180 s");
    await sleep(100);
  }
  const { writeKey: key } = await seedVendors({ DATA_DIR: dataDir }, `soak-${process.pid}`);
  const call = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${url}/api/vendor${p}`, {
      method,
      headers: { "x-api-key": key, ...(body ? { "content-type": "application/json" } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    if (res.status >= 400) throw new Error(`${method} ${p}: ${res.status} ${text.slice(0, 200)}`);
    return text ? (JSON.parse(text) as { id?: string }) : {};
  };
  const orders: string[] = [];
  const customers: string[] = [];
  let n = 0;
  const day = (i: number) => new Date(Date.now() + (1 + (i % 365)) * 86_400_000).toISOString().slice(0, 10);
  // One request of the mix per tick, in turn.
  const mix: Array<(i: number) => Promise<unknown>> = [
    async (i) => {
      const o = await call("POST", "/orders", {
        customerName: `Soak ${i % 300}`,
        customerEmail: `soak-${i % 300}@example.com`,
        type: "SUIT",
        model: `Model ${i}`,
      });
      if (o.id) orders.push(o.id);
      if (orders.length > 200) orders.shift();
    },
    () => call("GET", "/orders?limit=50"),
    async () => {
      const id = orders[n % Math.max(1, orders.length)];
      if (id) await call("PUT", `/orders/${id}/status`, { status: "IN_PRODUCTION" }).catch(() => {});
    },
    async (i) => {
      const c = await call("POST", "/customers", {
        name: `Walk-in ${i}`,
        email: `walkin-${i}-${process.pid}@example.com`,
      });
      if (c.id) customers.push(c.id);
      if (customers.length > 200) customers.shift();
    },
    () => call("GET", "/customers?limit=50"),
    async (i) => {
      const customerId = customers[i % Math.max(1, customers.length)];
      if (!customerId) return;
      await call("POST", "/appointments", {
        customerId,
        type: "FITTING",
        date: `${day(i)}T${String(9 + (i % 8)).padStart(2, "0")}:${String((i * 7) % 60).padStart(2, "0")}:00Z`,
        duration: 15,
      });
    },
    () => call("GET", "/appointments?limit=50"),
    () => call("GET", "/events?limit=50"),
  ];
  let requests = 0;
  const errors = new Map<string, number>();
  const startedAt = Date.now();
  const endAt = startedAt + minutes * 60_000;
  const samples: Array<{ rss: number; heap: number; external: number }> = [];
  const first = memoryOf(pid);
  const cpu0 = cpuSecondsOf(pid);
  console.log(
    `soak: ${script}, ${minutes} min at ${rate} req/s, DATA_DIR ${dataDir}; after start and seed RSS ${first.rssMb} MB, peak ${first.hwmMb} MB`,
  );
  let nextMinute = startedAt + 60_000;
  let minute = 0;
  while (Date.now() < endAt) {
    const tick = Date.now();
    const i = n++;
    const request = mix[i % mix.length] as (i: number) => Promise<unknown>;
    request(i).then(
      () => void requests++,
      (err: Error) => {
        requests++;
        const k = err.message.slice(0, 80);
        errors.set(k, (errors.get(k) ?? 0) + 1);
      },
    );
    if (Date.now() >= nextMinute) {
      minute++;
      nextMinute += 60_000;
      const m = memoryOf(pid);
      const { heap, external } = await heapMb(url);
      samples.push({ rss: m.rssMb, heap, external });
      const errs = [...errors.values()].reduce((a, b) => a + b, 0);
      console.log(
        `minute ${String(minute).padStart(3)}: ${requests} requests (${errs} errors), RSS ${m.rssMb} MB, peak ${m.hwmMb} MB, JS heap ${heap} MB, external ${external} MB, CPU ${(cpuSecondsOf(pid) - cpu0).toFixed(0)} s, load ${os.loadavg()[0]?.toFixed(1)}`,
      );
    }
    await sleep(Math.max(0, 1000 / rate - (Date.now() - tick)));
  }
  await sleep(2_000);
  const last = memoryOf(pid);
  const half = samples.slice(Math.floor(samples.length / 2));
  const rss = samples.map((s) => s.rss);
  console.log(
    `summary: ${minutes} min, ${requests} requests, ${[...errors.values()].reduce((a, b) => a + b, 0)} errors; RSS ${first.rssMb} MB after seed → ${last.rssMb} MB at the end (min ${Math.min(...rss)}, max ${Math.max(...rss)}), peak ${last.hwmMb} MB; second half MB/min: RSS ${signed(slopeOf(half.map((s) => s.rss)))}, JS heap ${signed(slopeOf(half.map((s) => s.heap)))}, external ${signed(slopeOf(half.map((s) => s.external)))}`,
  );
  for (const [k, v] of errors) console.log(`  ${v}× ${k}`);
  stop();
  await new Promise((r) => child.once("exit", r));
  fs.rmSync(dataDir, { recursive: true, force: true });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
