// SIGTERM never resets a request that already reached the server (CONTRACT 9): keep-alive
// clients keep writing orders while the service receives SIGTERM. Every request they sent is
// answered (201, or 503 with Connection: close once the drain began); a connection attempt after
// the listener closed is refused, which is no reset: that request never reached the server.
// On PGlite and PostgreSQL.
import http from "node:http";
import { describe, expect, it } from "vitest";
import { freePort } from "../helpers/ports.ts";
import { childEnv, processBackends, startService, vendorWithKeyByCli } from "../helpers/processes.ts";
import { sleep } from "../helpers/webhook-receiver.ts";

const CLIENTS = 8;
const ROUNDS = 3;

const { backends, track } = processBackends("sigterm");

type Outcome = { status: number; connection: string | undefined } | { error: string };

function post(port: number, agent: http.Agent, key: string, body: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path: "/api/vendor/orders",
        method: "POST",
        agent,
        headers: {
          "content-type": "application/json",
          "x-api-key": key,
          "content-length": Buffer.byteLength(body),
        },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
        res.on("error", (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
      },
    );
    req.on("error", (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    req.end(body);
  });
}

describe.each(backends)("on $name", ({ db }) => {
  it(`${CLIENTS} keep-alive clients writing through SIGTERM: every request sent is answered, none reset`, async () => {
    const dbEnv = await db();
    const env = childEnv({ ...dbEnv, HOST: "127.0.0.1", SHUTDOWN_GRACE_MS: "8000" });
    const body = JSON.stringify({ customerName: "Drain", type: "SUIT" });

    let key = "";
    const totals = {
      created: 0,
      unavailable: 0,
      refused: 0,
      resets: [] as string[],
      unexpected: [] as string[],
      exits: [] as (number | null)[],
    };
    for (let round = 0; round < ROUNDS; round++) {
      // A fresh port each round: the last round's may have been taken by another process since.
      const port = await freePort();
      const service = track(await startService({ ...env, PORT: String(port) }));
      // The vendor is made through the running server (the CLI asks it over its socket on PGlite).
      key ||= (await vendorWithKeyByCli(env, "Drain")).key;
      let answered = 0;
      const client = async () => {
        const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
        try {
          for (let i = 0; i < 10_000; i++) {
            const outcome = await post(port, agent, key, body);
            if ("error" in outcome) {
              // Refused: the listener is closed, nothing was sent. Anything else lost a request.
              if (outcome.error === "ECONNREFUSED") totals.refused++;
              else totals.resets.push(outcome.error);
              return;
            }
            answered++;
            if (outcome.status === 201) totals.created++;
            else if (outcome.status === 503) {
              totals.unavailable++;
              expect(outcome.connection).toBe("close");
            } else {
              totals.unexpected.push(`${outcome.status}`);
              return;
            }
          }
        } finally {
          agent.destroy();
        }
      };
      const clients = Array.from({ length: CLIENTS }, client);
      // SIGTERM at a random moment once the clients are writing.
      const threshold = CLIENTS * (2 + Math.floor(Math.random() * 6));
      while (answered < threshold) await sleep(2);
      await sleep(Math.random() * 10);
      service.child.kill("SIGTERM");
      await Promise.all(clients);
      totals.exits.push(await service.exited);
    }
    console.log(
      `SIGTERM drain over ${ROUNDS} rounds of ${CLIENTS} keep-alive clients: ${JSON.stringify(totals)}`,
    );
    expect(totals.resets).toEqual([]);
    expect(totals.unexpected).toEqual([]);
    expect(totals.exits).toEqual(Array(ROUNDS).fill(0));
    expect(totals.created).toBeGreaterThan(0);
  }, 240_000);
});
