import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import { openTestDatabase } from "../helpers/test-app.ts";

// A bug must surface as a bare 500 internal_error: no message, stack, SQL or secret leaves the process.
let app: Awaited<ReturnType<typeof buildApp>>;
let close: () => Promise<void>;
beforeAll(async () => {
  const database = await openTestDatabase();
  app = await buildApp({ config: loadConfig({ NODE_ENV: "test" }), database });
  app.get("/boom", async () => {
    throw new Error("select password_hash from vendors where api_key = 'vk_secret'");
  });
  await app.ready();
  close = async () => {
    await app.close();
    await database.close();
  };
});
afterAll(() => close());

describe("unexpected errors", () => {
  it("answer 500 internal_error with the request id and nothing internal", async () => {
    const res = await app.inject({ method: "GET", url: "/boom", headers: { "x-request-id": "bug-42" } });
    expect(res.statusCode).toBe(500);
    expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
    const body = res.json();
    expect(body).toMatchObject({ status: 500, code: "internal_error", requestId: "bug-42" });
    expect(res.body).not.toMatch(/password_hash|vk_secret|select|Error:|\.ts/);
  });
});
