// A crash or restart at any moment loses no event (CONTRACT 7): the service is SIGKILLed while
// events are pending and, after a restart, every event is delivered. On PGlite and PostgreSQL.
import { afterAll, describe, expect, it } from "vitest";
import { apiClient } from "../helpers/api-client.ts";
import { freePort } from "../helpers/ports.ts";
import { childEnv, processBackends, startService, vendorWithKeyByCli } from "../helpers/processes.ts";
import { eventually, type Receiver, startReceiver } from "../helpers/webhook-receiver.ts";

// Each backend's database is the file's own: the spawned service's dispatcher must not pick up
// other test files' work.
const { backends, track } = processBackends("crash");
const receivers: Receiver[] = [];
afterAll(() => Promise.all(receivers.map((r) => r.close())));

/** The service started on a fresh database, with a vendor and key made through it. */
async function setup(dbEnv: Record<string, string>) {
  const port = await freePort();
  const env = childEnv({
    ...dbEnv,
    PORT: String(port),
    HOST: "127.0.0.1",
    WEBHOOK_ALLOW_PRIVATE_URLS: "true",
    // Generous: the machine is shared, and a timed-out attempt would be retried (and counted).
    WEBHOOK_TIMEOUT_MS: "3000",
    WEBHOOK_RETRY_DELAYS_MS: "50,100,150",
    SHUTDOWN_GRACE_MS: "5000",
  });
  const start = async () => track(await startService(env));
  const service = await start();
  const { key } = await vendorWithKeyByCli(env, "Crash");
  return { service, key, api: apiClient(`http://127.0.0.1:${port}`), start };
}

describe.each(backends)("on $name", ({ db }) => {
  it("after SIGKILL with events pending and a restart, every event is delivered", async () => {
    const receiver = await startReceiver(() => ({ status: 200, delayMs: 400 }));
    receivers.push(receiver);
    let { service, key, api, start } = await setup(await db());
    const hook = await api.post(
      "/api/vendor/webhooks",
      { url: receiver.url, events: ["order.created"] },
      { key },
    );
    expect(hook.status).toBe(201);

    const orderIds: string[] = [];
    for (let batch = 0; batch < 4; batch++) {
      const created = await Promise.all(
        Array.from({ length: 10 }, () =>
          api.post("/api/vendor/orders", { customerName: "K", type: "SUIT" }, { key }),
        ),
      );
      for (const c of created) {
        expect(c.status).toBe(201);
        orderIds.push(c.body.id);
      }
    }
    service.child.kill("SIGKILL");
    await service.exited;
    const beforeRestart = receiver.requests.length;
    receiver.respond = () => ({ status: 200 });

    service = await start();
    const deliveries = await eventually(async () => {
      const res = await api.get(`/api/vendor/webhooks/${hook.body.id}/deliveries?limit=100`, { key });
      const list = res.body.deliveries as any[];
      return list.length === orderIds.length && list.every((d) => d.status === "SUCCEEDED") && list;
    }, 60_000);
    const received = new Set(receiver.requests.map((r) => r.body.data.id));
    expect([...received].sort()).toEqual([...orderIds].sort());
    expect(new Set(deliveries.map((d) => d.eventId)).size).toBe(orderIds.length);
    // Work was pending at the kill: the restarted service had deliveries left to make.
    expect(receiver.requests.length).toBeGreaterThan(beforeRestart);

    service.child.kill("SIGTERM");
    expect(await service.exited).toBe(0);
  }, 120_000);

  it("SIGTERM lets an in-flight delivery finish, then exits 0", async () => {
    const receiver = await startReceiver(() => ({ status: 200, delayMs: 300 }));
    receivers.push(receiver);
    let { service, key, api, start } = await setup(await db());
    const hook = await api.post(
      "/api/vendor/webhooks",
      { url: receiver.url, events: ["order.created"] },
      { key },
    );
    await api.post("/api/vendor/orders", { customerName: "T", type: "SUIT" }, { key });
    await receiver.waitFor(1);
    service.child.kill("SIGTERM");
    expect(await service.exited).toBe(0);

    service = await start();
    const res = await api.get(`/api/vendor/webhooks/${hook.body.id}/deliveries`, { key });
    expect(res.body.deliveries).toHaveLength(1);
    expect(res.body.deliveries[0]).toMatchObject({ status: "SUCCEEDED", attemptCount: 1 });
    // The restarted dispatcher has claimed since its start once another endpoint's event arrives
    // (a claim takes whatever is due, of every endpoint): it did not send the first one again.
    const witness = await startReceiver();
    receivers.push(witness);
    const other = await api.post(
      "/api/vendor/webhooks",
      { url: witness.url, events: ["customer.created"] },
      { key },
    );
    expect(other.status).toBe(201);
    expect((await api.post("/api/vendor/customers", { name: "W" }, { key })).status).toBe(201);
    await witness.waitFor(1);
    expect(receiver.requests).toHaveLength(1);
    service.child.kill("SIGTERM");
    await service.exited;
  }, 120_000);
});
