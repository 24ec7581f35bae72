// `vendor-api app create` (CONTRACT 9) run as an operator would, against a real database: PGlite
// in a temporary data directory, or the PostgreSQL of TEST_DATABASE_URL.
import { rm } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migratedDataDir } from "../helpers/child-build.ts";
import { runCli } from "../helpers/processes.ts";

let dataDir: string;
beforeAll(async () => {
  dataDir = await migratedDataDir("cli-app-create");
});
afterAll(() => rm(dataDir, { recursive: true, force: true }));

function cli(...args: string[]) {
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    DATA_DIR: dataDir,
    NODE_ENV: "test",
  };
  if (process.env.TEST_DATABASE_URL) env.DATABASE_URL = process.env.TEST_DATABASE_URL;
  return runCli(args, env);
}

describe("cli app create", () => {
  it("prints { clientId, clientSecret } for a vendor named by e-mail, and refuses an http redirect URI on a public host", async () => {
    const email = `cli-${Date.now()}@example.test`;
    const vendor = await cli(
      "vendor",
      "create",
      "--name",
      "CLI Bridal",
      "--email",
      email,
      "--password",
      "long enough password",
      "--json",
    );
    expect(vendor.code).toBe(0);
    const { stdout, code } = await cli(
      "app",
      "create",
      "--vendor",
      email,
      "--name",
      "POS",
      "--redirect-uri",
      "https://pos.example/cb",
      "--redirect-uri",
      "http://127.0.0.1:8080/cb",
      "--json",
    );
    expect(code).toBe(0);
    const out = JSON.parse(stdout);
    expect(Object.keys(out).sort()).toEqual(["clientId", "clientSecret"]);
    expect(out.clientId).toMatch(/^app_/);
    expect(out.clientSecret.length).toBeGreaterThanOrEqual(40);

    const refused = await cli(
      "app",
      "create",
      "--vendor",
      email,
      "--name",
      "POS",
      "--redirect-uri",
      "http://pos.example/cb",
    );
    // A bad argument is a usage error, refused before the database opens: exit 2, as for any
    // argument the CLI refuses (docs/operating.md, the CLI).
    expect(refused).toMatchObject({ code: 2, stderr: expect.stringContaining("must use https") });
  }, 120_000);
});
