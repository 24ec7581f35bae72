// A dispatcher started while PostgreSQL does not answer starts anyway, and delivers once it
// answers. A round of the suite caught the service dying of it: the frozen-database test froze its
// cluster just after the API answered, while `--role all` was still starting its dispatcher, whose
// first statement (measuring the database's clock) failed and took the process down. The clock is
// now measured by the dispatcher's first turn, which fails and is retried like any other.
// PostgreSQL only: PGlite is in the process.
import { afterAll, describe, expect, it } from "vitest";
import { type Database, openDatabase } from "../../src/db/client.ts";
import { type Dispatcher, startDispatcher } from "../../src/webhook-delivery/dispatcher.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { pgTarget } from "../helpers/pooler.ts";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.ts";
import { useTestApp } from "../helpers/test-app.ts";
import { type Receiver, startReceiver } from "../helpers/webhook-receiver.ts";

const t = useTestApp({ ownDatabase: true });
let proxy: TcpProxy | undefined;
let dispatcher: Dispatcher | undefined;
let receiver: Receiver | undefined;
let away: Database | undefined;
afterAll(async () => {
  await dispatcher?.stop(1_000);
  await away?.close();
  await receiver?.close();
  await proxy?.close();
});

describe.skipIf(!process.env.TEST_DATABASE_URL)("a dispatcher started with the database away", () => {
  it("starts, and delivers once the database answers", async () => {
    // The app's own database, reached through a proxy that refuses every connection for now.
    const url = new URL(t.database.directUrl ?? "");
    proxy = await startTcpProxy(Number(url.port));
    proxy.refuse(true);
    url.port = new URL(proxy.url).port;
    away = await openDatabase(pgTarget(url.toString()), {
      timeouts: { queryMs: 1_000, connectMs: 1_000 },
    });
    dispatcher = await startDispatcher({
      config: t.config,
      database: away,
      log: { info() {}, warn() {}, error() {} },
    });

    receiver = await startReceiver();
    const { key } = await createVendorWithKey(t.ctx);
    const hook = await t.api.post(
      "/api/vendor/webhooks",
      { url: receiver.url, events: ["order.created"] },
      { key },
    );
    expect(hook.status).toBe(201);
    const order = await t.api.post("/api/vendor/orders", { customerName: "Away", type: "SUIT" }, { key });
    expect(order.status).toBe(201);

    proxy.refuse(false);
    const [request] = await receiver.waitFor(1, 15_000);
    expect(request?.body.data.id).toBe(order.body.id);
  });
});
