// Builds the real app on a real database and a real listening socket for one test file:
// PGlite in memory by default, the PostgreSQL of TEST_DATABASE_URL when it is set.
//
// Speed: a fresh PGlite costs ~4 s and ~770 MB, so each vitest worker opens ONE in-memory PGlite,
// loaded from the run's migrated template, and lends it to every test file it runs
// (vitest.config.ts sets isolate: false, so this module and the instance outlive a file). That is the same sharing the suite already has
// on PostgreSQL, and safe for the same reason: every test makes its own vendor. Each file still
// builds its own app (its own config, clock, rate-limit budgets and sign-in throttle).
import { PGlite } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll } from "vitest";
import { buildApp } from "../../src/app.ts";
import { type Config, loadConfig } from "../../src/config.ts";
import { type AppDeps, type ServiceContext, serviceContext } from "../../src/context.ts";
import { type Database, openDatabase, pgliteDatabase } from "../../src/db/client.ts";
import { runMigrations } from "../../src/db/migrate.ts";
import type { Resolver } from "../../src/webhook-delivery/url-guard.ts";
import { type ApiClient, apiClient } from "./api-client.ts";
import { migratedDataDirTar } from "./child-build.ts";
import { pgTarget } from "./pooler.ts";
import { freePort } from "./ports.ts";
import { createScratchDatabase } from "./scratch-database.ts";

export interface TestApp {
  app: FastifyInstance;
  url: string;
  config: Config;
  database: Database;
  ctx: ServiceContext;
  api: ApiClient;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  config?: Partial<Config>;
  now?: () => Date;
  /** DNS for webhook URLs (SSRF tests pass a stub). */
  resolver?: Resolver;
  /** A PostgreSQL database other than TEST_DATABASE_URL (a scratch database of the file's own). */
  databaseUrl?: string;
  /** A database the test opened (and migrated) itself, e.g. with its own timings; closed with the app. */
  database?: Database;
  /**
   * The file runs a webhook dispatcher or counts NOTIFYs: on PostgreSQL it gets a scratch
   * database of its own, so dispatchers of files running side by side never claim each other's
   * deliveries (each with its own retry delays and breaker settings), and a listener hears only
   * its own file's writes; and a file that checks incremental sync is not held back by another
   * file's open transaction (the sync horizon is the oldest one on the database). PGlite files in
   * one worker never overlap; there the file starts with nothing queued by the files before it
   * (dropEarlierFilesQueues).
   */
  ownDatabase?: boolean;
  /** Receives every log line the app writes (set LOG_LEVEL in env to see more than errors). */
  logStream?: { write(line: string): void };
}

/**
 * A migrated database for one test file; `close()` gives it back. PGlite: a lease on the worker's
 * shared instance (its own Drizzle handle, so `queryCount()` counts only this lease's statements).
 * PostgreSQL: a pool of its own on `url`.
 */
export async function openTestDatabase(url = process.env.TEST_DATABASE_URL): Promise<Database> {
  if (url) {
    const database = await openDatabase(pgTarget(url));
    if (!migrated.has(url)) {
      await runMigrations(database);
      migrated.add(url);
    }
    return database;
  }
  return leasePglite(await workerPglite());
}

/** Opens (once per worker) the shared PGlite, if PGlite is what tests will use. */
export async function warmTestDatabase(): Promise<void> {
  if (!process.env.TEST_DATABASE_URL) await workerPglite();
}

const migrated = new Set<string>();
let shared: Promise<PGlite> | undefined;

function workerPglite(): Promise<PGlite> {
  shared ??= (async () => {
    // The run's migrated template (child-build.ts), loaded into memory; migrating finds nothing
    // left to apply and only checks.
    const client = await PGlite.create({ loadDataDir: await migratedDataDirTar() });
    await runMigrations(pgliteDatabase(client, async () => {}));
    return client;
  })();
  return shared;
}

/**
 * On PGlite a file's "database of its own" is the worker's shared one, with the outbox emptied of
 * what the files before it left queued: they have ended (a worker runs its files one after
 * another), but a dispatcher this file starts would send their due deliveries and mails too, and
 * its events (a claim, an attempt settled) would not be this file's alone. A breaker test counted
 * another file's sends (CI), and a clock-skew test read its own delivery after another's attempt
 * settled (a run under load).
 */
async function dropEarlierFilesQueues(database: Database): Promise<void> {
  await database.db.execute(sql`delete from webhook_deliveries where status = 'PENDING'`);
  await database.db.execute(sql`delete from mails where status = 'PENDING'`);
}

function leasePglite(client: PGlite): Database {
  // Listeners a file forgot to stop must not wake the next file's code.
  const unlisteners = new Set<() => Promise<void>>();
  const lease = pgliteDatabase(client, async () => {
    await Promise.all([...unlisteners].map((unlisten) => unlisten()));
  });
  return {
    ...lease,
    async listen(channel, fn, onLost) {
      const unlisten = await lease.listen(channel, fn, onLost);
      const once = async () => {
        if (unlisteners.delete(once)) await unlisten();
      };
      unlisteners.add(once);
      return once;
    },
  };
}

/**
 * The app of this test file: started in beforeAll, closed in afterAll. The object it returns
 * stands for the app once it runs, so read its fields inside tests and hooks, not at module level.
 */
export function useTestApp(options: TestAppOptions = {}): TestApp {
  let started: TestApp | undefined;
  beforeAll(async () => {
    started = await startTestApp(options);
  });
  afterAll(() => started?.close());
  return new Proxy({} as TestApp, {
    get(_, field) {
      if (!started) throw new Error("useTestApp: the app starts in beforeAll; use it inside tests and hooks");
      return started[field as keyof TestApp];
    },
  });
}

export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const pgUrl = process.env.TEST_DATABASE_URL;
  const scratch =
    options.ownDatabase && pgUrl && !options.databaseUrl && !options.database
      ? await createScratchDatabase(pgUrl)
      : undefined;
  const database = options.database ?? (await openTestDatabase(scratch?.url ?? options.databaseUrl));
  if (options.ownDatabase && !pgUrl && !options.database) await dropEarlierFilesQueues(database);
  // PUBLIC_URL (problem types, OAuth issuer) must name the real port, so reserve one first.
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const config: Config = Object.freeze({
    ...loadConfig({
      NODE_ENV: "test",
      WEBHOOK_ALLOW_PRIVATE_URLS: "true",
      PUBLIC_URL: url,
      // Every test file speaks from 127.0.0.1 and many check 401s: the per-address failure budget
      // would refuse a file's later fresh keys. Tests of that budget set it themselves.
      AUTH_FAILURES_PER_MINUTE: "100000",
      // Every test shop is new (made this minute) and every sign-up comes from 127.0.0.1: a new
      // shop's mail budget and the sign-up mails per client would hold or skip the mail that other
      // files check. Tests of those budgets (test/mail/mail-budget.test.ts) set them themselves.
      MAIL_BUDGET_NEW_SHOP_HOUR: "100000",
      MAIL_BUDGET_NEW_SHOP_DAY: "100000",
      SIGNUP_MAILS_PER_CLIENT: "100000",
      // A file's app closes in afterAll, its own clients done: the drain's wait for clients that
      // may still send (1 s by default) would add a second to every file. The drain's own tests
      // set it back.
      SHUTDOWN_IDLE_CLOSE_MS: "0",
      ...options.env,
    }),
    ...options.config,
  });
  const deps: AppDeps = {
    config,
    database,
    ...(options.now ? { now: options.now } : {}),
    ...(options.resolver ? { resolver: options.resolver } : {}),
    ...(options.logStream ? { logStream: options.logStream } : {}),
  };
  const app = await buildApp(deps);
  await app.listen({ port, host: "127.0.0.1" });
  return {
    app,
    url,
    config,
    database,
    ctx: serviceContext(deps),
    api: apiClient(url),
    async close() {
      await app.close();
      await database.close();
      await scratch?.drop();
    },
  };
}

/** @deprecated import it from ./clock.ts, the home of test clocks (kept for tests in flight). */
export { tickingClock } from "./clock.ts";
