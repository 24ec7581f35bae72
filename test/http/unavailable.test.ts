import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import { type Database, openDatabase } from "../../src/db/client.ts";
import { apiClient } from "../helpers/api-client.ts";

// A PostgreSQL that does not answer (nothing listens on port 1): the service must say 503, not 500.
let database: Database;
let app: Awaited<ReturnType<typeof buildApp>>;
let api: ReturnType<typeof apiClient>;
beforeAll(async () => {
  database = await openDatabase({ kind: "pg", url: "postgres://postgres@127.0.0.1:1/nowhere" });
  app = await buildApp({ config: loadConfig({ NODE_ENV: "test" }), database });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address() as { port: number };
  api = apiClient(`http://127.0.0.1:${address.port}`);
});
afterAll(async () => {
  await app.close();
  await database.close();
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
