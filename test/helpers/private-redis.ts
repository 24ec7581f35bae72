// A redis-server of the test's own (a random port, a scratch directory, nothing saved), for the
// tests that share counters between instances or stop Redis with SIGSTOP: the machine's Redis is
// never touched, and the suite needs only the `redis-server` binary, not a running Redis.
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { Redis } from "ioredis";
import { onPath } from "./machine.ts";
import { freePort } from "./ports.ts";
import { tempDir } from "./temp-dir.ts";
import { eventually } from "./webhook-receiver.ts";

const REDIS_SERVER = onPath("redis-server");

export const hasRedisServer = REDIS_SERVER !== undefined;
export const redisServerMissing = "skipped: no redis-server on PATH (apt-get install redis-server)";

export interface PrivateRedis {
  readonly url: string;
  /** A client of this server, for reading what the service counted. */
  readonly client: Redis;
  /** SIGSTOP / SIGCONT: a Redis that accepts connections and answers nothing. */
  freeze(): void;
  thaw(): void;
  /** Kills the server (thawed first), disconnects the client and removes the directory. */
  destroy(): Promise<void>;
}

export async function startPrivateRedis(prefix: string): Promise<PrivateRedis> {
  if (!REDIS_SERVER) throw new Error(redisServerMissing);
  const dir = tempDir(prefix);
  const port = await freePort();
  // A file, not a pipe: a started server would hold an inherited pipe open.
  const out = fs.openSync(path.join(dir, "redis.log"), "w");
  const server: ChildProcess = spawn(
    REDIS_SERVER,
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
    { stdio: ["ignore", out, out] },
  );
  fs.closeSync(out);
  const exited = new Promise<void>((resolve) => server.once("exit", () => resolve()));
  const client = new Redis({ port, host: "127.0.0.1", retryStrategy: () => 50 });
  client.on("error", () => {}); // refused until the server listens
  await eventually(async () => (await client.ping().catch(() => undefined)) === "PONG");
  return {
    url: `redis://127.0.0.1:${port}`,
    client,
    freeze: () => server.kill("SIGSTOP"),
    thaw: () => server.kill("SIGCONT"),
    async destroy() {
      client.disconnect();
      if (server.exitCode === null && server.signalCode === null) {
        server.kill("SIGCONT");
        server.kill("SIGKILL");
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
