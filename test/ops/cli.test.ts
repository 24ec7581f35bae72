// The operator CLI as an operator runs it: a real process per command, with the server running
// (on PGlite the command travels over the server's control socket; on PostgreSQL the CLI opens
// the database beside the server). Every command, its --json answer, and its errors.
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migratedDataDir } from "../helpers/child-build.ts";
import { freePort } from "../helpers/ports.ts";
import { runCli, type ServerProcess, startServer, waitForHealth } from "../helpers/processes.ts";
import { createScratchDatabase, type ScratchDatabase } from "../helpers/scratch-database.ts";

let dataDir: string;
let env: Record<string, string>;
let server: ServerProcess;
let scratch: ScratchDatabase | undefined;

const cli = async (args: string[], input?: string) => {
  const r = await runCli(args, env, input);
  return { ...r, json: r.stdout.trim() ? safeJson(r.stdout) : undefined };
};
const safeJson = (s: string) => {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
};

beforeAll(async () => {
  dataDir = await migratedDataDir("cli");
  if (process.env.TEST_DATABASE_URL) scratch = await createScratchDatabase(process.env.TEST_DATABASE_URL);
  env = {
    DATA_DIR: dataDir,
    WEBHOOK_ALLOW_PRIVATE_URLS: "true",
    ...(scratch ? { DATABASE_URL: scratch.url } : {}),
  };
  server = startServer([], env, await freePort());
  await waitForHealth(server, 90_000);
}, 120_000);
afterAll(async () => {
  if (server && server.child.exitCode === null) server.child.kill("SIGTERM");
  await server?.exited;
  await scratch?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe("the CLI while the server runs", { timeout: 180_000 }, () => {
  it("runs every command, answering one JSON document with --json", async () => {
    const email = `owner-${Date.now()}@bella.example`;
    // The password from standard input, never on the command line.
    const created = await cli(
      ["vendor", "create", "--name", "Bella Bridal", "--email", email, "--password-stdin", "--json"],
      "a long secret\n",
    );
    expect(created.code, created.stderr).toBe(0);
    expect(created.json).toEqual({
      id: expect.any(String),
      name: "Bella Bridal",
      email,
      language: "en",
      timeZone: "UTC",
    });
    const vendorId = created.json.id as string;

    // The password read from stdin signs in (the trailing newline is not part of it).
    const signIn = await fetch(`${server.url}/login`);
    expect(signIn.status).toBe(200);

    const again = await cli(
      ["vendor", "create", "--name", "B", "--email", email, "--password-stdin", "--json"],
      "another long one",
    );
    expect(again.code).toBe(1);
    expect(again.json).toEqual({
      error: expect.objectContaining({
        code: "validation_failed",
        errors: [{ field: "email", message: "is already registered" }],
      }),
    });

    const vendors = await cli(["vendor", "list", "--json"]);
    expect(vendors.code, vendors.stderr).toBe(0);
    expect(vendors.json.vendors).toContainEqual({
      id: vendorId,
      name: "Bella Bridal",
      email,
      createdAt: expect.any(String),
    });

    const key = await cli(["api-key", "create", "--vendor", email, "--name", "Shop POS", "--json"]);
    expect(key.code, key.stderr).toBe(0);
    expect(key.json).toEqual({ id: expect.any(String), key: expect.stringMatching(/^vk_/) });
    const headers = { "x-api-key": key.json.key, "content-type": "application/json" };

    const hook = await fetch(`${server.url}/api/vendor/webhooks`, {
      method: "POST",
      headers,
      body: JSON.stringify({ url: "http://127.0.0.1:9/hook", events: ["order.created"] }),
    });
    expect(hook.status).toBe(201);
    const webhook = (await hook.json()) as { id: string; secret: string };
    const hooks = await cli(["webhook", "list", "--vendor", vendorId, "--json"]);
    expect(hooks.code, hooks.stderr).toBe(0);
    expect(hooks.json.webhooks).toEqual([
      expect.objectContaining({ id: webhook.id, url: "http://127.0.0.1:9/hook", status: "ACTIVE" }),
    ]);
    expect(hooks.stdout).not.toContain(webhook.secret);

    const keys = await cli(["api-key", "list", "--vendor", email, "--json"]);
    expect(keys.code, keys.stderr).toBe(0);
    expect(keys.json.apiKeys).toEqual([
      expect.objectContaining({
        id: key.json.id,
        name: "Shop POS",
        prefix: key.json.key.slice(0, 10),
        revokedAt: null,
      }),
    ]);
    expect(keys.stdout).not.toContain(key.json.key);

    const revoked = await cli(["api-key", "revoke", "--vendor", email, key.json.id, "--json"]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.json).toEqual({ id: key.json.id, revoked: true });
    expect((await fetch(`${server.url}/api/vendor/orders`, { headers })).status).toBe(401);

    const app = await cli([
      "app",
      "create",
      "--vendor",
      email,
      "--name",
      "Planner",
      "--redirect-uri",
      "https://planner.example/callback",
      "--json",
    ]);
    expect(app.code, app.stderr).toBe(0);
    expect(app.json).toEqual({
      clientId: expect.stringMatching(/^app_/),
      clientSecret: expect.stringMatching(/^vcs_/),
    });
    const apps = await cli(["app", "list", "--vendor", email, "--json"]);
    expect(apps.code, apps.stderr).toBe(0);
    expect(apps.json.applications).toEqual([
      expect.objectContaining({
        clientId: app.json.clientId,
        name: "Planner",
        redirectUris: ["https://planner.example/callback"],
      }),
    ]);
    const deleted = await cli(["app", "delete", "--vendor", email, apps.json.applications[0].id, "--json"]);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.json).toEqual({ id: apps.json.applications[0].id, deleted: true });

    const gone = await cli(["app", "delete", "--vendor", email, apps.json.applications[0].id, "--json"]);
    expect(gone.code).toBe(1);
    expect(gone.json).toEqual({ error: { code: "not_found", message: "Application not found" } });

    const reset = await cli(["vendor", "reset-password", "--vendor", email, "--json"]);
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.json).toEqual({
      vendorId,
      url: expect.stringMatching(/\/reset-password\?token=vpr_[\w-]+$/),
      expiresAt: expect.any(String),
    });
    const resetUrl = new URL(reset.json.url);
    expect((await fetch(`${server.url}${resetUrl.pathname}${resetUrl.search}`)).status).toBe(200);

    const migrate = await cli(["migrate", "--json"]);
    expect(migrate.code, migrate.stderr).toBe(0);
    expect(migrate.json).toEqual({ migrated: true });

    // Without --json: readable lines, the key shown once.
    const text = await cli([
      "api-key",
      "create",
      "--vendor",
      email,
      "--name",
      "Reports",
      "--scope",
      "orders:read",
    ]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^Created API key \S+\. It is shown only now:\nvk_\S+\n$/);
  });

  it("an unknown vendor is an error naming it, as JSON with --json", async () => {
    const r = await cli(["api-key", "list", "--vendor", "nobody@nowhere.example", "--json"]);
    expect(r.code).toBe(1);
    expect(r.json).toEqual({
      error: { code: "not_found", message: 'Vendor "nobody@nowhere.example" not found' },
    });
    const text = await cli(["webhook", "list", "--vendor", "nobody@nowhere.example"]);
    expect(text.code).toBe(1);
    expect(text.stderr.trim()).toBe('error: Vendor "nobody@nowhere.example" not found');
  });
});

describe("the command line is checked before anything opens", { timeout: 120_000 }, () => {
  // Nothing listens on port 1: a command that got as far as the database would fail to connect.
  const unreachable = { DATABASE_URL: "postgres://postgres@127.0.0.1:1/none" };
  const run = (args: string[]) => runCli(args, unreachable);

  it("an unknown option prints the usage and exits 2, with no stack trace", async () => {
    const r = await run(["api-key", "list", "--vendor", "x@y.example", "--colour"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown option '--colour'");
    expect(r.stderr).toContain("Usage: vendor-api api-key list [options]");
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("with --json the usage error is one JSON document", async () => {
    const r = await run(["vendor", "create", "--name", "X", "--json"]);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toEqual({
      error: { code: "usage", message: "required option '--email <email>' not specified" },
    });
  });

  it("invalid values are refused before the database is reached", async () => {
    const r = await runCli(
      ["api-key", "create", "--vendor", "x@y.example", "--name", "k", "--scope", "orders:fly", "--json"],
      unreachable,
    );
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).error).toMatchObject({ code: "usage", errors: [{ field: "scope" }] });
    const bad = await run([
      "vendor",
      "create",
      "--name",
      "X",
      "--email",
      "not-an-email",
      "--password",
      "short",
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      "--email must be a valid e-mail address; --password must be 10-1024 characters",
    );
    // The same command with valid arguments does try the database (and fails to connect).
    const valid = await run(["vendor", "list", "--json"]);
    expect(valid.code).toBe(1);
    expect(JSON.parse(valid.stdout).error.code).toBe("internal_error");
  });

  it("no terminal and no --password-stdin: the password is not guessed from nothing", async () => {
    const r = await run(["vendor", "create", "--name", "X", "--email", "x@y.example"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--password-stdin");
  });

  it("every command has its own --help with examples", async () => {
    const r = await run(["app", "create", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Usage: vendor-api app create [options]");
    expect(r.stdout).toContain("Examples:\n  $ vendor-api app create --vendor");
  });
});
