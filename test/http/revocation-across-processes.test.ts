// A key revoked anywhere is refused by every API process at once (CONTRACT 8), not after
// API_KEY_CACHE_SECONDS: two `--role api` processes on one PostgreSQL database each hold the key
// in memory, the CLI revokes it, and both refuse it within the notification's way. In CI this
// file also runs through PgBouncer in transaction mode, where LISTEN must go to the
// direct URL: through the pooler it would hear nothing and the processes trust the key for a minute.
// PostgreSQL only (PGlite serves one process).
import { describe, expect, it } from "vitest";
import { apiClient } from "../helpers/api-client.ts";
import { freePort } from "../helpers/ports.ts";
import { childEnv, processBackends, runCliJson, startService } from "../helpers/processes.ts";
import { eventually } from "../helpers/webhook-receiver.ts";

const { backends, track } = processBackends("revocation");

// Child processes start slowly on a loaded 2-core machine: a generous timeout, as for every process test.
describe.skipIf(!process.env.TEST_DATABASE_URL).each(backends)(
  "two API processes on $name",
  { timeout: 180_000 },
  ({ db }) => {
    it("a key revoked by the CLI is refused by both processes at once, not when their cache expires", async () => {
      const dbEnv = await db();
      const api = async () => {
        const port = await freePort();
        const env = childEnv({
          ...dbEnv,
          PORT: String(port),
          HOST: "127.0.0.1",
          API_KEY_CACHE_SECONDS: "600",
        });
        track(await startService(env, ["--role", "api"]));
        return { env, client: apiClient(`http://127.0.0.1:${port}`) };
      };
      const [a, b] = await Promise.all([api(), api()]);
      const email = `revoke-${Date.now()}@example.test`;
      const env = a.env;
      await runCliJson(env, [
        "vendor",
        "create",
        "--name",
        "Revoke",
        "--email",
        email,
        "--password",
        "pw-123456789",
      ]);
      const { id, key } = await runCliJson(env, ["api-key", "create", "--vendor", email, "--name", "POS"]);
      // Both processes verify the key and hold it.
      for (const { client } of [a, b]) {
        for (let i = 0; i < 2; i++)
          expect((await client.get("/api/vendor/profile", { key })).status).toBe(200);
      }
      await runCliJson(env, ["api-key", "revoke", "--vendor", email, id]);
      const revokedAt = Date.now();
      for (const { client } of [a, b]) {
        await eventually(
          async () => (await client.get("/api/vendor/profile", { key })).status === 401,
          5_000,
        );
      }
      // "At once": the notification's way, far under the ten minutes the cache would trust it for.
      expect(Date.now() - revokedAt).toBeLessThan(5_000);
    });
  },
);
