// Process entry: config → database → migrations → HTTP server and/or the webhook dispatcher
// (`--role all|api|worker`). SIGTERM/SIGINT drain in-flight requests and deliveries (up to
// SHUTDOWN_GRACE_MS), then exit 0. Operator mistakes (bad arguments, invalid variables, a busy
// port, a locked data directory) end in one line on stderr, before anything opens.
import cluster from "node:cluster";
import { parseArgs } from "node:util";
import { RateLimiterClusterMaster } from "rate-limiter-flexible";
import { buildApp } from "./app.ts";
import { type ControlSocket, startControlSocket } from "./cli/control-socket.ts";
import { type Config, ConfigError, loadConfig, type Role } from "./config.ts";
import { serviceContext } from "./context.ts";
import { openDatabase, targetFromConfig } from "./db/client.ts";
import { DataDirLockedError } from "./db/data-dir-lock.ts";
import { DataDirPermissionError } from "./db/data-dir-permissions.ts";
import { databaseClock } from "./db/database-clock.ts";
import { runMigrations } from "./db/migrate.ts";
import { assertPortFree, isPortError, PortUnavailableError } from "./http/port-check.ts";
import { startMailSender } from "./mail/sender.ts";
import { startHousekeeping } from "./maintenance/housekeeping.ts";
import { createMetrics } from "./observability/metrics.ts";
import { buildWorkerApp } from "./observability/worker-app.ts";
import { startDispatcher } from "./webhook-delivery/dispatcher.ts";

class UsageError extends Error {}

function parseRole(argv: string[]): Role {
  let values: { role?: string };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { role: { type: "string", default: "all" } },
      strict: true,
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const role = values.role as Role;
  if (!["all", "api", "worker"].includes(role)) throw new UsageError(`--role must be all, api or worker`);
  return role;
}

/**
 * `API_PROCESSES=N --role api`: this process forks N API processes that share PORT (node:cluster
 * hands them the connections) and does nothing else; it migrates first, and on SIGTERM/SIGINT
 * passes the signal on and exits once they drained. One of them exiting otherwise ends it too
 * (exit 1), so the supervisor restarts the group rather than run it short-handed unnoticed.
 */
async function runApiProcesses(config: Config, processes: number): Promise<void> {
  await assertPortFree(config.host, config.port, "PORT");
  const database = await openDatabase(targetFromConfig(config), {
    timeouts: { connectMs: config.dbConnectTimeoutMs, queryMs: config.dbQueryTimeoutMs },
  });
  await runMigrations(database);
  await database.close();
  // Without Redis the API processes count rate limits here, in one place (rate-limit-store.ts).
  if (!config.redisUrl) new RateLimiterClusterMaster();
  let stopping = false;
  const children = Array.from({ length: processes }, () => cluster.fork());
  const exited = children.map((child) => new Promise<void>((resolve) => child.once("exit", () => resolve())));
  for (const child of children) {
    child.once("exit", (code) => {
      if (stopping) return;
      console.error(`an API process exited (code ${code}); stopping the others`);
      void stop(1);
    });
  }
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    for (const child of children) if (!child.isDead()) child.process.kill("SIGTERM");
    await Promise.all(exited);
    process.exit(code);
  };
  process.on("SIGTERM", () => void stop(0));
  process.on("SIGINT", () => void stop(0));
}

async function main(): Promise<void> {
  // A forked API process (API_PROCESSES) is always --role api.
  const role = cluster.isWorker ? "api" : parseRole(process.argv.slice(2));
  const config = loadConfig();
  if (role !== "all" && !config.databaseUrl) {
    throw new ConfigError(["--role api/worker needs DATABASE_URL: PGlite serves one process only"]);
  }
  if (config.apiProcesses > 1 && role !== "api") {
    throw new ConfigError([
      "API_PROCESSES > 1 needs --role api (run the dispatcher apart with --role worker)",
    ]);
  }
  if (config.apiProcesses > 1 && cluster.isPrimary) return runApiProcesses(config, config.apiProcesses);
  // Forked API processes share the port their parent checked and holds for them.
  if (role !== "worker" && cluster.isPrimary) await assertPortFree(config.host, config.port, "PORT");
  else await assertPortFree(config.host, config.workerPort, "WORKER_PORT");
  const database = await openDatabase(targetFromConfig(config), {
    timeouts: { connectMs: config.dbConnectTimeoutMs, queryMs: config.dbQueryTimeoutMs },
    poolSize: config.databasePoolSize,
    genericPlans: role === "worker",
  });
  await runMigrations(database);

  const metrics = createMetrics(database, { processMetrics: true });
  const app = await buildApp({ config, database, metrics });
  const stoppers: Array<() => Promise<void>> = [];
  // A host clock off by more than a second is logged (issue 25 item 6); a dispatcher checks its own.
  if (role === "api") await databaseClock(database.db, { log: app.log }).sync();
  if (role !== "worker") {
    try {
      await app.listen({ port: config.port, host: config.host });
    } catch (err) {
      if (isPortError(err)) {
        throw new PortUnavailableError(config.host, config.port, "PORT", (err as NodeJS.ErrnoException).code);
      }
      throw err;
    }
    stoppers.push(() => app.close());
  }
  if (role !== "api") {
    const dispatcher = await startDispatcher({ config, database, log: app.log, metrics });
    stoppers.push(() => dispatcher.stop(config.shutdownGraceMs));
    // Mail goes out from the same processes as webhooks (src/mail/README.md).
    const mail = await startMailSender({ config, database, log: app.log });
    stoppers.push(() => mail.stop(config.shutdownGraceMs));
    app.log.info({ mail: mail.description }, "mail sender started");
    const stopHousekeeping = startHousekeeping(database.db, () => new Date(), app.log);
    stoppers.push(async () => stopHousekeeping());
  }
  if (role === "worker") {
    const probes = buildWorkerApp(config, database, metrics, app.log);
    try {
      await probes.listen({ port: config.workerPort, host: config.host });
    } catch (err) {
      if (isPortError(err)) {
        throw new PortUnavailableError(
          config.host,
          config.workerPort,
          "WORKER_PORT",
          (err as NodeJS.ErrnoException).code,
        );
      }
      throw err;
    }
    stoppers.push(() => probes.close());
  }
  let control: ControlSocket | undefined;
  if (database.kind === "pglite") {
    // The CLI cannot open a directory this process holds: it asks us instead.
    try {
      control = await startControlSocket(
        config.dataDir,
        serviceContext({ config, database }),
        config,
        app.log,
      );
      const socket = control;
      stoppers.push(() => socket.close());
    } catch (err) {
      app.log.warn({ err }, "the CLI control socket could not start: stop the server to use the CLI");
    }
  }
  app.log.info(
    { role, database: database.kind, publicUrl: config.publicUrl, controlSocket: control?.path },
    "vendor-api started",
  );

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, "shutting down: draining in-flight work");
    const timer = setTimeout(() => {
      app.log.error("drain timed out; exiting");
      process.exit(1);
    }, config.shutdownGraceMs + 2_000);
    timer.unref();
    try {
      // Requests and deliveries drain side by side, each within the grace period.
      await Promise.all(stoppers.map((stop) => stop()));
      await database.close();
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, "error during shutdown");
      process.exit(1);
    }
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

main().catch((err: unknown) => {
  if (err instanceof UsageError) {
    console.error(`${err.message}\nUsage: vendor-api-server [--role all|api|worker]`);
    process.exit(2);
  }
  if (
    err instanceof ConfigError ||
    err instanceof DataDirLockedError ||
    err instanceof DataDirPermissionError ||
    err instanceof PortUnavailableError
  ) {
    console.error(err.message);
  } else {
    console.error(err);
  }
  process.exit(1);
});
