// A PostgreSQL cluster of the test's own (initdb + pg_ctl on a random port, in a scratch
// directory), for the fault tests that stop, restart or freeze the database: the shared server of
// TEST_DATABASE_URL is never touched. Only the processes of this cluster are ever signalled.
// PostgreSQL refuses to run as root: then the cluster runs as the postgres user.
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { freePort } from "./ports.ts";
import { tempDir } from "./temp-dir.ts";

const BIN = "/usr/lib/postgresql/15/bin";
export const hasPrivatePostgres = fs.existsSync(`${BIN}/initdb`);
export const privatePostgresMissing = `skipped: ${BIN}/initdb is missing, so no private cluster can be started`;

const run = promisify(execFile);
const asOwner = (cmd: string, args: string[]) =>
  process.getuid?.() === 0 ? run("runuser", ["-u", "postgres", "--", cmd, ...args]) : run(cmd, args);

export interface PrivatePostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  readonly url: string;
  readonly port: number;
  /** Starts the stopped cluster and waits until it accepts connections. */
  start(): Promise<void>;
  /** `fast`: backends get admin_shutdown (57P01); `immediate`: they are killed, as in a crash. */
  stop(mode?: "fast" | "immediate"): Promise<void>;
  /** SIGSTOP / SIGCONT to the postmaster and its children: a frozen host or a partition. */
  freeze(): void;
  thaw(): void;
  /** Stops the cluster (thawed first) and removes its directory. */
  destroy(): Promise<void>;
}

export async function startPrivatePostgres(prefix: string): Promise<PrivatePostgres> {
  const dir = tempDir(prefix);
  if (process.getuid?.() === 0) await run("chown", ["-R", "postgres", dir]);
  const port = await freePort();
  const data = path.join(dir, "data");
  await asOwner(`${BIN}/initdb`, ["-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"]);
  const start = async () => {
    await asOwner(`${BIN}/pg_ctl`, [
      "-D",
      data,
      "-l",
      path.join(dir, "log"),
      "-w",
      "-o",
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
      "start",
    ]);
  };
  const stop = async (mode: "fast" | "immediate" = "fast") => {
    await asOwner(`${BIN}/pg_ctl`, ["-D", data, "-m", mode, "-w", "stop"]);
  };

  const postmasterPid = () =>
    Number(fs.readFileSync(path.join(data, "postmaster.pid"), "utf8").split("\n")[0]);
  /** The field after the command name in /proc/<pid>/stat: 0 is the state, 1 the parent's pid. */
  const statField = (pid: number | string, field: number): string | undefined => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[field];
    } catch {
      return undefined;
    }
  };
  const childrenOf = (parent: number): number[] =>
    fs
      .readdirSync("/proc")
      .filter((p) => /^\d+$/.test(p) && Number(statField(p, 1)) === parent)
      .map(Number);
  const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
  const kill = (pid: number, sig: NodeJS.Signals) => {
    try {
      process.kill(pid, sig);
    } catch {}
  };
  const signal = (sig: NodeJS.Signals) => {
    if (!fs.existsSync(path.join(data, "postmaster.pid"))) return;
    const postmaster = postmasterPid();
    if (sig !== "SIGSTOP") {
      for (const pid of [postmaster, ...childrenOf(postmaster)]) kill(pid, sig);
      return;
    }
    // The postmaster first, and only once it has stopped its children: listed before, a backend
    // it forked for a new connection in between ran on unfrozen and answered (a CI run saw a 201).
    kill(postmaster, sig);
    for (let i = 0; i < 200 && statField(postmaster, 0) !== "T"; i++) pause(5);
    for (const pid of childrenOf(postmaster)) kill(pid, sig);
  };

  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start,
    stop,
    freeze: () => signal("SIGSTOP"),
    thaw: () => signal("SIGCONT"),
    async destroy() {
      signal("SIGCONT");
      await stop("immediate").catch(() => {});
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
