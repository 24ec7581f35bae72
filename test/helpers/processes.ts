// Runs the real entry points (server and CLI) as child processes, as an operator would, for the
// tests that start, kill and restart them. One process per entry point (`node <file>`, no
// wrapper), so a signal reaches the server itself and a SIGKILL leaves no orphan. The files are
// the JavaScript child-build.ts compiled from src/ for this run.
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll } from "vitest";
import { CHILD_BUILD_DIR, CHILD_NODE_FLAGS, migratedDataDir } from "./child-build.ts";
import { withPoolerSettings } from "./pooler.ts";
import { freePort } from "./ports.ts";
import { createScratchDatabase, type ScratchDatabase } from "./scratch-database.ts";
import { eventually } from "./webhook-receiver.ts";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

function entry(name: "main" | "cli"): string {
  const file = path.join(CHILD_BUILD_DIR, `${name}.js`);
  if (!fs.existsSync(file)) throw new Error(`${file} is missing: run the tests through vitest (globalSetup)`);
  return file;
}

/**
 * The environment of a child: the test's, in NODE_ENV=test, logging warnings only, with no
 * DATABASE_URL unless `extra` names one (PGlite in DATA_DIR otherwise). WORKER_PORT 0: a worker's
 * probe server takes any free port, so workers started side by side never clash on 3001.
 */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "test",
    LOG_LEVEL: "warn",
    WORKER_PORT: "0",
    ...extra,
  };
  if (!extra.DATABASE_URL) delete env.DATABASE_URL;
  return env;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI to its end; `env` goes over the test's own environment. */
export function runCli(args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...CHILD_NODE_FLAGS, entry("cli"), ...args], {
      cwd: repoRoot,
      env: withPoolerSettings({ ...process.env, NODE_ENV: "test", XDG_CONFIG_HOME: cliConfigHome(), ...env }),
    });
    child.stdin.end(input ?? "");
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs a CLI command with --json and returns its answer; a failing command throws. */
export async function runCliJson(env: NodeJS.ProcessEnv, args: string[]): Promise<any> {
  const r = await runCli([...args, "--json"], env);
  if (r.code !== 0) throw new Error(`vendor-api ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  /** What the process wrote to stdout and stderr so far. */
  output: () => string;
  exited: Promise<number | null>;
}

/**
 * Resolves once a running server's output matches `pattern`; rejects with the output after
 * `timeoutMs`. A log line reaches the test through a pipe, written by pino from a buffer on the
 * process's thread pool: what the server did a moment ago may not be readable yet.
 */
export async function outputMatching(
  server: ServerProcess,
  pattern: RegExp,
  timeoutMs = 10_000,
): Promise<RegExpMatchArray> {
  return eventually(async () => server.output().match(pattern) ?? undefined, timeoutMs).catch(() => {
    throw new Error(`no ${pattern} in the output:\n${server.output().slice(-4_000)}`);
  });
}

/** Starts `src/main.ts` with `args` on `port` (logging at info unless env says otherwise). */
export function startServer(args: string[], env: NodeJS.ProcessEnv, port: number): ServerProcess {
  const child = spawn(process.execPath, [...CHILD_NODE_FLAGS, entry("main"), ...args], {
    cwd: repoRoot,
    env: withPoolerSettings({
      ...process.env,
      NODE_ENV: "test",
      LOG_LEVEL: "info",
      PORT: String(port),
      HOST: "127.0.0.1",
      ...env,
    }),
  });
  let output = "";
  const collect = (d: Buffer) => {
    output += d;
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, url: `http://127.0.0.1:${port}`, output: () => output, exited };
}

/** Resolves once `GET <url>/health` answers 200; throws if the process exits first. */
export async function waitForHealth(server: ServerProcess, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (server.child.exitCode !== null) throw new Error(`server exited early:\n${server.output()}`);
    const ok = await fetch(`${server.url}/health`).then(
      (r) => r.ok,
      () => false, // not listening yet
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`server did not become healthy:\n${server.output()}`);
}

/**
 * The database a process test runs on, and the cleanup after the file: the run's backend, as
 * for every other test (CI runs the suite once on each). PGlite: a new DATA_DIR (a copy of a
 * migrated database) each time `db()` is called. With TEST_DATABASE_URL: PostgreSQL, in a scratch
 * database of the file's own (a spawned dispatcher must not deliver other files' events).
 * Processes passed to `track` are SIGKILLed in afterAll if still running.
 */
export function processBackends(prefix: string) {
  const pgUrl = process.env.TEST_DATABASE_URL;
  let scratch: ScratchDatabase | undefined;
  const dataDirs: string[] = [];
  const running: ServerProcess[] = [];
  beforeAll(async () => {
    if (pgUrl) scratch = await createScratchDatabase(pgUrl);
  });
  afterAll(async () => {
    for (const s of running) if (s.child.exitCode === null) s.child.kill("SIGKILL");
    await Promise.all(running.map((s) => s.exited));
    for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
    await scratch?.drop();
  });
  const pglite = {
    name: "PGlite",
    db: async (): Promise<Record<string, string>> => {
      const dir = await migratedDataDir(prefix);
      dataDirs.push(dir);
      return { DATA_DIR: dir };
    },
  };
  const postgres = {
    name: "PostgreSQL",
    db: async (): Promise<Record<string, string>> => ({ DATABASE_URL: scratch?.url ?? "" }),
  };
  return {
    backends: pgUrl ? [postgres] : [pglite],
    track<T extends ServerProcess>(server: T): T {
      running.push(server);
      return server;
    },
  };
}

/**
 * Starts the service with a complete `env` (see childEnv) on env.PORT and, unless it serves no
 * HTTP there (`--role worker`), waits until it is healthy.
 */
export async function startService(
  env: NodeJS.ProcessEnv,
  args: string[] = [],
  { healthy = true } = {},
): Promise<ServerProcess> {
  const server = startServer(args, env, Number(env.PORT ?? 0));
  if (healthy) await waitForHealth(server, 60_000);
  return server;
}

/**
 * Starts `--role worker` on `env`'s database with its probes on a free WORKER_PORT, and waits
 * until it answers /health there: it has opened the database and is polling.
 */
export async function startWorker(env: NodeJS.ProcessEnv): Promise<ServerProcess> {
  const port = await freePort();
  const worker = startServer(["--role", "worker"], { ...env, WORKER_PORT: String(port) }, port);
  await waitForHealth(worker).catch((error) => {
    worker.child.kill("SIGKILL"); // never healthy: not left running behind the test
    throw error;
  });
  return worker;
}

/** A vendor and an API key made with the CLI (through the running server's socket on PGlite). */
export async function vendorWithKeyByCli(env: NodeJS.ProcessEnv, name: string) {
  const email = `${name.toLowerCase()}-${Date.now()}-${Math.random().toString(36).slice(2)}@example.test`;
  const vendor = await runCliJson(env, [
    "vendor",
    "create",
    "--name",
    name,
    "--email",
    email,
    "--password",
    "pw-123456789",
  ]);
  const { key } = await runCliJson(env, ["api-key", "create", "--vendor", vendor.id, "--name", "k"]);
  return { vendor, key: key as string };
}

export interface CliProcess {
  child: ChildProcess;
  /** What the command wrote to stdout (its answer) and stderr (its news) so far, apart. */
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
  /** Resolves with the first match of `pattern` in stdout or stderr (`stream`), as it arrives. */
  waitFor(stream: "stdout" | "stderr", pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
}

/** Starts a CLI command that keeps running (`listen`); stop it with a signal. */
let cliConfig: string | undefined;
/** A config directory for the CLI children of this worker (removed with the OS's temp files). */
function cliConfigHome(): string {
  cliConfig ??= fs.mkdtempSync(path.join(os.tmpdir(), "vendor-api-cli-config-"));
  return cliConfig;
}

export function startCli(args: string[], env: NodeJS.ProcessEnv): CliProcess {
  const child = spawn(process.execPath, [...CHILD_NODE_FLAGS, entry("cli"), ...args], {
    cwd: repoRoot,
    // `listen` keeps its signing secret in the user's config directory: the run's own, not ~.
    env: withPoolerSettings({ ...process.env, NODE_ENV: "test", XDG_CONFIG_HOME: cliConfigHome(), ...env }),
  });
  const text = { stdout: "", stderr: "" };
  const watchers = new Set<() => void>();
  const collect = (stream: "stdout" | "stderr") => (d: Buffer) => {
    text[stream] += d;
    for (const w of [...watchers]) w();
  };
  child.stdout.on("data", collect("stdout"));
  child.stderr.on("data", collect("stderr"));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return {
    child,
    stdout: () => text.stdout,
    stderr: () => text.stderr,
    exited,
    waitFor(stream, pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = text[stream].match(pattern);
          if (!match) return;
          watchers.delete(check);
          clearTimeout(timer);
          resolve(match);
        };
        const timer = setTimeout(() => {
          watchers.delete(check);
          reject(
            new Error(`no ${pattern} in ${stream} within ${timeoutMs} ms:\n${text.stdout}\n${text.stderr}`),
          );
        }, timeoutMs);
        watchers.add(check);
        check();
      });
    },
  };
}
