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

  /** The postmaster of the cluster and its children. */
  const clusterPids = (): number[] => {
    const postmaster = Number(fs.readFileSync(path.join(data, "postmaster.pid"), "utf8").split("\n")[0]);
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
  };
  const signal = (sig: NodeJS.Signals) => {
    if (!fs.existsSync(path.join(data, "postmaster.pid"))) return;
    for (const pid of clusterPids()) {
      try {
        process.kill(pid, sig);
      } catch {}
    }
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
