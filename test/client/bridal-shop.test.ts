// A bridal shop's whole integration through the TypeScript client against a real server: the
// client is the one in clients/typescript, typed from the document, talking real HTTP.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ApiError,
  type Order,
  VendorApiClient,
  verifyWebhook,
  type WebhookEvent,
  WebhookVerificationError,
} from "../../clients/typescript/src/index.ts";
import { type Dispatcher, startDispatcher } from "../../src/webhook-delivery/dispatcher.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";
import { eventually } from "../helpers/webhook-receiver.ts";

let t: TestApp;
let dispatcher: Dispatcher;
let receiver: http.Server;
const received: Array<{ raw: Buffer; headers: http.IncomingHttpHeaders }> = [];
let receiverUrl = "";

beforeAll(async () => {
  t = await startTestApp({
    ownDatabase: true,
    env: { WEBHOOK_RETRY_DELAYS_MS: "50,100,150", WEBHOOK_TIMEOUT_MS: "2000" },
  });
  dispatcher = await startDispatcher({ config: t.config, database: t.database });
  // The shop's own receiver: keeps the raw bytes, as verification needs.
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ raw: Buffer.concat(chunks), headers: req.headers });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
});
afterAll(async () => {
  await dispatcher.stop(1_000);
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
  await t.close();
});

describe("a bridal shop's integration through the TypeScript client", () => {
  it("customer, order, status moves, filter, detail change, fitting, webhook, iterate, erasure", async () => {
    const { key } = await createVendorWithKey(t.ctx, "Bella Bridal");
    const client = new VendorApiClient({ baseUrl: t.url, apiKey: key });
    expect((await client.profile.get()).name).toBe("Bella Bridal");

    const hook = await client.webhooks.create({
      url: receiverUrl,
      events: ["order.created", "order.status_changed", "order.updated", "appointment.confirmed"],
    });

    const maria = await client.customers.create({
      name: "Maria Silva",
      email: "maria.silva@example.com",
      weddingDate: "2027-06-12",
      measurements: { bust: 86, waist: 68 },
    });
    const order: Order = await client.orders.create({
      customerName: "Maria Silva",
      customerEmail: "maria.silva@example.com",
      type: "BRIDAL_DRESS",
      model: "Aurora",
      size: "38",
    });
    expect(order.customerId).toBe(maria.id);

    await client.orders.updateStatus(order.id, { status: "IN_PRODUCTION", message: "Cutting your lace" });
    const moved = await client.orders.updateStatus(order.id, {
      status: "FITTING_READY",
      message: "Ready for your first fitting",
      imageUrl: "https://photos.bellabridal.example/aurora-fitting.jpg",
    });
    expect(moved.status).toBe("FITTING_READY");
    const refused = await client.orders
      .updateStatus(order.id, { status: "RETURNED" })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).problem).toMatchObject({
      code: "invalid_transition",
      currentStatus: "FITTING_READY",
    });

    const other = await client.orders.create({ customerName: "Ana Costa", type: "SUIT" });
    const ready = await client.orders.list({ status: ["FITTING_READY"] });
    expect(ready.orders.map((o) => o.id)).toEqual([order.id]);
    const hers = await client.orders.list({ customerId: maria.id });
    expect(hers.orders.map((o) => o.id)).toEqual([order.id]);

    const resized = await client.orders.update(order.id, { size: "40" });
    expect(resized.size).toBe("40");

    const fitting = await client.appointments.create({
      customerId: maria.id,
      orderId: order.id,
      type: "FITTING",
      date: "2027-03-20T10:00:00Z",
      duration: 60,
    });
    const confirmed = await client.appointments.update(fitting.id, { status: "CONFIRMED" });
    expect(confirmed.status).toBe("CONFIRMED");

    // The webhook: every delivery verifies; the typed event tells what happened.
    const events = await eventually(async () => {
      const verified = received.map((r) =>
        verifyWebhook(hook.secret, r.raw, r.headers as Record<string, string>),
      );
      const names = new Set(verified.map((e) => e.event));
      return names.has("appointment.confirmed") && names.has("order.updated") && verified;
    }, 20_000);
    const change = events.find(
      (e): e is Extract<WebhookEvent, { event: "order.status_changed" }> =>
        e.event === "order.status_changed" && e.data.status === "FITTING_READY",
    );
    expect(change?.data).toMatchObject({ id: order.id, previousStatus: "IN_PRODUCTION" });
    const first = received[0];
    if (!first) throw new Error("no delivery");
    expect(() => verifyWebhook("whsk_wrong", first.raw, first.headers as Record<string, string>)).toThrow(
      WebhookVerificationError,
    );
    expect(() =>
      verifyWebhook(hook.secret, first.raw, first.headers as Record<string, string>, {
        now: new Date(Date.now() + 3_600_000),
      }),
    ).toThrow(/timestamp/);
    expect(() =>
      verifyWebhook(
        hook.secret,
        Buffer.concat([first.raw, Buffer.from(" ")]),
        first.headers as Record<string, string>,
      ),
    ).toThrow(WebhookVerificationError);

    // Iterate every order, one small page at a time.
    const all: string[] = [];
    for await (const o of client.orders.iterate({ limit: 1 })) all.push(o.id);
    expect(all.sort()).toEqual([order.id, other.id].sort());

    // Maria asks to be forgotten.
    await client.customers.erase(maria.id);
    const kept = await client.orders.get(order.id);
    expect(kept).toMatchObject({ id: order.id, customerId: null, customer: null, size: "40" });
    const gone = await client.customers.get(maria.id).catch((e: unknown) => e);
    expect((gone as ApiError).status).toBe(404);
  });

  it("retries 429 and 503 after Retry-After, with the same Idempotency-Key on a POST", async () => {
    const seen: Array<{ key: string | null; at: number }> = [];
    let calls = 0;
    const server = http.createServer((req, res) => {
      seen.push({ key: req.headers["idempotency-key"] as string, at: Date.now() });
      calls++;
      if (calls === 1)
        return res
          .writeHead(429, { "retry-after": "1", "content-type": "application/problem+json" })
          .end("{}");
      if (calls === 2) return res.writeHead(503, { "retry-after": "0" }).end();
      res.writeHead(201, { "content-type": "application/json" }).end('{"id":"c1","name":"Maria Silva"}');
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const client = new VendorApiClient({
        baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        apiKey: "vk_x",
      });
      const created = await client.customers.create({ name: "Maria Silva" });
      expect(created.id).toBe("c1");
      expect(seen).toHaveLength(3);
      expect(new Set(seen.map((s) => s.key)).size).toBe(1);
      expect(seen[0]?.key).toMatch(/^[0-9a-f-]{36}$/);
      expect((seen[1]?.at ?? 0) - (seen[0]?.at ?? 0)).toBeGreaterThanOrEqual(950);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
