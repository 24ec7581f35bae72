// The service as an operator runs it: a fresh data directory, the CLI, one process per PGlite
// directory, and a graceful SIGTERM.
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migratedDataDir } from "../helpers/child-build.ts";
import { freePort } from "../helpers/ports.ts";
import { runCli, type ServerProcess, startServer, waitForHealth } from "../helpers/processes.ts";
import { createScratchDatabase, type ScratchDatabase } from "../helpers/scratch-database.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { eventually } from "../helpers/webhook-receiver.ts";

let dataDir: string;
let env: Record<string, string>;
const servers: ServerProcess[] = [];

let scratch: ScratchDatabase | undefined;
const dataDirs: string[] = [];

beforeAll(async () => {
  dataDir = tempDir("ops");
  // PGlite under a fresh (nested, not yet existing) directory; on PostgreSQL a database of its own.
  if (process.env.TEST_DATABASE_URL) scratch = await createScratchDatabase(process.env.TEST_DATABASE_URL);
  env = scratch
    ? { DATABASE_URL: scratch.url, DATA_DIR: dataDir }
    : { DATA_DIR: path.join(dataDir, "nested", "data") };
});
afterAll(async () => {
  for (const s of servers) if (s.child.exitCode === null) s.child.kill("SIGKILL");
  await Promise.all(servers.map((s) => s.exited));
  await scratch?.drop();
  for (const dir of [dataDir, ...dataDirs]) fs.rmSync(dir, { recursive: true, force: true });
});

// Each child process compiles TypeScript on start: generous timeouts on a loaded 2-core machine.
describe("operating the service", { timeout: 300_000 }, () => {
  it("the CLI creates a vendor and a key (--json), and the key creates and moves an order over HTTP", async () => {
    const email = `cli-${Date.now()}@example.test`;
    const vendor = await runCli(
      [
        "vendor",
        "create",
        "--name",
        "Atelier Lisboa",
        "--email",
        email,
        "--password",
        "a long password",
        "--json",
      ],
      env,
    );
    expect(vendor.code, vendor.stderr).toBe(0);
    const v = JSON.parse(vendor.stdout);
    // The shop's language and time zone are its defaults when the command names neither (CONTRACT 12).
    expect(v).toEqual({
      id: expect.any(String),
      name: "Atelier Lisboa",
      email,
      language: "en",
      timeZone: "UTC",
    });

    const key = await runCli(["api-key", "create", "--vendor", email, "--name", "POS", "--json"], env);
    expect(key.code, key.stderr).toBe(0);
    const k = JSON.parse(key.stdout);
    expect(k).toEqual({ id: expect.any(String), key: expect.stringMatching(/^vk_/) });

    const restricted = await runCli(
      ["api-key", "create", "--vendor", v.id, "--name", "read", "--scope", "orders:read", "--json"],
      env,
    );
    expect(restricted.code, restricted.stderr).toBe(0);
    const r = JSON.parse(restricted.stdout);

    const bad = await runCli(
      ["api-key", "create", "--vendor", v.id, "--name", "x", "--scope", "orders:fly"],
      env,
    );
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("orders:fly");

    const server = startServer([], env, await freePort());
    servers.push(server);
    await waitForHealth(server);

    const headers = { "x-api-key": k.key, "content-type": "application/json" };
    const created = await fetch(`${server.url}/api/vendor/orders`, {
      method: "POST",
      headers,
      body: JSON.stringify({ customerName: "Inês", type: "BRIDAL_DRESS" }),
    });
    expect(created.status).toBe(201);
    const order = (await created.json()) as { id: string };
    const moved = await fetch(`${server.url}/api/vendor/orders/${order.id}/status`, {
      method: "PUT",
      headers,
      body: JSON.stringify({ status: "IN_PRODUCTION", message: "Cutting the lace" }),
    });
    expect(moved.status).toBe(200);
    const denied = await fetch(`${server.url}/api/vendor/orders`, {
      method: "POST",
      headers: { ...headers, "x-api-key": r.key },
      body: JSON.stringify({ customerName: "X", type: "SUIT" }),
    });
    expect(denied.status).toBe(403);

    if (!process.env.TEST_DATABASE_URL) {
      // PGlite allows one process per directory: a second server refuses, clearly; the CLI asks
      // the running server instead (its control socket).
      const second = startServer([], env, await freePort());
      servers.push(second);
      expect(await second.exited).toBe(1);
      expect(second.output()).toMatch(/in use by another vendor-api process/);
      const cli = await runCli(["migrate", "--json"], env);
      expect(cli.code, cli.stderr).toBe(0);
      expect(JSON.parse(cli.stdout)).toEqual({ migrated: true });
    }

    // SIGTERM drains: a request in flight completes, then the process exits 0.
    const inFlight = fetch(`${server.url}/api/vendor/orders`, { headers: { "x-api-key": k.key } });
    await new Promise((r) => setTimeout(r, 5));
    server.child.kill("SIGTERM");
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(await server.exited, server.output().slice(-3000)).toBe(0);

    // The lock is released: the CLI may open the directory again.
    const migrate = await runCli(["migrate", "--json"], env);
    expect(migrate.code, migrate.stderr).toBe(0);
    expect(JSON.parse(migrate.stdout)).toEqual({ migrated: true });
  });

  it("a SIGKILLed server's stale lock does not block its restart", async () => {
    if (process.env.TEST_DATABASE_URL) return;
    // A database that already exists (the first run is the test above's): only the lock is new.
    const dir = await migratedDataDir("killed");
    dataDirs.push(dir);
    const first = startServer([], { DATA_DIR: dir }, await freePort());
    servers.push(first);
    await waitForHealth(first);
    first.child.kill("SIGKILL");
    await first.exited;
    const second = startServer([], { DATA_DIR: dir }, await freePort());
    servers.push(second);
    await waitForHealth(second);
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  });

  it("invalid configuration is reported all at once and the process exits 1", async () => {
    const server = startServer(
      [],
      { PORT: "abc", WEBHOOK_TIMEOUT_MS: "-5", DATABASE_URL: "mysql://x", LOG_LEVEL: "loud" },
      0,
    );
    servers.push(server);
    expect(await server.exited).toBe(1);
    expect(server.output()).toContain("PORT");
    expect(server.output()).toContain("WEBHOOK_TIMEOUT_MS");
    expect(server.output()).toContain("DATABASE_URL");
    expect(server.output()).toContain(
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")',
    );
    expect(server.output()).not.toMatch(/\n\s+at /);
  });

  it("a busy port is one line naming the port and PORT, before the database opens", async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const dir = path.join(dataDir, "busy");
      const server = startServer([], { DATA_DIR: dir }, port);
      servers.push(server);
      expect(await server.exited).toBe(1);
      expect(server.output().trim()).toBe(
        `Port ${port} on 127.0.0.1 is already in use (another vendor-api?): stop that process or set PORT.`,
      );
      // Nothing was opened: no database directory was created.
      expect(fs.existsSync(path.join(dir, "pglite"))).toBe(false);
    } finally {
      blocker.close();
    }
  });

  it("API_PROCESSES=2 --role api: two API processes serve one port, and a SIGTERM drains them all", async () => {
    if (!process.env.TEST_DATABASE_URL) {
      // PGlite serves one process: refused before anything opens, naming what is needed.
      const refused = startServer(["--role", "api"], { ...env, API_PROCESSES: "2" }, await freePort());
      servers.push(refused);
      expect(await refused.exited).toBe(1);
      expect(refused.output()).toContain("--role api/worker needs DATABASE_URL");
      return;
    }
    const server = startServer(["--role", "api"], { ...env, API_PROCESSES: "2" }, await freePort());
    servers.push(server);
    await waitForHealth(server);
    const apiChildren = () =>
      fs
        .readdirSync(`/proc/${server.child.pid}/task`)
        .flatMap((tid) =>
          fs.readFileSync(`/proc/${server.child.pid}/task/${tid}/children`, "utf8").trim().split(/\s+/),
        )
        .filter((pid) => pid && /main\.(ts|js)\0/.test(fs.readFileSync(`/proc/${pid}/cmdline`, "utf8")));
    // Both forked API processes are up and listening on the parent's port.
    const children = await eventually(async () => {
      const forked = apiChildren();
      return forked.length >= 2 && forked;
    }, 20_000);
    expect(children).toHaveLength(2);
    for (let i = 0; i < 6; i++) {
      const res = await fetch(`${server.url}/ready`, { headers: { connection: "close" } });
      expect(res.status).toBe(200);
    }
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    for (const pid of children) expect(fs.existsSync(`/proc/${pid}`)).toBe(false);
  });

  it("API_PROCESSES > 1 without --role api is refused (the dispatcher runs apart)", async () => {
    const server = startServer([], { ...env, API_PROCESSES: "2" }, await freePort());
    servers.push(server);
    expect(await server.exited).toBe(1);
    expect(server.output()).toContain("API_PROCESSES > 1 needs --role api");
  });

  it("an unknown server option prints the usage and exits 2", async () => {
    const server = startServer(["--rol", "api"], {}, 0);
    servers.push(server);
    expect(await server.exited).toBe(2);
    expect(server.output().trim()).toBe(
      "Unknown option '--rol'\nUsage: vendor-api-server [--role all|api|worker]",
    );
  });
});
