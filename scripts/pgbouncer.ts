// A private PgBouncer in transaction mode in front of a PostgreSQL server, for CI (.ci/run), the
// tests that need one and `npm run bench`'s pooled runs. It runs the distribution's binary
// (/usr/sbin/pgbouncer; Debian's is 1.18, which forwards no named prepared statements) as user
// postgres when we are root, since PgBouncer refuses to run as root. Every database of the
// server is reachable through it under its own name (`* =`), each with a pool of `poolSize`
// server connections. Its files are 0600 in a 0700 directory of its own.
//
//   node --import tsx scripts/pgbouncer.ts start --upstream postgres://postgres@127.0.0.1:5432 --pool 8
//     prints {"port":…,"dir":…,"pid":…} and leaves PgBouncer running in the background;
//   node --import tsx scripts/pgbouncer.ts stop <dir>
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";

export const PGBOUNCER_BINARY = "/usr/sbin/pgbouncer";

export interface PgBouncer {
  readonly port: number;
  readonly dir: string;
  readonly pid: number;
  /** `databaseUrl` (a URL of the upstream server) with the pooler's host and port instead. */
  url(databaseUrl: string): string;
  /** Stops it (SIGTERM to its own pid) and removes its directory. */
  stop(): Promise<void>;
}

export interface PgBouncerOptions {
  /** Any URL of the upstream server: its host, port and user are used. */
  upstream: string;
  /** Server connections per database and user (PgBouncer's default_pool_size). */
  poolSize: number;
  /** Applied to every server connection it opens, as the app's own pool does at connection start. */
  statementTimeoutMs?: number;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: "127.0.0.1" });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function startPgBouncer(options: PgBouncerOptions): Promise<PgBouncer> {
  const upstream = new URL(options.upstream);
  const user = decodeURIComponent(upstream.username || "postgres");
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pgbouncer-"));
  fs.chmodSync(dir, 0o700);
  const timeout = options.statementTimeoutMs ?? 4_000;
  // The server's own timeouts, which the app sends at connection start when it connects directly
  // (PgBouncer refuses those startup parameters): set on each server connection instead.
  const connectQuery = `SET statement_timeout = ${timeout}; SET idle_in_transaction_session_timeout = 60000`;
  const ini = `[databases]
* = host=${upstream.hostname} port=${upstream.port || 5432} connect_query='${connectQuery}'

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = trust
auth_file = ${dir}/users.txt
pool_mode = transaction
default_pool_size = ${options.poolSize}
max_client_conn = 400
logfile = ${dir}/pgbouncer.log
pidfile = ${dir}/pgbouncer.pid
`;
  const password = decodeURIComponent(upstream.password);
  fs.writeFileSync(path.join(dir, "users.txt"), `"${user}" "${password}"\n`, { mode: 0o600 });
  fs.writeFileSync(path.join(dir, "pgbouncer.ini"), ini, { mode: 0o600 });
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { uid, gid } = fs.statSync("/var/lib/postgresql");
    for (const file of ["", "users.txt", "pgbouncer.ini"]) fs.chownSync(path.join(dir, file), uid, gid);
  }
  const command = asRoot ? "runuser" : PGBOUNCER_BINARY;
  const args = [
    ...(asRoot ? ["-u", "postgres", "--", PGBOUNCER_BINARY] : []),
    "-d",
    path.join(dir, "pgbouncer.ini"),
  ];
  execFileSync(command, args, { stdio: ["ignore", "ignore", "pipe"] });
  const deadline = Date.now() + 10_000;
  const pidFile = path.join(dir, "pgbouncer.pid");
  while (!(fs.existsSync(pidFile) && (await canConnect(port)))) {
    if (Date.now() > deadline) {
      const log = fs.existsSync(path.join(dir, "pgbouncer.log"))
        ? fs.readFileSync(path.join(dir, "pgbouncer.log"), "utf8")
        : "";
      throw new Error(`PgBouncer did not start on port ${port}:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  const pid = Number(fs.readFileSync(pidFile, "utf8").trim());
  return handle(port, dir, pid);
}

function handle(port: number, dir: string, pid: number): PgBouncer {
  return {
    port,
    dir,
    pid,
    url(databaseUrl: string) {
      const url = new URL(databaseUrl);
      url.hostname = "127.0.0.1";
      url.port = String(port);
      return url.toString();
    },
    async stop() {
      if (isAlive(pid)) process.kill(pid, "SIGTERM");
      const deadline = Date.now() + 10_000;
      while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function cli(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === "start") {
    const { values } = parseArgs({
      args: rest,
      options: { upstream: { type: "string" }, pool: { type: "string", default: "8" } },
    });
    if (!values.upstream) throw new Error("--upstream postgres://… is required");
    const bouncer = await startPgBouncer({ upstream: values.upstream, poolSize: Number(values.pool) });
    process.stdout.write(`${JSON.stringify({ port: bouncer.port, dir: bouncer.dir, pid: bouncer.pid })}\n`);
    return;
  }
  if (command === "stop" && rest[0]) {
    const dir = rest[0];
    const pid = Number(fs.readFileSync(path.join(dir, "pgbouncer.pid"), "utf8").trim());
    await handle(0, dir, pid).stop();
    return;
  }
  throw new Error("usage: pgbouncer.ts start --upstream <url> [--pool N] | stop <dir>");
}

if (process.argv[1] && path.resolve(process.argv[1]) === new URL(import.meta.url).pathname) {
  cli(process.argv.slice(2)).catch((err: unknown) => {
    console.error((err as Error).message);
    process.exit(1);
  });
}
