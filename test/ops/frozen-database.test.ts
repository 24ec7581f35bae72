// A frozen database does not hang requests (CONTRACT 9). The test starts a PostgreSQL cluster of
// its own (initdb + pg_ctl on a random port in a temp dir), runs the service on it, and stops the
// cluster's processes with SIGSTOP, as a partition or a stalled disk would: every API answer
// comes within 10 s, as 503 `unavailable` with Retry-After. After SIGCONT the same process serves
// again, without a restart. Only the cluster this test started is ever stopped.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "../helpers/api-client.ts";
import { freePort } from "../helpers/ports.ts";
import {
  hasPrivatePostgres as hasPostgres,
  type PrivatePostgres,
  privatePostgresMissing,
  startPrivatePostgres,
} from "../helpers/private-postgres.ts";
import { childEnv, type ServerProcess, startService, vendorWithKeyByCli } from "../helpers/processes.ts";
import { eventually } from "../helpers/webhook-receiver.ts";

let cluster: PrivatePostgres | undefined;
let service: ServerProcess | undefined;

beforeAll(async () => {
  if (hasPostgres) cluster = await startPrivatePostgres("frozen-pg");
}, 120_000);

afterAll(async () => {
  if (service && service.child.exitCode === null) service.child.kill("SIGKILL");
  await service?.exited;
  await cluster?.destroy();
}, 60_000);

describe.skipIf(!hasPostgres)("a frozen PostgreSQL (private cluster, SIGSTOP)", () => {
  if (!hasPostgres) console.warn(privatePostgresMissing);

  it("every API answer comes within 10 s as 503 with Retry-After; after SIGCONT the service recovers", async () => {
    const port = await freePort();
    const env = childEnv({
      DATABASE_URL: (cluster as PrivatePostgres).url,
      PORT: String(port),
      HOST: "127.0.0.1",
    });
    const { key } = await vendorWithKeyByCli(env, "Frozen");
    const api = apiClient(`http://127.0.0.1:${port}`);
    service = await startService(env);
    const order = { customerName: "Frozen", type: "SUIT" };
    expect((await api.get("/ready")).status).toBe(200);
    expect((await api.post("/api/vendor/orders", order, { key })).status).toBe(201);

    cluster?.freeze();
    try {
      // Twice: first with pooled connections that hang, then once those were dropped.
      for (let round = 0; round < 2; round++) {
        const calls = [
          () => api.get("/ready"),
          () => api.get("/api/vendor/orders", { key }),
          () => api.get("/api/vendor/customers", { key }),
          () => api.post("/api/vendor/orders", order, { key }),
          () =>
            api.post("/api/vendor/orders", order, { key, headers: { "idempotency-key": `frozen-${round}` } }),
          () => api.get("/api/vendor/events", { key }),
        ];
        const answers = await Promise.all(
          calls.map(async (call) => {
            const started = Date.now();
            const res = await call().catch((err) => {
              throw new Error(`${err}: ${service?.output()}`);
            });
            return {
              ms: Date.now() - started,
              status: res.status,
              code: res.body?.code,
              retryAfter: res.headers.get("retry-after"),
            };
          }),
        );
        console.log(`frozen database, round ${round + 1}: ${JSON.stringify(answers)}`);
        for (const a of answers) {
          expect(a.ms).toBeLessThan(10_000);
          expect(a).toMatchObject({
            status: 503,
            code: "unavailable",
            retryAfter: expect.stringMatching(/^\d+$/),
          });
        }
      }
      // The process itself stays alive and says so.
      if (service.child.exitCode !== null) console.log(service.output());
      expect((await api.get("/health")).status).toBe(200);
    } finally {
      cluster?.thaw();
    }

    // The same process (no restart) serves again once the database answers.
    const created = await eventually(
      async () => (await api.post("/api/vendor/orders", order, { key })).status === 201,
      30_000,
    );
    expect(created).toBe(true);
    expect((await api.get("/ready")).status).toBe(200);
    expect(service.child.exitCode).toBeNull();
    service.child.kill("SIGTERM");
    expect(await service.exited).toBe(0);
  }, 180_000);
});
