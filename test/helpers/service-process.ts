// Runs the real service (`tsx src/main.ts`) or the CLI in a child process, for tests that kill
// and restart it.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";

const root = path.resolve(import.meta.dirname, "../..");
// `node --import tsx` rather than the tsx binary: the binary runs the program in a child process,
// so a SIGKILL sent to it would leave the real service running as an orphan.
const nodeArgs = ["--import", "tsx"];

export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  // WORKER_PORT 0: a worker's probe server takes any free port, so workers started side by side
  // (and by other test files) never clash on the default 3001. Tests that scrape it set their own.
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

export async function runCli(env: NodeJS.ProcessEnv, args: string[]): Promise<any> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [...nodeArgs, "src/cli.ts", ...args, "--json"],
    {
      cwd: root,
      env,
    },
  );
  return JSON.parse(stdout);
}

export interface ServiceProcess {
  child: ChildProcess;
  exited: Promise<number | null>;
  stderr: () => string;
}

/** Starts the service and resolves once GET /health answers (or the role has no HTTP). */
export async function startService(env: NodeJS.ProcessEnv, args: string[] = [], healthUrl?: string) {
  const child = spawn(process.execPath, [...nodeArgs, "src/main.ts", ...args], {
    cwd: root,
    env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let err = "";
  child.stderr?.on("data", (c: Buffer) => {
    err += c.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const service: ServiceProcess = { child, exited, stderr: () => err };
  if (healthUrl) {
    const until = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`service exited early: ${err}`);
      const ok = await fetch(healthUrl).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (Date.now() > until) throw new Error(`service did not start: ${err}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return service;
}
