// GET /metrics scraped from real processes after real traffic and real deliveries: request
// durations by route and status, webhook attempts by outcome, commit→delivery latency, the outbox
// backlog and the database pool. On PostgreSQL the API and the worker run apart, and the worker's
// own port serves /health, /ready and /metrics. Logs name the vendor and credential, never a secret.
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migratedDataDir } from "../helpers/child-build.ts";
import { freePort } from "../helpers/ports.ts";
import { runCli, type ServerProcess, startServer, waitForHealth } from "../helpers/processes.ts";
import { createScratchDatabase, type ScratchDatabase } from "../helpers/scratch-database.ts";
import { eventually, type Receiver, startReceiver } from "../helpers/webhook-receiver.ts";

const METRICS_TOKEN = "scrape-token-0123456789";
const pg = Boolean(process.env.TEST_DATABASE_URL);
let dataDir: string;
let scratch: ScratchDatabase | undefined;
let api: ServerProcess;
let worker: ServerProcess | undefined;
let workerUrl: string;
let receiver: Receiver;
let apiPort: number;
const servers: ServerProcess[] = [];

beforeAll(async () => {
  dataDir = await migratedDataDir("metrics");
  if (pg) scratch = await createScratchDatabase(process.env.TEST_DATABASE_URL as string);
  receiver = await startReceiver();
  apiPort = await freePort();
  const env = {
    DATA_DIR: dataDir,
    WEBHOOK_ALLOW_PRIVATE_URLS: "true",
    METRICS_TOKEN,
    ...(scratch ? { DATABASE_URL: scratch.url } : {}),
  };
  api = startServer(pg ? ["--role", "api"] : [], env, apiPort);
  servers.push(api);
  if (pg) {
    const workerPort = await freePort();
    // The worker gets the API's PORT too, as a shared environment file would give it.
    worker = startServer(["--role", "worker"], { ...env, WORKER_PORT: String(workerPort) }, apiPort);
    servers.push(worker);
    workerUrl = `http://127.0.0.1:${workerPort}`;
    await waitForHealth({ ...worker, url: workerUrl }, 90_000);
  } else {
    workerUrl = api.url;
  }
  await waitForHealth(api, 90_000);
}, 180_000);

afterAll(async () => {
  for (const s of servers) if (s.child.exitCode === null) s.child.kill("SIGTERM");
  await Promise.all(servers.map((s) => s.exited));
  await receiver?.close();
  await scratch?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const scrape = async (base: string) => {
  const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/plain");
  return res.text();
};
/** The value of one series (exact name with labels), or undefined. */
const value = (text: string, series: string) => {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

describe("metrics and logs after real traffic", { timeout: 240_000 }, () => {
  it("counts requests by route and status, deliveries by outcome, and latency from commit", async () => {
    const env = { DATA_DIR: dataDir, ...(scratch ? { DATABASE_URL: scratch.url } : {}) };
    const email = `metrics-${Date.now()}@example.test`;
    const vendor = await runCli(
      ["vendor", "create", "--name", "M", "--email", email, "--password-stdin", "--json"],
      env,
      "a long secret",
    );
    // With --json a failing command answers on stdout; the server's last lines say what it saw.
    const why = (r: { stdout: string; stderr: string }) =>
      `${r.stdout}${r.stderr}\n--- server output ---\n${api.output().slice(-4_000)}`;
    expect(vendor.code, why(vendor)).toBe(0);
    const created = await runCli(["api-key", "create", "--vendor", email, "--name", "k", "--json"], env);
    expect(created.code, why(created)).toBe(0);
    const { id: keyId, key } = JSON.parse(created.stdout) as { id: string; key: string };
    const vendorId = JSON.parse(vendor.stdout).id as string;
    const headers = { "x-api-key": key, "content-type": "application/json" };

    const hook = await fetch(`${api.url}/api/vendor/webhooks`, {
      method: "POST",
      headers,
      body: JSON.stringify({ url: receiver.url, events: ["order.created"] }),
    });
    expect(hook.status).toBe(201);
    for (let i = 0; i < 2; i++) {
      const order = await fetch(`${api.url}/api/vendor/orders`, {
        method: "POST",
        headers,
        body: JSON.stringify({ customerName: `C${i}`, type: "SUIT" }),
      });
      expect(order.status).toBe(201);
    }
    expect((await fetch(`${api.url}/api/vendor/orders/nope`, { headers })).status).toBe(404);
    await receiver.waitFor(2, 60_000);
    // Without PUBLIC_URL the User-Agent names no URL: a worker knows no address the API serves
    // (port 3000 would be a guess).
    expect(receiver.requests[0]?.headers["user-agent"]).toBe("vendor-api-webhooks/1.0");

    const apiMetrics = await scrape(api.url);
    expect(
      value(
        apiMetrics,
        'vendor_api_http_request_duration_seconds_count{method="POST",route="/api/vendor/orders",status_code="201"}',
      ),
    ).toBe(2);
    expect(
      value(
        apiMetrics,
        'vendor_api_http_request_duration_seconds_count{method="GET",route="/api/vendor/orders/:id",status_code="404"}',
      ),
    ).toBe(1);
    expect(value(apiMetrics, 'vendor_api_db_pool_connections{state="total"}')).toBeGreaterThanOrEqual(1);
    expect(apiMetrics).toContain("vendor_api_process_cpu_user_seconds_total");

    // The attempts are recorded once the receiver has answered: poll until both are counted.
    const deliveries = await eventually(async () => {
      const text = await scrape(workerUrl);
      return value(text, 'vendor_api_webhook_attempts_total{outcome="succeeded"}') === 2 ? text : undefined;
    }, 30_000);
    expect(value(deliveries, "vendor_api_webhook_delivery_latency_seconds_count")).toBe(2);
    expect(value(deliveries, "vendor_api_webhook_delivery_latency_seconds_sum")).toBeGreaterThan(0);
    expect(value(deliveries, 'vendor_api_outbox_backlog{stage="deliveries"}')).toBe(0);
    expect(value(deliveries, 'vendor_api_outbox_backlog{stage="events"}')).toBe(0);

    // Logs: the attempt's outcome, and the caller's vendor and credential ids on request lines.
    // A line reaches this process through a pipe, on its own schedule: the scrape that counted both
    // attempts (written at the same moment as their lines, one batch) can be answered first.
    const logsNow = () => (pg ? (worker as ServerProcess).output() : "") + api.output();
    const attemptLines = () =>
      logsNow()
        .split("\n")
        .filter((l) => l.includes('"msg":"webhook delivery attempt"'))
        .map((l) => JSON.parse(l));
    const attempt = await eventually(async () => attemptLines().length >= 2 && attemptLines(), 10_000);
    expect(attempt).toHaveLength(2);
    expect(attempt[0]).toMatchObject({ vendorId, outcome: "succeeded", statusCode: 200, attempt: 1 });
    // The API's lines come through their own pipe on the same terms (pino writes them from a
    // buffer, off the request): a PostgreSQL run under load read 2 of the 4 before they had all
    // arrived. The webhook, the two orders and the 404 each end with one.
    const completedLines = () =>
      api
        .output()
        .split("\n")
        .filter((l) => l.includes('"msg":"request completed"') && l.includes(vendorId));
    const completed = await eventually(async () => completedLines().length >= 4 && completedLines(), 10_000);
    expect(completed).toHaveLength(4);
    const logs = logsNow();
    expect(JSON.parse(completed[0] as string)).toMatchObject({
      vendorId,
      credentialId: keyId,
      credentialKind: "api_key",
    });
    expect(logs).not.toContain(key);
    // Health probes are not logged at info.
    expect(api.output()).not.toMatch(/"url":"\/health"/);
  });

  it("METRICS_TOKEN guards the endpoint", async () => {
    expect((await fetch(`${api.url}/metrics`)).status).toBe(401);
    expect((await fetch(`${api.url}/metrics`, { headers: { authorization: "Bearer wrong" } })).status).toBe(
      401,
    );
    expect((await fetch(`${workerUrl}/metrics`)).status).toBe(401);
  });

  it("the worker role answers /health and /ready on its own port", async () => {
    if (!pg) return; // PGlite runs one process (role all), whose API port serves them
    expect(await (await fetch(`${workerUrl}/health`)).json()).toEqual({ status: "ok" });
    expect(await (await fetch(`${workerUrl}/ready`)).json()).toEqual({ status: "ok" });
  });
});
