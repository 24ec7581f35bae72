// The setup both delivery test files share: a test app with millisecond retry delays, a dispatcher
// in the test process, local receivers closed after the file, and the calls the tests repeat.
import { afterAll, beforeAll, expect } from "vitest";
import { type Dispatcher, startDispatcher } from "../../src/webhook-delivery/dispatcher.ts";
import type { ApiResponse } from "./api-client.ts";
import { startTestApp, type TestApp } from "./test-app.ts";
import { type Receiver, startReceiver } from "./webhook-receiver.ts";

export interface DeliveryFixture {
  readonly t: TestApp;
  receiver(respond?: Parameters<typeof startReceiver>[0]): Promise<Receiver>;
  register(key: string, url: string, events?: string[]): Promise<{ id: string; secret: string }>;
  createOrder(key: string, name?: string): Promise<ApiResponse>;
  deliveries(key: string, webhookId: string): Promise<any[]>;
  /** Stops the file's dispatcher early (a test that counts the statements a request sends). */
  stopDispatcher(): Promise<void>;
}

/**
 * Call at the top of a test file: starts everything in beforeAll and stops it in afterAll. `env`
 * overrides the settings above (a file that needs a retry to stay pending, say).
 */
export function useDeliveryFixture(env: Record<string, string> = {}): DeliveryFixture {
  let t: TestApp | undefined;
  let dispatcher: Dispatcher | undefined;
  const receivers: Receiver[] = [];
  beforeAll(async () => {
    // The circuit breaker stays closed here: these tests count exact retries of failing receivers
    // (test/webhooks/fairness.test.ts covers the breaker).
    t = await startTestApp({
      ownDatabase: true,
      env: {
        WEBHOOK_RETRY_DELAYS_MS: "50,100,150",
        // Long enough that a healthy local receiver is never cut on a loaded machine (at 500 ms,
        // CI at load 25 timed answers out and counted retries no receiver caused).
        WEBHOOK_TIMEOUT_MS: "2000",
        WEBHOOK_BREAKER_FAILURES: "1000",
        ...env,
      },
    });
    dispatcher = await startDispatcher({ config: t.config, database: t.database });
  });
  afterAll(async () => {
    await dispatcher?.stop(1_000);
    await Promise.all(receivers.map((r) => r.close()));
    await t?.close();
  });
  const app = (): TestApp => {
    if (!t) throw new Error("the delivery fixture is used before beforeAll ran");
    return t;
  };
  return {
    get t() {
      return app();
    },
    async receiver(respond) {
      const r = await startReceiver(respond);
      receivers.push(r);
      return r;
    },
    async register(key, url, events = ["order.created", "order.status_changed"]) {
      const res = await app().api.post("/api/vendor/webhooks", { url, events }, { key });
      expect(res.status).toBe(201);
      return res.body as { id: string; secret: string };
    },
    createOrder: (key, name = "Maria Silva") =>
      app().api.post("/api/vendor/orders", { customerName: name, type: "BRIDAL_DRESS" }, { key }),
    async stopDispatcher() {
      await dispatcher?.stop(1_000);
      dispatcher = undefined;
    },
    async deliveries(key, webhookId) {
      const res = await app().api.get(`/api/vendor/webhooks/${webhookId}/deliveries`, { key });
      expect(res.status).toBe(200);
      return res.body.deliveries as any[];
    },
  };
}
