// CONTRACT 3 and 9: `api-key create --scope …` makes a restricted key; without --scope a key
// holds every scope. Runs the real CLI, then the real app on the same database.
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import { type Database, openDatabase, targetFromConfig } from "../../src/db/client.ts";
import { migratedDataDir } from "../helpers/child-build.ts";
import { runCliJson } from "../helpers/processes.ts";

let dataDir = "";
let env: Record<string, string> = {};

const cli = (...args: string[]) => runCliJson(env, args);

let restricted: string;
let unrestricted: string;
let database: Database;
let app: FastifyInstance;
beforeAll(async () => {
  dataDir = await migratedDataDir("cli-scopes");
  env = {
    ...(process.env as Record<string, string>),
    NODE_ENV: "test",
    DATA_DIR: dataDir,
    ...(process.env.TEST_DATABASE_URL ? { DATABASE_URL: process.env.TEST_DATABASE_URL } : {}),
  };
  const email = `cli-${randomUUID()}@example.test`;
  await cli(
    "vendor",
    "create",
    "--name",
    "CLI Bridal",
    "--email",
    email,
    "--password",
    "long enough password",
  );
  restricted = (
    await cli(
      "api-key",
      "create",
      "--vendor",
      email,
      "--name",
      "r",
      "--scope",
      "customers:read",
      "--scope",
      "profile:read",
    )
  ).key;
  unrestricted = (await cli("api-key", "create", "--vendor", email, "--name", "all")).key;
  // The CLI has exited (and released a PGlite directory): the service opens the same database.
  const config = loadConfig(env);
  database = await openDatabase(targetFromConfig(config));
  app = await buildApp({ config, database });
});
afterAll(async () => {
  await app?.close();
  await database?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const get = (url: string, key: string) => app.inject({ method: "GET", url, headers: { "x-api-key": key } });

describe("api-key create --scope", () => {
  it("a restricted key may do what its scopes grant", async () => {
    expect((await get("/api/vendor/customers", restricted)).statusCode).toBe(200);
    expect((await get("/api/vendor/profile", restricted)).statusCode).toBe(200);
  });

  it("and nothing else: 403 insufficient_scope naming the scope", async () => {
    const res = await get("/api/vendor/appointments", restricted);
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe("insufficient_scope");
    expect(res.headers["www-authenticate"]).toContain('scope="appointments:read"');
    const write = await app.inject({
      method: "POST",
      url: "/api/vendor/customers",
      headers: { "x-api-key": restricted, "content-type": "application/json" },
      payload: { name: "X" },
    });
    expect(write.statusCode).toBe(403);
  });

  it("a key created without --scope holds every scope", async () => {
    for (const url of [
      "/api/vendor/orders",
      "/api/vendor/customers",
      "/api/vendor/appointments",
      "/api/vendor/inquiries",
      "/api/vendor/profile",
    ]) {
      expect((await get(url, unrestricted)).statusCode, url).toBe(200);
    }
  });
});
