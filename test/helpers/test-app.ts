// Builds the real app on a real database and a real listening socket for one test file:
// PGlite in memory by default, the PostgreSQL of TEST_DATABASE_URL when it is set.
import net from "node:net";
import type { FastifyInstance } from "fastify";
import { buildApp } from "../../src/app.ts";
import { type Config, loadConfig } from "../../src/config.ts";
import { type AppDeps, type ServiceContext, serviceContext } from "../../src/context.ts";
import { type Database, openDatabase } from "../../src/db/client.ts";
import { runMigrations } from "../../src/db/migrate.ts";
import type { Resolver } from "../../src/events/url-guard.ts";
import { type ApiClient, apiClient } from "./api-client.ts";

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
}

export async function openTestDatabase(url = process.env.TEST_DATABASE_URL): Promise<Database> {
  const database = await openDatabase(url ? { kind: "pg", url } : { kind: "pglite", dataDir: undefined });
  await runMigrations(database);
  return database;
}

export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database = await openTestDatabase(options.databaseUrl);
  // PUBLIC_URL (problem types, OAuth issuer) must name the real port, so reserve one first.
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const config: Config = Object.freeze({
    ...loadConfig({ NODE_ENV: "test", WEBHOOK_ALLOW_PRIVATE_URLS: "true", PUBLIC_URL: url, ...options.env }),
    ...options.config,
  });
  const deps: AppDeps = {
    config,
    database,
    ...(options.now ? { now: options.now } : {}),
    ...(options.resolver ? { resolver: options.resolver } : {}),
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
    },
  };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address() as net.AddressInfo;
      server.close(() => resolve(address.port));
    });
  });
}

/** A clock that moves `stepMs` per call, so ordering by time is deterministic in tests. */
export function tickingClock(start = Date.now(), stepMs = 1): () => Date {
  let t = start;
  return () => {
    t += stepMs;
    return new Date(t);
  };
}
