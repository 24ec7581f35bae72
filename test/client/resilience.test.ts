// Issue 28 item 6: the client's timeout and retries, its webhook verification throughout a secret
// rotation, and its event stream across a dropped connection.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { ApiError, VendorApiClient, verifyWebhook } from "../../clients/typescript/src/index.ts";
import { signDelivery } from "../../src/webhook-delivery/signing.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp({ env: { EVENT_STREAM_HEARTBEAT_MS: "60000", EVENT_STREAM_POLL_MS: "20" } });
const servers: http.Server[] = [];
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A server answering request n with answers[n] ("drop": close the socket; "hang": never answer). */
async function scripted(answers: Array<number | "drop" | "hang">) {
  const seen: Array<{ method: string; key: string | undefined }> = [];
  const server = http.createServer((req, res) => {
    const answer = answers[seen.length] ?? 200;
    seen.push({ method: req.method ?? "", key: req.headers["idempotency-key"] as string | undefined });
    req.resume();
    if (answer === "drop") return req.socket.destroy();
    if (answer === "hang") return;
    res.writeHead(answer, { "content-type": answer < 400 ? "application/json" : "application/problem+json" });
    res.end(
      JSON.stringify(
        answer < 400
          ? { ok: true }
          : { type: "x", title: "t", status: answer, code: "unavailable", requestId: "r" },
      ),
    );
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  servers.push(server);
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen };
}

const fast = { maxDelayMs: 5, timeoutMs: 300 };

describe("retries", () => {
  it("a GET is retried after a dropped connection, a 503 and a 429", async () => {
    const s = await scripted(["drop", 503, 429, 200]);
    const client = new VendorApiClient({ baseUrl: s.url, apiKey: "vk_x", ...fast });
    expect(await client.request("GET", "/api/vendor/profile")).toEqual({ ok: true });
    expect(s.seen.length).toBe(4);
  });

  it("a POST is retried with the same Idempotency-Key after a timeout and a 500", async () => {
    const s = await scripted(["hang", 500, 201]);
    const client = new VendorApiClient({ baseUrl: s.url, apiKey: "vk_x", ...fast });
    await client.request("POST", "/api/vendor/orders", { body: {} });
    expect(s.seen.length).toBe(3);
    expect(new Set(s.seen.map((r) => r.key)).size).toBe(1);
    expect(s.seen[0]?.key).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("a PATCH (no Idempotency-Key) is not repeated after a 5xx or a dropped connection, but is after a 429", async () => {
    const five = await scripted([502]);
    const c1 = new VendorApiClient({ baseUrl: five.url, apiKey: "vk_x", ...fast });
    await expect(c1.request("PATCH", "/api/vendor/orders/x", { body: {} })).rejects.toBeInstanceOf(ApiError);
    expect(five.seen.length).toBe(1);
    const dropped = await scripted(["drop"]);
    const c2 = new VendorApiClient({ baseUrl: dropped.url, apiKey: "vk_x", ...fast });
    await expect(c2.request("PATCH", "/api/vendor/orders/x", { body: {} })).rejects.toThrow();
    expect(dropped.seen.length).toBe(1);
    const limited = await scripted([429, 200]);
    const c3 = new VendorApiClient({ baseUrl: limited.url, apiKey: "vk_x", ...fast });
    await c3.request("PATCH", "/api/vendor/orders/x", { body: {} });
    expect(limited.seen.length).toBe(2);
  });

  it("gives up after maxRetries, and a hung server costs at most the timeout per attempt", async () => {
    const s = await scripted(["hang", "hang", "hang"]);
    const client = new VendorApiClient({ baseUrl: s.url, apiKey: "vk_x", maxRetries: 2, ...fast });
    const started = Date.now();
    await expect(client.request("GET", "/api/vendor/profile")).rejects.toThrow(/timeout|aborted/i);
    expect(s.seen.length).toBe(3);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe("verifyWebhook throughout a secret rotation", () => {
  const body = JSON.stringify({ id: "evt1", event: "order.created", data: {}, timestamp: "t" });
  const at = Math.floor(Date.now() / 1000);
  it("during the overlap either secret alone verifies (the header carries both signatures)", () => {
    const headers = signDelivery(
      { current: "whsk_new", previous: "whsk_old" },
      "evt1",
      at,
      body,
    ) as unknown as Record<string, string>;
    expect(verifyWebhook("whsk_new", body, headers).id).toBe("evt1");
    expect(verifyWebhook("whsk_old", body, headers).id).toBe("evt1");
    expect(verifyWebhook(["whsk_new", "whsk_old"], body, headers).id).toBe("evt1");
    expect(() => verifyWebhook("whsk_other", body, headers)).toThrow(/does not match/);
  });
  it("after the overlap only the new secret verifies", () => {
    const headers = signDelivery({ current: "whsk_new" }, "evt1", at, body) as unknown as Record<
      string,
      string
    >;
    expect(verifyWebhook("whsk_new", body, headers).id).toBe("evt1");
    expect(() => verifyWebhook("whsk_old", body, headers)).toThrow(/does not match/);
  });
});

describe("events.stream()", () => {
  it("yields events live and, after a connection that went silent, resumes with Last-Event-ID without a gap", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const client = new VendorApiClient({ baseUrl: t.url, apiKey: key });
    const stop = new AbortController();
    // Resume after the shop's latest event, so nothing created from here on can be missed.
    await client.orders.create({ customerName: "before", type: "SUIT" });
    const latest = (await client.events.list({ type: "order.created" })).events[0]?.id as string;
    // The server's heartbeat is a minute: a 400 ms idle limit drops the connection again and again.
    const stream = client.events.stream({
      types: ["order.created"],
      signal: stop.signal,
      idleTimeoutMs: 400,
      lastEventId: latest,
    });
    const got: string[] = [];
    const next = async () => {
      const r = await stream.next();
      if (r.done) throw new Error("stream ended");
      got.push((r.value.data as { id: string }).id);
    };
    const a = await client.orders.create({ customerName: "A", type: "SUIT" });
    await next();
    // Created while the client is between connections (its idle limit passes first).
    await new Promise((r) => setTimeout(r, 600));
    const b = await client.orders.create({ customerName: "B", type: "SUIT" });
    const c = await client.orders.create({ customerName: "C", type: "SUIT" });
    await next();
    await next();
    expect(got).toEqual([a.id, b.id, c.id]);
    stop.abort();
    expect((await stream.next()).done).toBe(true);
  });
});
