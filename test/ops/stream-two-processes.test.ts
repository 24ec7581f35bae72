// The event stream and `vendor-api listen` with two API processes (CONTRACT 10): two
// `--role api` processes on one PostgreSQL database, each on its own port. An event written
// through one arrives on a stream held open on the other (both ways); and `listen`, reaching the
// API through a TCP proxy, follows one process, which is then SIGKILLed: the proxy moves to the
// other, and the events written meanwhile arrive once, in order, replayed with Last-Event-ID by a
// process that never served the stream before. PostgreSQL only: PGlite serves one process.
import { afterAll, describe, expect, it } from "vitest";
import { verifyWebhook } from "../../clients/typescript/src/index.ts";
import { apiClient } from "../helpers/api-client.ts";
import { freePort } from "../helpers/ports.ts";
import {
  childEnv,
  processBackends,
  startCli,
  startService,
  vendorWithKeyByCli,
} from "../helpers/processes.ts";
import { openSse } from "../helpers/sse.ts";
import { startTcpProxy } from "../helpers/tcp-proxy.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";

const pg = Boolean(process.env.TEST_DATABASE_URL);
const { backends, track } = processBackends("stream-two-processes");
const cleanup: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c();
});

describe.skipIf(!pg)("the event stream across two API processes", { timeout: 240_000 }, () => {
  it.each(backends)(
    "an event written through one process arrives on a stream held on the other, and listen fails over ($name)",
    async ({ db }) => {
      const database = await db();
      const [portA, portB] = [await freePort(), await freePort()];
      const a = track(await startService(childEnv({ ...database, PORT: String(portA) }), ["--role", "api"]));
      const b = track(await startService(childEnv({ ...database, PORT: String(portB) }), ["--role", "api"]));
      const { key } = await vendorWithKeyByCli(childEnv({ ...database }), "TwoProcesses");
      const [apiA, apiB] = [apiClient(a.url), apiClient(b.url)];
      const order = (api: typeof apiA, name: string) =>
        api.post("/api/vendor/orders", { customerName: name, type: "BRIDAL_DRESS" }, { key });

      // A stream on each process; a write on the other one reaches it.
      const onA = await openSse(`${a.url}/api/vendor/events/stream?types=order.created`, {
        "x-api-key": key,
      });
      const onB = await openSse(`${b.url}/api/vendor/events/stream?types=order.created`, {
        "x-api-key": key,
      });
      cleanup.push(async () => {
        onA.close();
        onB.close();
      });
      expect([onA.status, onB.status]).toEqual([200, 200]);
      const viaB = await order(apiB, "Written on B");
      const viaA = await order(apiA, "Written on A");
      for (const stream of [onA, onB]) {
        const first = await stream.nextEvent(15_000);
        const second = await stream.nextEvent(15_000);
        expect([first.json.data.id, second.json.data.id]).toEqual([viaB.body.id, viaA.body.id]);
      }

      // listen follows A through the proxy; every write goes through B.
      const receiver = await startReceiver();
      cleanup.push(() => receiver.close());
      const proxy = await startTcpProxy(portA);
      cleanup.push(() => proxy.close());
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
          "order.created",
        ],
        { DATABASE_URL: "" },
      );
      cleanup.push(async () => {
        if (cli.child.exitCode === null) cli.child.kill("SIGKILL");
        await cli.exited;
      });
      const [, secret] = await cli.waitFor("stdout", /signing secret (\S+)/);
      await cli.waitFor("stderr", /connected to /);
      const created: string[] = [];
      for (const name of ["One", "Two"]) created.push((await order(apiB, name)).body.id);
      await receiver.waitFor(2, 30_000);

      // A dies; new connections go to B. Two orders are written before listen is back.
      proxy.refuse(true);
      a.child.kill("SIGKILL");
      await a.exited;
      for (const name of ["Three", "Four"]) created.push((await order(apiB, name)).body.id);
      proxy.target = portB;
      proxy.refuse(false);
      await cli.waitFor("stderr", /resuming after /);
      created.push((await order(apiB, "Five")).body.id);
      await receiver.waitFor(5, 30_000);

      const forwarded = receiver.requests.map((r) => verifyWebhook(secret as string, r.rawBody, r.headers));
      expect(forwarded.map((e) => (e.data as { id: string }).id)).toEqual(created);
      cli.child.kill("SIGTERM");
      expect(await cli.exited).toBe(0);
      expect(receiver.requests).toHaveLength(5);
    },
  );
});
