// Process entry: config → database → migrations → HTTP server and/or the webhook dispatcher
// (`--role all|api|worker`). SIGTERM/SIGINT drain in-flight requests and deliveries (up to
// SHUTDOWN_GRACE_MS), then exit 0.
import { parseArgs } from "node:util";
import { buildApp } from "./app.ts";
import { ConfigError, loadConfig, type Role } from "./config.ts";
import { openDatabase, targetFromConfig } from "./db/client.ts";
import { DataDirLockedError } from "./db/data-dir-lock.ts";
import { runMigrations } from "./db/migrate.ts";
import { startDispatcher } from "./events/dispatcher.ts";
import { startHousekeeping } from "./maintenance/housekeeping.ts";

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { role: { type: "string", default: "all" } }, strict: true });
  const role = values.role as Role;
  if (!["all", "api", "worker"].includes(role)) throw new ConfigError([`--role must be all, api or worker`]);

  const config = loadConfig();
  if (role !== "all" && !config.databaseUrl) {
    throw new ConfigError(["--role api/worker needs DATABASE_URL: PGlite serves one process only"]);
  }
  const database = await openDatabase(targetFromConfig(config));
  await runMigrations(database);

  const app = await buildApp({ config, database });
  const stoppers: Array<() => Promise<void>> = [];
  if (role !== "worker") {
    await app.listen({ port: config.port, host: config.host });
    stoppers.push(() => app.close());
  }
  if (role !== "api") {
    const dispatcher = await startDispatcher({ config, database, log: app.log });
    stoppers.push(() => dispatcher.stop(config.shutdownGraceMs));
    const stopHousekeeping = startHousekeeping(database.db, () => new Date(), app.log);
    stoppers.push(async () => stopHousekeeping());
  }
  app.log.info({ role, database: database.kind, publicUrl: config.publicUrl }, "vendor-api started");

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
  if (err instanceof ConfigError || err instanceof DataDirLockedError) {
    console.error(err.message);
  } else {
    console.error(err);
  }
  process.exit(1);
});
