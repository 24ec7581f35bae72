// Writes refused while the disk under DATA_DIR is nearly full, with the free
// space measured by a probe the test controls (the fault hook; full-disk.test.ts fills a real
// tmpfs). Below the threshold: every write answers 503 unavailable with Retry-After in its
// scope's shape, reads go on, /ready says why, the log says so once each way.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import { serviceContext } from "../../src/context.ts";
import type { Database } from "../../src/db/client.ts";
import { type DiskSpaceGuard, watchDiskSpace } from "../../src/db/disk-space.ts";
import { type ApiClient, apiClient } from "../helpers/api-client.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { openTestDatabase } from "../helpers/test-app.ts";

const MB = 1024 * 1024;
let free = 500 * MB;
let database: Database;
let guard: DiskSpaceGuard;
let app: Awaited<ReturnType<typeof buildApp>>;
let api: ApiClient;
let config: ReturnType<typeof loadConfig>;
const logLines: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  database = await openTestDatabase();
  guard = watchDiskSpace({
    dir: "/nowhere",
    minFreeBytes: 100 * MB,
    everyMs: 60_000,
    probe: async () => free,
  });
  await guard.check();
  config = loadConfig({ NODE_ENV: "test", LOG_LEVEL: "warn" });
  app = await buildApp({
    config,
    database: { ...database, diskSpace: guard },
    logStream: { write: (line) => logLines.push(JSON.parse(line)) },
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  api = apiClient(`http://127.0.0.1:${(app.server.address() as { port: number }).port}`);
});

afterAll(async () => {
  guard.stop();
  await app.close();
  await database.close();
});

describe("writes while the disk under DATA_DIR is nearly full", () => {
  it("below the threshold: writes 503 with Retry-After, reads go on, /ready 503; above again: all back", async () => {
    const { key } = await createVendorWithKey(serviceContext({ config, database }));
    const order = { customerName: "Disk", type: "SUIT" };
    expect((await api.post("/api/vendor/orders", order, { key })).status).toBe(201);
    expect((await api.get("/ready")).status).toBe(200);

    free = 99 * MB;
    await guard.check();
    const refused = await api.post("/api/vendor/orders", order, { key });
    expect(refused.status).toBe(503);
    expect(refused.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(refused.body).toMatchObject({ code: "unavailable", detail: expect.stringMatching(/disk/) });
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    expect((await api.patch("/api/vendor/profile", {}, { key })).status).not.toBe(201);
    expect((await api.get("/api/vendor/orders", { key })).status).toBe(200);
    const ready = await api.get("/ready");
    expect(ready.status).toBe(503);
    expect(ready.body.detail).toMatch(/disk/);
    // The sign-in form (a page) and the token endpoint (OAuth) refuse in their own shapes.
    const page = await api.request("POST", "/login", {
      raw: "email=a&password=b",
      contentType: "application/x-www-form-urlencoded",
    });
    expect(page.status).toBe(503);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    const token = await api.request("POST", "/api/oauth/token", {
      raw: "grant_type=x",
      contentType: "application/x-www-form-urlencoded",
    });
    expect(token.status).toBe(503);
    expect(token.body.error).toBe("temporarily_unavailable");

    free = 101 * MB;
    await guard.check();
    expect((await api.post("/api/vendor/orders", order, { key })).status).toBe(201);
    expect((await api.get("/ready")).status).toBe(200);

    const said = logLines.map((l) => l.msg);
    expect(said.filter((m) => String(m).startsWith("disk space low"))).toHaveLength(1);
    expect(said.filter((m) => String(m).startsWith("disk space recovered"))).toHaveLength(1);
    expect(logLines.find((l) => String(l.msg).startsWith("disk space low"))).toMatchObject({
      freeMb: 99,
      minFreeMb: 100,
    });
  });
});
