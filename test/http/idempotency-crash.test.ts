// A retried request has its effect once, whatever crashes in between (CONTRACT 8): keyed
// POST /api/vendor/orders are sent by clients that retry every unanswered key with its
// Idempotency-Key, while the service is SIGKILLed at random moments and restarted. In the end
// every key made exactly one order and one order.created event, and every key replays the
// answer its client saw. On PGlite and PostgreSQL.
import { describe, expect, it } from "vitest";
import { apiClient } from "../helpers/api-client.ts";
import { freePort } from "../helpers/ports.ts";
import { childEnv, processBackends, startService, vendorWithKeyByCli } from "../helpers/processes.ts";
import { sleep } from "../helpers/webhook-receiver.ts";

const KEYS = 60;
const CLIENTS = 16;
const KILLS = 5;

const { backends, track } = processBackends("idem-crash");

describe.each(backends)("on $name", ({ db }) => {
  it(`keyed POSTs retried across ${KILLS} SIGKILLs make one order and one event per key`, async () => {
    const port = await freePort();
    const env = childEnv({
      ...(await db()),
      PORT: String(port),
      HOST: "127.0.0.1",
      SHUTDOWN_GRACE_MS: "3000",
    });
    const api = apiClient(`http://127.0.0.1:${port}`);
    const start = async () => track(await startService(env));
    let service = await start();
    const { key } = await vendorWithKeyByCli(env, "Idem");
    const keys = Array.from({ length: KEYS }, (_, i) => `crash-key-${i}`);
    const answered = new Map<string, string>(); // key → order id of the first 2xx its client saw
    const outcomes = { created: 0, replayed: 0, inUse: 0, unavailable: 0, connectionErrors: 0 };
    let next = 0;
    let answeredSinceStart = 0;
    const client = async () => {
      for (let i = next++; i < keys.length; i = next++) {
        const k = keys[i] as string;
        const body = { customerName: `Crash ${i}`, type: "SUIT", description: `key ${k}` };
        for (let tries = 0; !answered.has(k); tries++) {
          if (tries > 600) throw new Error(`key ${k} never answered`);
          try {
            const res = await api.post("/api/vendor/orders", body, {
              key,
              headers: { "idempotency-key": k },
            });
            if (res.status === 201) {
              answered.set(k, res.body.id);
              answeredSinceStart++;
              if (res.headers.get("idempotent-replayed") === "true") outcomes.replayed++;
              else outcomes.created++;
              continue;
            }
            if (res.status === 409) outcomes.inUse++;
            else if (res.status === 503) outcomes.unavailable++;
            else throw new Error(`unexpected ${res.status}: ${res.text}`);
          } catch (err) {
            if (!(err instanceof TypeError)) throw err; // fetch failed: the process is down
            outcomes.connectionErrors++;
          }
          await sleep(100);
        }
      }
    };

    const clients = Array.from({ length: CLIENTS }, client);
    let kills = 0;
    const killer = (async () => {
      while (kills < KILLS) {
        // A random moment while requests are being answered: after 1 to 4 answers since the
        // start, plus up to 5 ms, so that some transactions have committed and not been answered.
        const threshold = 1 + Math.floor(Math.random() * 4);
        answeredSinceStart = 0;
        while (answeredSinceStart < threshold && answered.size < KEYS) await sleep(1);
        await sleep(Math.random() * 5);
        service.child.kill("SIGKILL");
        await service.exited;
        kills++;
        service = await start();
      }
    })();
    await Promise.all([...clients, killer]);
    expect(kills).toBe(KILLS);
    expect(answered.size).toBe(KEYS);

    // Every key replays the answer its client saw.
    for (const k of keys) {
      const res = await api.post(
        "/api/vendor/orders",
        { customerName: `Crash ${keys.indexOf(k)}`, type: "SUIT", description: `key ${k}` },
        { key, headers: { "idempotency-key": k } },
      );
      expect(res.status).toBe(201);
      expect(res.headers.get("idempotent-replayed")).toBe("true");
      expect(res.body.id).toBe(answered.get(k));
    }

    // Exactly one order per key, and it is the one the client was told about.
    const orders: any[] = [];
    for (let cursor: string | null = null; ; ) {
      const page: any = await api.get(`/api/vendor/orders?limit=100${cursor ? `&cursor=${cursor}` : ""}`, {
        key,
      });
      orders.push(...page.body.orders);
      cursor = page.body.nextCursor;
      if (!cursor) break;
    }
    const events: any[] = [];
    for (let cursor: string | null = null; ; ) {
      const q: string = `type=order.created&limit=100${cursor ? `&cursor=${cursor}` : ""}`;
      const page: any = await api.get(`/api/vendor/events?${q}`, { key });
      events.push(...page.body.events);
      cursor = page.body.nextCursor;
      if (!cursor) break;
    }
    const perKey = new Map<string, number>();
    for (const o of orders) perKey.set(o.description, (perKey.get(o.description) ?? 0) + 1);
    const duplicated = [...perKey].filter(([, n]) => n > 1).map(([note]) => note);
    console.log(
      `idempotency crash (${KEYS} keys, ${CLIENTS} clients, ${kills} SIGKILLs): ${orders.length} orders, ${events.length} order.created events, duplicated keys ${duplicated.length}; answers ${JSON.stringify(outcomes)}`,
    );
    expect(duplicated).toEqual([]);
    expect(orders).toHaveLength(KEYS);
    expect(new Set(orders.map((o) => o.id))).toEqual(new Set(answered.values()));
    expect(events).toHaveLength(KEYS);
    expect(new Set(events.map((e) => e.data.id))).toEqual(new Set(answered.values()));

    service.child.kill("SIGTERM");
    expect(await service.exited).toBe(0);
  }, 300_000);
});
