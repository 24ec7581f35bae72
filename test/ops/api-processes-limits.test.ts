// API_PROCESSES=N without Redis: the forked API processes count one budget
// (in the primary, over node:cluster's IPC), not N budgets of the full size. PostgreSQL only:
// PGlite serves one process.
import { describe, expect, it } from "vitest";
import { freePort } from "../helpers/ports.ts";
import { childEnv, processBackends, startService, vendorWithKeyByCli } from "../helpers/processes.ts";

const LIMIT = 8;
const { backends, track } = processBackends("api-processes-limits");
const pg = Boolean(process.env.TEST_DATABASE_URL);

describe.skipIf(!pg)("API_PROCESSES=2 without Redis", { timeout: 180_000 }, () => {
  it.each(backends)("one budget per credential across the processes ($name)", async ({ db }) => {
    const env = childEnv({
      ...(await db()),
      PORT: String(await freePort()),
      API_PROCESSES: "2",
      RATE_LIMIT_PER_MINUTE: String(LIMIT),
    });
    const server = track(await startService(env, ["--role", "api"]));
    const { key } = await vendorWithKeyByCli(env, "Cluster");
    const statuses: number[] = [];
    const remaining: number[] = [];
    // A new connection each time: node:cluster hands connections to the processes in turn.
    for (let i = 0; i < 2 * LIMIT; i++) {
      const res = await fetch(`${server.url}/api/vendor/profile`, {
        headers: { "x-api-key": key, connection: "close" },
      });
      statuses.push(res.status);
      remaining.push(Number(res.headers.get("ratelimit-remaining")));
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(LIMIT);
    expect(statuses.slice(LIMIT)).toEqual(Array(LIMIT).fill(429));
    expect(remaining.slice(0, LIMIT)).toEqual(Array.from({ length: LIMIT }, (_, i) => LIMIT - 1 - i));
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
  });
});
