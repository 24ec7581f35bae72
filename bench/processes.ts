// Child processes for the benchmark: each server runs alone in its own Node process, so its RSS and
// CPU are its own and the load generator (this process) never shares its event loop.
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";

export const ROOT = new URL("..", import.meta.url).pathname;

export interface Server {
  name: string;
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * `node --import tsx <script>`: what `tsx <script>` runs, minus tsx's wrapper process, so the pid
 * we sample is the server's.
 */
export async function startServer(
  name: string,
  script: string,
  env: Record<string, string>,
  options: { quiet?: boolean; healthPort?: number } = {},
  args: string[] = [],
): Promise<Server> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // BENCH_CPU_PROF_DIR: each server writes a V8 CPU profile there when it exits (node --cpu-prof);
  // BENCH_HEAP_PROF_DIR: a sampled allocation profile (node --heap-prof), who allocates what.
  const profile = [
    ...(process.env.BENCH_CPU_PROF_DIR
      ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR}`]
      : []),
    ...(process.env.BENCH_HEAP_PROF_DIR
      ? ["--heap-prof", `--heap-prof-dir=${process.env.BENCH_HEAP_PROF_DIR}`]
      : []),
    // Any other V8 or Node flags for the servers alone (--trace-gc is refused in NODE_OPTIONS).
    ...(process.env.BENCH_NODE_FLAGS?.split(" ").filter(Boolean) ?? []),
  ];
  const child = spawn(process.execPath, [...profile, "--import", "tsx", script, ...args], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), ...env, HOST: "127.0.0.1", PUBLIC_URL: url },
    // quiet: info-level request logs go to /dev/null (still serialized and written, as in production).
    stdio: ["ignore", options.quiet ? "ignore" : "inherit", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  // BENCH_START_TIMEOUT (seconds, default 30): a start takes longer on a host busy with others.
  const startSeconds = Number(process.env.BENCH_START_TIMEOUT) || 30;
  const deadline = Date.now() + startSeconds * 1000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode} before it was ready`);
    try {
      const res = await fetch(`http://127.0.0.1:${options.healthPort ?? port}/health`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${name} did not answer /health within ${startSeconds} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    name,
    url,
    child,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Run a CLI command of the app and parse its one JSON document (CONTRACT 9 --json). */
export async function runCli(args: string[], env: Record<string, string>): Promise<Record<string, string>> {
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli.ts", ...args, "--json"], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (c: Buffer) => {
    out += c.toString("utf8");
  });
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`cli ${args.join(" ")} exited with ${code}`);
  return JSON.parse(out) as Record<string, string>;
}

/** Resident set size in bytes, from /proc (Linux). */
export function rssOf(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  return kb ? Number(kb) * 1024 : Number.NaN;
}

export interface Memory {
  rssMb: number;
  hwmMb: number;
}

/** Resident memory now and its peak (VmRSS, VmHWM) in MB, from /proc (Linux). */
export function memoryOf(pid: number): Memory {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? Number.NaN);
  return { rssMb: Math.round(kb("VmRSS") / 1024), hwmMb: Math.round(kb("VmHWM") / 1024) };
}

/** The process's children, from /proc (every thread's list). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  try {
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      const text = fs.readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").trim();
      if (text) out.push(...text.split(/\s+/).map(Number));
    }
  } catch {
    // ended
  }
  return out;
}

/** CPU seconds of the process and (by default) its descendants alive now: cluster workers. */
export function cpuSecondsOfTree(pid: number, descendants = true): number {
  let total = cpuSecondsOf(pid);
  if (descendants) for (const child of childrenOf(pid)) total += cpuSecondsOfTree(child);
  return total;
}

/** Resident set size of the process and its descendants, in bytes. */
export function rssOfTree(pid: number): number {
  let total = 0;
  try {
    total = rssOf(pid);
  } catch {
    return 0;
  }
  for (const child of childrenOf(pid)) total += rssOfTree(child);
  return total;
}

/** The whole machine's CPU time so far, from /proc/stat, in clock ticks: busy, idle, waiting on I/O. */
export function machineTicks(): { busy: number; idle: number; iowait: number } {
  const [cpuLine = ""] = fs.readFileSync("/proc/stat", "utf8").split("\n");
  const [user, nice, system, idle, iowait, irq, softirq, steal] = cpuLine
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number) as number[];
  return {
    busy: (user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0),
    idle: idle ?? 0,
    iowait: iowait ?? 0,
  };
}

/** CPU seconds (user + system) the process has used so far, from /proc/<pid>/stat. */
export function cpuSecondsOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name, which is in parentheses and may contain spaces.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  return ticks / clockTicks;
}

// USER_HZ is 100 on every Linux we run on; os has no getter for it.
const clockTicks = 100;
export const cpuCount = os.cpus().length;
