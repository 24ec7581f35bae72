// `vendor-api listen` (CONTRACT 10) as an operator runs it: a real service process, the CLI as
// its own process following the event stream over HTTP, and a real receiver that checks every
// request with the client package's verifyWebhook and the secret the CLI printed. The CLI reaches
// the API through a TCP proxy, so the test can cut its connection (and refuse new ones meanwhile)
// the way a network does; then the API process is SIGKILLed and started again. Every event
// arrives once, in order, signed: nothing lost to a drop, nothing forwarded twice.
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { verifyWebhook } from "../../clients/typescript/src/index.ts";
import { apiClient } from "../helpers/api-client.ts";
import { freePort } from "../helpers/ports.ts";
import {
  type CliProcess,
  childEnv,
  processBackends,
  startCli,
  startService,
  vendorWithKeyByCli,
} from "../helpers/processes.ts";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { type Receiver, startReceiver } from "../helpers/webhook-receiver.ts";

const { backends, track } = processBackends("listen");
const cleanup: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c();
});

function stopCli(cli: CliProcess) {
  return async () => {
    if (cli.child.exitCode === null) cli.child.kill("SIGKILL");
    await cli.exited;
  };
}

/** The lines of stdout that report a forwarded event. */
const eventLines = (cli: CliProcess) =>
  cli
    .stdout()
    .split("\n")
    .filter((l) => / -> POST /.test(l));

describe.each(backends)("vendor-api listen ($name)", { timeout: 240_000 }, ({ db }) => {
  it("forwards each event signed like a delivery, and resumes after a cut connection and an API restart without loss or duplicates", async () => {
    const port = await freePort();
    const env = childEnv({ ...(await db()), PORT: String(port) });
    let service = track(await startService(env));
    const api = apiClient(service.url);
    const { key } = await vendorWithKeyByCli(env, "Listen");
    const receiver: Receiver = await startReceiver();
    cleanup.push(() => receiver.close());
    const proxy: TcpProxy = await startTcpProxy(port);
    cleanup.push(() => proxy.close());

    // Listen is an HTTP client: no DATABASE_URL, and a DATA_DIR under a regular file, where no
    // database or control socket can be opened (not even by root), so any attempt would fail.
    const blocked = path.join(tempDir("listen"), "a-file");
    fs.writeFileSync(blocked, "");
    cleanup.push(async () => fs.rmSync(path.dirname(blocked), { recursive: true, force: true }));
    const cli = startCli(
      [
        "listen",
        "--api-url",
        proxy.url,
        "--api-key",
        key,
        "--forward-to",
        receiver.url,
        "--events",
        "order.created,order.status_changed",
      ],
      { DATABASE_URL: "", DATA_DIR: path.join(blocked, "data") },
    );
    cleanup.push(stopCli(cli));
    const [, secret] = await cli.waitFor("stdout", /signing secret (\S+)/);
    expect(secret).toMatch(/^whsec_/);
    await cli.waitFor("stderr", /connected to /);

    const created: string[] = [];
    const createOrder = async (name: string) => {
      const res = await api.post("/api/vendor/orders", { customerName: name, type: "BRIDAL_DRESS" }, { key });
      expect(res.status).toBe(201);
      created.push(res.body.id);
      return res.body.id as string;
    };

    // Live: two orders and a status move; a customer (not in --events) is not forwarded.
    const first = await createOrder("Ana");
    await api.post("/api/vendor/customers", { name: "Not forwarded" }, { key });
    const moved = await api.put(
      `/api/vendor/orders/${first}/status`,
      { status: "IN_PRODUCTION", message: "Cutting" },
      { key },
    );
    expect(moved.status).toBe(200);
    await createOrder("Bea");
    await receiver.waitFor(3, 30_000);

    // The connection is cut and stays down while two orders are made: a reconnect with
    // Last-Event-ID replays them.
    proxy.refuse(true);
    proxy.cut();
    await cli.waitFor("stderr", /connection lost|stream ended/);
    await createOrder("Carla");
    await createOrder("Dora");
    proxy.refuse(false);
    await receiver.waitFor(5, 30_000);
    await cli.waitFor("stderr", /resuming after /);

    // The API process dies and comes back on the same port and database.
    service.child.kill("SIGKILL");
    await service.exited;
    service = track(await startService(env));
    await createOrder("Eva");
    await createOrder("Fia");
    await receiver.waitFor(7, 60_000);

    // Each request verifies with the printed secret, carries a delivery's headers, and names an
    // event the API lists; all arrive once, in the order they happened.
    const events = receiver.requests.map((r) => {
      const event = verifyWebhook(secret as string, r.rawBody, r.headers);
      expect(r.headers["x-service-event"]).toBe(event.event);
      expect(r.headers["x-service-delivery"]).toMatch(/^[a-z0-9]{24,25}$/);
      expect(r.headers["content-type"]).toBe("application/json");
      expect(r.headers["user-agent"]).toMatch(/^vendor-api-webhooks\/1\.0/);
      expect(Object.keys(r.body).sort()).toEqual(["data", "event", "id", "timestamp"]);
      return event;
    });
    expect(events.map((e) => e.event)).toEqual([
      "order.created",
      "order.status_changed",
      "order.created",
      "order.created",
      "order.created",
      "order.created",
      "order.created",
    ]);
    expect(
      events.filter((e) => e.event === "order.created").map((e) => (e.data as { id: string }).id),
    ).toEqual(created);
    expect(new Set(events.map((e) => e.id)).size).toBe(7);
    const listed = await apiClient(service.url).get("/api/vendor/events?limit=100", { key });
    const listedIds = (listed.body.events as { id: string; event: string }[])
      .filter((e) => e.event.startsWith("order."))
      .map((e) => e.id)
      .reverse();
    expect(events.map((e) => e.id)).toEqual(listedIds);

    // One line per event with the receiver's status.
    const lines = eventLines(cli);
    expect(lines).toHaveLength(7);
    for (const [i, line] of lines.entries()) {
      expect(line).toContain(events[i]?.id);
      expect(line).toContain("[200]");
    }

    cli.child.kill("SIGINT");
    expect(await cli.exited).toBe(0);
    expect(receiver.requests).toHaveLength(7);
  });

  it("a refused key ends listen with status 1, and bad arguments with status 2, before anything is sent", async () => {
    const receiver = await startReceiver();
    cleanup.push(() => receiver.close());
    const port = await freePort();
    const env = childEnv({ ...(await db()), PORT: String(port) });
    const service = track(await startService(env));
    const refused = startCli(
      ["listen", "--api-url", service.url, "--api-key", "vk_nonsense", "--forward-to", receiver.url],
      {},
    );
    cleanup.push(stopCli(refused));
    expect(await refused.exited).toBe(1);
    expect(refused.stderr()).toMatch(/refused the stream \(401\)/);
    const unknown = startCli(
      [
        "listen",
        "--api-url",
        service.url,
        "--api-key",
        "vk_x",
        "--forward-to",
        receiver.url,
        "--events",
        "order.nope",
      ],
      {},
    );
    expect(await unknown.exited).toBe(2);
    expect(unknown.stderr()).toContain("--events names no event: order.nope");
    const notUrl = startCli(
      ["listen", "--api-url", "ftp://x", "--api-key", "k", "--forward-to", receiver.url],
      {},
    );
    expect(await notUrl.exited).toBe(2);
    expect(receiver.requests).toHaveLength(0);
  });
});
