// `vendor-api api-key create --test` (CONTRACT 11) run as an operator would: the CLI as its own
// process on a real database (PGlite in a temporary data directory, or the PostgreSQL of
// TEST_DATABASE_URL). How the key then behaves over HTTP: test/sandbox/isolation.test.ts.
import { rm } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migratedDataDir } from "../helpers/child-build.ts";
import { runCli } from "../helpers/processes.ts";

let dataDir: string;
beforeAll(async () => {
  dataDir = await migratedDataDir("cli-sandbox");
});
afterAll(() => rm(dataDir, { recursive: true, force: true }));

async function cli(...args: string[]) {
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    DATA_DIR: dataDir,
    NODE_ENV: "test",
  };
  if (process.env.TEST_DATABASE_URL) env.DATABASE_URL = process.env.TEST_DATABASE_URL;
  const r = await runCli([...args, "--json"], env);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

describe("cli api-key create --test", () => {
  it("prints a vk_test_ key marked test; api-key list shows it as a test key; vendor list has no sandbox", async () => {
    const email = `cli-sandbox-${Date.now()}@example.test`;
    const vendor = await cli(
      "vendor",
      "create",
      "--name",
      "Sandbox Bridal",
      "--email",
      email,
      "--password",
      "long enough password",
    );
    const created = await cli("api-key", "create", "--vendor", email, "--name", "POS tests", "--test");
    expect(Object.keys(created).sort()).toEqual(["id", "key", "test"]);
    expect(created.key).toMatch(/^vk_test_[A-Za-z0-9_-]{43}$/);
    expect(created.test).toBe(true);
    const { apiKeys } = await cli("api-key", "list", "--vendor", email);
    expect(apiKeys).toEqual([
      expect.objectContaining({ id: created.id, test: true, prefix: created.key.slice(0, 15) }),
    ]);
    const { vendors } = await cli("vendor", "list");
    expect(vendors.filter((v: { email: string }) => v.email.includes(vendor.id))).toEqual([]);
    expect(vendors.filter((v: { email: string }) => v.email === email)).toHaveLength(1);
  });
});
