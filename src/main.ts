// Process entry: config → database → migrations → HTTP server and/or the webhook dispatcher
// (`--role all|api|worker`). SIGTERM/SIGINT drain in-flight requests and deliveries (up to
// SHUTDOWN_GRACE_MS), then exit 0. Operator mistakes (bad arguments, invalid variables, a busy
// port, a locked data directory) end in one line on stderr, before anything opens. A PostgreSQL
// not reachable yet is waited for (DATABASE_START_TIMEOUT_SECONDS), and an API process that dies
// under API_PROCESSES is replaced (runApiProcesses).
import cluster from "node:cluster";
import { parseArgs } from "node:util";
import { type Logger, pino } from "pino";
import { RateLimiterClusterMaster } from "rate-limiter-flexible";
import { buildApp } from "./app.ts";
import { type ControlSocket, startControlSocket } from "./cli/control-socket.ts";
import { type Config, ConfigError, DEFAULT_WORKER_PORT, loadConfig, type Role } from "./config.ts";
import { serviceContext } from "./context.ts";
import { type Database, openDatabase, targetFromConfig } from "./db/client.ts";
import { DataDirLockedError } from "./db/data-dir-lock.ts";
import { DataDirPermissionError } from "./db/data-dir-permissions.ts";
import { databaseClock } from "./db/database-clock.ts";
import { runMigrations } from "./db/migrate.ts";
import { isDatabaseUnavailable, unavailableReason } from "./db/unavailable.ts";
import { assertPortFree, isPortError, PortUnavailableError } from "./http/port-check.ts";
import { Backoff, retryWithBackoff } from "./lib/backoff.ts";
import { startMailSender } from "./mail/sender.ts";
import { HOUSEKEEPING_EVERY_MS, startHousekeeping } from "./maintenance/housekeeping.ts";
import { createMetrics } from "./metrics/registry.ts";
import { startOrderAlertSweep } from "./modules/orders/order-alerts.service.ts";

import { finishBlobDeletions } from "./modules/photos/photos.service.ts";
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
 * Migrations at start, retried while PostgreSQL refuses or cannot be reached (a database that
 * starts after us, a restart during a deploy) with a growing wait, for DATABASE_START_TIMEOUT_SECONDS;
 * each wait is one line on stderr, and only then does the process give up (exit 1). Any other
 * failure (a wrong password, a bad migration) ends the start at once.
 */
async function migrateWhenReachable(database: Database, config: Config): Promise<void> {
  const started = performance.now();
  let retried = false;
  await retryWithBackoff(() => runMigrations(database), {
    // PGlite is in this process: nothing to wait for.
    retryable: (err) => database.kind === "pg" && isDatabaseUnavailable(err),
    giveUpAfterMs: config.databaseStartTimeoutMs,
    onRetry: (err, waitMs, attempt) => {
      retried = true;
      const left = Math.max(
        0,
        Math.round((config.databaseStartTimeoutMs - (performance.now() - started)) / 1000),
      );
      console.error(
        `database not reachable at start (${unavailableReason(err)}); retry ${attempt} in ${(waitMs / 1000).toFixed(1)} s, giving up in ${left} s`,
      );
    },
  }).catch((err: unknown) => {
    if (database.kind !== "pg" || !isDatabaseUnavailable(err)) throw err;
    throw new StartError(
      `database not reachable within DATABASE_START_TIMEOUT_SECONDS (${config.databaseStartTimeoutMs / 1000} s): ${unavailableReason(err)}`,
    );
  });
  if (retried) console.error("database reachable: starting");
}

/**
 * The log of a start before the app (and its logger) exists: one line per step with how long it
 * took, and one before a step that takes seconds (a new PGlite database), so no start is silent
 * for long. The same level and format as the app's own lines.
 */
function startLogger(config: Config): Logger {
  return pino({
    level: config.logLevel,
    ...(config.logFormat === "pretty"
      ? {
          transport: {
            target: "pino-pretty",
            options: { translateTime: "HH:MM:ss.l", ignore: "pid,hostname" },
          },
        }
      : {}),
  });
}

function elapsedMs(since: number): number {
  return Math.round(performance.now() - since);
}

/** A start that cannot go on: one line on stderr, exit 1. */
class StartError extends Error {}

/** An API process that lived this long had started well: the next death waits the shortest again. */
const HEALTHY_RUN_MS = 30_000;

/**
 * `API_PROCESSES=N --role api`: this process forks N API processes that share PORT (node:cluster
 * hands them the connections) and does nothing else; it migrates first, and on SIGTERM/SIGINT
 * passes the signal on and exits 0 once they drained. One that dies otherwise is replaced after a
 * wait that doubles from 1 s to 30 s while replacements keep dying young (one that ran 30 s
 * resets it), each death one line on stderr: the others serve meanwhile, and a crash loop does
 * not spin. (A supervisor, systemd or the orchestrator, restarts this process itself.)
 */
async function runApiProcesses(config: Config, processes: number): Promise<void> {
  await assertPortFree(config.host, config.port, "PORT");
  const log = startLogger(config);
  const database = await openDatabase(targetFromConfig(config), {
    timeouts: { connectMs: config.dbConnectTimeoutMs, queryMs: config.dbQueryTimeoutMs },
  });
  const migrating = performance.now();
  await migrateWhenReachable(database, config);
  log.info({ ms: elapsedMs(migrating) }, "migrations checked");
  await database.close();
  // Without Redis the API processes count rate limits here, in one place (rate-limit-store.ts).
  if (!config.redisUrl) new RateLimiterClusterMaster();
  let stopping = false;
  const running = new Set<ReturnType<typeof cluster.fork>>();
  const respawns = new Set<NodeJS.Timeout>();
  const backoff = new Backoff(1_000, 30_000);
  let allExited: (() => void) | undefined;
  const fork = () => {
    const child = cluster.fork();
    const forkedAt = performance.now();
    running.add(child);
    child.once("exit", (code, signal) => {
      running.delete(child);
      if (stopping) {
        if (running.size === 0) allExited?.();
        return;
      }
      if (performance.now() - forkedAt >= HEALTHY_RUN_MS) backoff.reset();
      const waitMs = backoff.next();
      console.error(
        `an API process exited (${signal ?? `code ${code}`}); starting another in ${(waitMs / 1000).toFixed(1)} s (${running.size} of ${processes} serving)`,
      );
      const timer = setTimeout(() => {
        respawns.delete(timer);
        if (!stopping) fork();
      }, waitMs);
      respawns.add(timer);
    });
  };
  for (let i = 0; i < processes; i++) fork();
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    for (const timer of respawns) clearTimeout(timer);
    const exited = new Promise<void>((resolve) => {
      allExited = resolve;
    });
    for (const child of running) if (!child.isDead()) child.process.kill("SIGTERM");
    if (running.size > 0) await exited;
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop());
  process.on("SIGINT", () => void stop());
}

/**
 * The worker's probe server (/health, /ready, /metrics) on WORKER_PORT. The default, 3001, may be
 * taken by another worker on this host: then any free port, named in the log.
 */
async function listenForProbes(
  probes: ReturnType<typeof buildWorkerApp>,
  config: Config,
  log: { warn(obj: object, msg: string): void },
): Promise<number> {
  const listen = (port: number) => probes.listen({ port, host: config.host });
  try {
    await listen(config.workerPort);
  } catch (err) {
    if (!isPortError(err)) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (config.workerPort !== DEFAULT_WORKER_PORT || code !== "EADDRINUSE") {
      throw new PortUnavailableError(config.host, config.workerPort, "WORKER_PORT", code);
    }
    await listen(0);
    const port = (probes.server.address() as { port: number }).port;
    log.warn(
      { defaultPort: config.workerPort, port },
      "WORKER_PORT 3001 (the default) taken, by another worker on this host?: probes on another port",
    );
  }
  return (probes.server.address() as { port: number }).port;
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
  // Forked API processes share the port their parent checked and holds for them; they serve no
  // probes of their own, so WORKER_PORT is none of their business. A worker's probe port is
  // checked when it listens (listenForProbes: the default may move).
  if (role !== "worker" && cluster.isPrimary) await assertPortFree(config.host, config.port, "PORT");
  else if (role === "worker" && config.workerPort !== DEFAULT_WORKER_PORT) {
    await assertPortFree(config.host, config.workerPort, "WORKER_PORT");
  }
  const log = startLogger(config);
  let step = performance.now();
  const database = await openDatabase(targetFromConfig(config), {
    timeouts: { connectMs: config.dbConnectTimeoutMs, queryMs: config.dbQueryTimeoutMs },
    poolSize: config.databasePoolSize,
    minFreeBytes: config.diskMinFreeBytes,
    genericPlans: role === "worker",
    log: (fields, message) => log.info(fields, message),
  });
  log.info({ database: database.kind, ms: elapsedMs(step) }, "database open");
  step = performance.now();
  await migrateWhenReachable(database, config);
  log.info({ ms: elapsedMs(step) }, "migrations checked");

  step = performance.now();
  const metrics = createMetrics(database, { processMetrics: true });
  const app = await buildApp({ config, database, metrics });
  app.log.info({ ms: elapsedMs(step) }, "routes ready");
  const stoppers: Array<() => Promise<void>> = [];
  // A host clock off by more than a second is logged (db/database-clock.ts); a dispatcher checks its own.
  if (role === "api") {
    await databaseClock(database.db, { log: app.log })
      .sync()
      .catch((err: unknown) =>
        app.log.warn({ err }, "could not compare this process's clock with the database's"),
      );
  }
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
    // Orders at risk, overdue rentals, due-back reminders: once each across workers (CONTRACT 12).
    const stopSweep = startOrderAlertSweep(
      serviceContext({ config, database }),
      config.orderSweepMs,
      app.log,
    );
    stoppers.push(async () => stopSweep());

    // Photo blobs whose rows went (an erasure) but the store did not confirm: deleted again.
    const blobSweep = setInterval(() => {
      finishBlobDeletions(serviceContext({ config, database })).catch((err: unknown) =>
        app.log.error({ err }, "deleting recorded photo blobs failed"),
      );
    }, HOUSEKEEPING_EVERY_MS);
    blobSweep.unref();
    stoppers.push(async () => clearInterval(blobSweep));
  }
  let probesPort: number | undefined;
  if (role === "worker") {
    const probes = buildWorkerApp(config, database, metrics, app.log);
    probesPort = await listenForProbes(probes, config, app.log);
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
    {
      role,
      database: database.kind,
      publicUrl: config.publicUrl,
      controlSocket: control?.path,
      ...(probesPort !== undefined ? { probesPort } : {}),
      startMs: Math.round(performance.now()),
    },
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
    err instanceof PortUnavailableError ||
    err instanceof StartError
  ) {
    console.error(err.message);
  } else {
    console.error(err);
  }
  process.exit(1);
});
