// The POST a delivery attempt sends, against real local receivers: a kept-alive connection the
// receiver closed while it sat idle costs no attempt.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, expect, it } from "vitest";
import { createDeliverer } from "../../src/webhook-delivery/deliver.ts";
import { systemResolver } from "../../src/webhook-delivery/url-guard.ts";

const deliverer = () =>
  createDeliverer({ timeoutMs: 5_000, allowPrivate: true, resolver: systemResolver, userAgent: "test" });
const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

it("a request on a kept-alive socket the receiver dropped goes again on a new connection", async () => {
  // This receiver answers the first request of each connection and drops the connection at the
  // second, as a receiver's idle timeout does when it fires just as the next delivery goes out.
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    const count = ((req.socket as unknown as { served?: number }).served ?? 0) + 1;
    (req.socket as unknown as { served?: number }).served = count;
    if (count > 1) {
      req.socket.destroy();
      return;
    }
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      seen.push(body);
      res.writeHead(204).end();
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const d = deliverer();
  try {
    expect(await d.post(url, {}, '{"n":1}')).toMatchObject({ ok: true, statusCode: 204 });
    expect(await d.post(url, {}, '{"n":2}')).toMatchObject({ ok: true, statusCode: 204 });
    expect(seen).toEqual(['{"n":1}', '{"n":2}']);
  } finally {
    d.close();
  }
});

it("a connection reset on a new connection is the attempt's outcome, sent once", async () => {
  let connections = 0;
  const server = http.createServer((req) => req.socket.destroy());
  server.on("connection", () => connections++);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const d = deliverer();
  try {
    const result = await d.post(url, {}, "{}");
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/ECONNRESET|socket hang up/);
    expect(connections).toBe(1);
  } finally {
    d.close();
  }
});
