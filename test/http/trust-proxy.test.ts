// TRUST_PROXY through real proxies. Each proxy is an HTTP server that forwards
// to the next hop and appends its peer's address to X-Forwarded-For, as nginx's
// $proxy_add_x_forwarded_for does. Clients and proxies speak from their own loopback addresses
// (127.0.0.0/8 all reach this host), so the app can tell them apart; every client also sends a
// forged X-Forwarded-For. The failure budget (per client address) shows which address counted.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";

const FAILURES = 3;
const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

/** A proxy in front of `target`, connecting to it from `ownAddress`. */
async function startProxy(target: string, ownAddress: string): Promise<string> {
  const to = new URL(target);
  const server = http.createServer((req, res) => {
    const forwarded = [req.headers["x-forwarded-for"], req.socket.remoteAddress].filter(Boolean).join(", ");
    const upstream = http.request(
      {
        host: to.hostname,
        port: to.port,
        method: req.method,
        path: req.url,
        localAddress: ownAddress,
        headers: { ...req.headers, "x-forwarded-for": forwarded },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** GET with a made-up key from `clientAddress`, with a forged X-Forwarded-For. */
function failFrom(url: string, clientAddress: string, forged: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      `${url}/api/vendor/profile`,
      {
        localAddress: clientAddress,
        headers: { "x-api-key": "vk_made-up-key-for-the-proxy-test", "x-forwarded-for": forged },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on("error", reject);
  });
}

async function appBehind(trustProxy: string): Promise<TestApp> {
  const t = await startTestApp({
    env: { TRUST_PROXY: trustProxy, AUTH_FAILURES_PER_MINUTE: String(FAILURES) },
  });
  closers.push(() => t.close());
  return t;
}

/**
 * Two clients behind the proxies: the first spends its failure budget (forging a new address each
 * time), the second is not touched by it.
 */
async function expectClientsApart(entry: string, first: string, second: string) {
  const statuses: number[] = [];
  for (let i = 0; i <= FAILURES; i++) statuses.push(await failFrom(entry, first, `203.0.113.${i + 1}`));
  expect(statuses).toEqual([...Array(FAILURES).fill(401), 429]);
  expect(await failFrom(entry, second, "203.0.113.1")).toBe(401);
}

describe("TRUST_PROXY", () => {
  it("a hop count of 1, through one proxy: each client counts under its own address, forged ones ignored", async () => {
    const t = await appBehind("1");
    const proxy = await startProxy(t.url, "127.0.0.10");
    await expectClientsApart(proxy, "127.0.0.21", "127.0.0.22");
  });

  it("a hop count of 2, through two proxies", async () => {
    const t = await appBehind("2");
    const inner = await startProxy(t.url, "127.0.0.11");
    const outer = await startProxy(inner, "127.0.0.12");
    await expectClientsApart(outer, "127.0.0.23", "127.0.0.24");
  });

  it("the proxies' addresses, through two proxies", async () => {
    const t = await appBehind("127.0.0.13,127.0.0.14/32");
    const inner = await startProxy(t.url, "127.0.0.13");
    const outer = await startProxy(inner, "127.0.0.14");
    await expectClientsApart(outer, "127.0.0.25", "127.0.0.26");
  });

  it("true is believed, and warned about at start", async () => {
    const lines: string[] = [];
    const t = await startTestApp({
      env: { TRUST_PROXY: "true", LOG_LEVEL: "warn" },
      logStream: { write: (line) => lines.push(line) },
    });
    closers.push(() => t.close());
    expect(lines.filter((line) => line.includes("TRUST_PROXY=true"))).toHaveLength(1);
  });
});
