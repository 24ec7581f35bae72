// The embedded database's files are this account's alone: after a real start
// under the usual umask 022, every path under DATA_DIR is a 0700 directory or a 0600 file, on a
// first run and on a directory an older version left open to everyone.
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { migratedDataDir } from "../helpers/child-build.ts";
import { freePort } from "../helpers/ports.ts";
import {
  childEnv,
  runCliJson,
  type ServerProcess,
  startServer,
  vendorWithKeyByCli,
  waitForHealth,
} from "../helpers/processes.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const servers: ServerProcess[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const s of servers) if (s.child.exitCode === null) s.child.kill("SIGKILL");
  await Promise.all(servers.map((s) => s.exited));
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** Starts the server as a shell with umask 022 would: the child inherits the umask at spawn. */
async function startUnderUmask022(
  dataDir: string,
): Promise<{ server: ServerProcess; env: NodeJS.ProcessEnv }> {
  const port = await freePort();
  const env = childEnv({ DATA_DIR: dataDir, PORT: String(port) });
  const previous = process.umask(0o022);
  let server: ServerProcess;
  try {
    server = startServer([], env, port);
  } finally {
    process.umask(previous);
  }
  servers.push(server);
  await waitForHealth(server);
  return { server, env };
}

/** Every path under `root` (itself included) whose mode lets group or others in, with its mode. */
function openPaths(root: string): string[] {
  const found: string[] = [];
  const walk = (file: string) => {
    const stat = fs.lstatSync(file);
    if (stat.isSymbolicLink()) return;
    const mode = stat.mode & 0o777;
    const wanted = stat.isDirectory() ? 0o700 : 0o600;
    if (mode !== wanted) found.push(`${path.relative(root, file) || "."} ${mode.toString(8)}`);
    if (stat.isDirectory()) for (const name of fs.readdirSync(file)) walk(path.join(file, name));
  };
  walk(root);
  return found;
}

/** Writes through the running server (the CLI's socket, then the API), so the WAL moves on. */
async function write(server: ServerProcess, env: NodeJS.ProcessEnv) {
  const { key } = await vendorWithKeyByCli(env, "Modes");
  for (let i = 0; i < 5; i++) {
    const res = await fetch(`${server.url}/api/vendor/customers`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ name: `Customer ${i}`, email: `c${i}@example.test` }),
    });
    expect(res.status).toBe(201);
  }
  expect(await runCliJson(env, ["vendor", "list"])).toBeDefined();
}

describe("DATA_DIR modes whatever the umask", { timeout: 240_000 }, () => {
  it("a first run under umask 022 leaves every directory 0700 and every file 0600", async () => {
    const parent = tempDir("modes-fresh");
    dirs.push(parent);
    const dataDir = path.join(parent, "data");
    const { server, env } = await startUnderUmask022(dataDir);
    await write(server, env);
    expect(fs.readdirSync(dataDir).length).toBeGreaterThan(0);
    expect(openPaths(dataDir)).toEqual([]);
  });

  it("a directory left open to everyone is closed at start, and what is written later stays closed", async () => {
    const dataDir = await migratedDataDir("modes-open");
    dirs.push(dataDir);
    const loosen = (file: string) => {
      const stat = fs.lstatSync(file);
      fs.chmodSync(file, stat.isDirectory() ? 0o777 : 0o666);
      if (stat.isDirectory()) for (const name of fs.readdirSync(file)) loosen(path.join(file, name));
    };
    loosen(dataDir);
    expect(openPaths(dataDir).length).toBeGreaterThan(100);
    const { server, env } = await startUnderUmask022(dataDir);
    await write(server, env);
    expect(openPaths(dataDir)).toEqual([]);
  });
});
