import { DrizzleQueryError } from "drizzle-orm/errors";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import { type Database, openDatabase } from "../../src/db/client.ts";
import { apiClient } from "../helpers/api-client.ts";

// A PostgreSQL that does not answer (nothing listens on port 1): the service must say 503, not 500.
let database: Database;
let app: Awaited<ReturnType<typeof buildApp>>;
let api: ReturnType<typeof apiClient>;
const logLines: string[] = [];
beforeAll(async () => {
  database = await openDatabase({ kind: "pg", url: "postgres://postgres@127.0.0.1:1/nowhere" });
  app = await buildApp({
    config: loadConfig({ NODE_ENV: "test", LOG_LEVEL: "info" }),
    database,
    logStream: { write: (line) => logLines.push(line) },
  });
  // The errors a restart, a full disk or an exhausted server raise, as the drivers raise them
  // (pg's own messages and SQLSTATEs) and as Drizzle wraps them (its message carries the SQL).
  app.get("/fault/:name", async (request) => {
    const name = (request.params as { name: string }).name;
    const driverError = faults[name]?.();
    throw new DrizzleQueryError('insert into "orders" ("id") values ($1)', ["secret-value"], driverError);
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address() as { port: number };
  api = apiClient(`http://127.0.0.1:${address.port}`);
});
afterAll(async () => {
  await app.close();
  await database.close();
});

function sqlState(code: string, message: string): Error {
  const error = new pg.DatabaseError(message, 100, "error");
  error.code = code;
  return error;
}
const faults: Record<string, () => Error> = {
  // pg, for a statement on a client whose connection broke (a restart).
  "not-queryable": () => new Error("Client has encountered a connection error and is not queryable"),
  "closed-client": () => new Error("Client was closed and is not queryable"),
  "pool-ended": () => new Error("Cannot use a pool after calling end on the pool"),
  "disk-full": () => sqlState("53100", 'could not extend file "base/5/16384": No space left on device'),
  "out-of-memory": () => sqlState("53200", "out of memory"),
  "too-many-connections": () => sqlState("53300", "sorry, too many clients already"),
  "connection-failure": () => sqlState("08006", "connection failure"),
  "crash-shutdown": () =>
    sqlState("57P02", "terminating connection because of crash of another server process"),
  "io-error": () =>
    sqlState("58030", 'could not write to file "pg_wal/xlogtemp.123": No space left on device'),
  enospc: () => Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" }),
};

describe("errors that mean the database cannot serve now", () => {
  it.each(Object.keys(faults))("%s answers 503 unavailable with Retry-After, not 500", async (name) => {
    const res = await api.get(`/fault/${name}`);
    expect(res.status).toBe(503);
    expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe("unavailable");
    expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(res.text).not.toMatch(/secret-value|insert into|No space|base\//);
  });

  it("each refused request logs one short line (no stack, no SQL); the outage logs one line in all", async () => {
    const from = logLines.length;
    for (let i = 0; i < 20; i++) await api.get("/fault/not-queryable");
    const lines = logLines.slice(from).map((l) => JSON.parse(l));
    const refused = lines.filter((l) => l.msg === "503: database unavailable");
    expect(refused).toHaveLength(20);
    for (const line of refused) {
      expect(line.reason).toBe("Client has encountered a connection error and is not queryable");
      expect(JSON.stringify(line).length).toBeLessThan(400);
      expect(JSON.stringify(line)).not.toMatch(/stack|insert into|secret-value|\n\s+at /);
    }
    // Nothing else at warn or above: no stack per request.
    expect(lines.filter((l) => l.level >= 40 && l.msg !== "503: database unavailable")).toEqual(
      lines.filter((l) => l.msg === "database unreachable"),
    );
    const outageLines = logLines.map((l) => JSON.parse(l)).filter((l) => l.msg === "database unreachable");
    expect(outageLines).toHaveLength(1);
  });

  it("a unique violation is not unavailability (it stays the service's to answer)", async () => {
    faults.unique = () => sqlState("23505", "duplicate key value violates unique constraint");
    expect((await api.get("/fault/unique")).status).toBe(500);
  });
});

describe("when the database is unreachable", () => {
  it("/health still answers 200 (the process is alive)", async () => {
    expect((await api.get("/health")).status).toBe(200);
  });

  it("/ready answers 503 unavailable with Retry-After", async () => {
    const res = await api.get("/ready");
    expect(res.status).toBe(503);
    expect(res.body.code).toBe("unavailable");
    expect(res.headers.get("retry-after")).toBe("5");
  });

  it("an API call answers 503 unavailable with no internals in the body", async () => {
    const res = await api.get("/api/vendor/orders", {
      key: "vk_someKeyThatCannotBeCheckedRightNow000000000000",
    });
    expect(res.status).toBe(503);
    expect(res.body.code).toBe("unavailable");
    expect(res.text).not.toMatch(/ECONNREFUSED|nowhere|postgres:|stack|\n\s+at /);
  });
});
