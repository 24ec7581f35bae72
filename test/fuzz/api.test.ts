// Our own fuzzer: property-based (fast-check), driven by the service's own
// /openapi.json. For every operation it sends valid requests generated from the document's
// schemas and mutations of them (see cases.ts), over real HTTP to the real app, and holds every
// answer to the contract (see oracle.ts); /health must answer at once throughout.
//
//   FUZZ_RUNS=1000 FUZZ_SEED=123 npx vitest run test/fuzz --maxWorkers=1
//
// The seed is printed; a failure names the operation, the case and the seed that replays it.
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { createVendorWithKey } from "../helpers/factories.ts";
import { createClient, obtainTokens, REDIRECT_URI } from "../helpers/oauth.ts";
import { startTestApp } from "../helpers/test-app.ts";
import { caseOf, type Draft, toRequest } from "./cases.ts";
import { type Operation, operationsOf } from "./openapi-model.ts";
import { check, kindOf } from "./oracle.ts";
import { type RawResponse, send } from "./raw-http.ts";
import type { Pools } from "./values.ts";

const RUNS = Number(process.env.FUZZ_RUNS ?? 100);
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const HEALTH_EVERY = 10;
const HEALTH_MS = 2_000;

const t = await startTestApp({
  config: { rateLimitPerMinute: 1_000_000 },
  // Webhook URLs the fuzzer registers resolve to loopback: nothing leaves the machine.
  resolver: async () => [{ address: "127.0.0.1", family: 4 }],
});
afterAll(() => t.close());
const origin = new URL(t.url);

const { vendor, key } = await createVendorWithKey(t.ctx, "Fuzz Bridal");
const other = await createVendorWithKey(t.ctx, "Elsewhere Bridal");
const client = await createClient(t.ctx);
const tokens = await obtainTokens(t, client);

/** Each resource once for the fuzzing vendor and once for another (whose ids must be 404). */
async function seed(apiKey: string, vendorId: string) {
  const customer = await t.api.post(
    "/api/vendor/customers",
    { name: "Seed Customer", email: `seed-${vendorId}@example.com` },
    { key: apiKey },
  );
  const order = await t.api.post(
    "/api/vendor/orders",
    { customerName: "Seed Customer", customerEmail: `seed-${vendorId}@example.com`, type: "BRIDAL_DRESS" },
    { key: apiKey },
  );
  const appointment = await t.api.post(
    "/api/vendor/appointments",
    { customerId: customer.body.id, type: "FITTING", date: "2027-05-01T10:00:00Z" },
    { key: apiKey },
  );
  const webhook = await t.api.post(
    "/api/vendor/webhooks",
    { url: "http://127.0.0.1:9/hook", events: ["order.created"] },
    { key: apiKey },
  );
  const inquiry = await t.api.post(`/api/public/vendors/${vendorId}/inquiries`, {
    name: "Ann",
    email: "ann@example.com",
    message: "Hello",
  });
  const events = await t.api.get("/api/vendor/events", { key: apiKey });
  const ids = {
    customers: [customer.body.id],
    orders: [order.body.id],
    appointments: [appointment.body.id],
    webhooks: [webhook.body.id],
    inquiries: [inquiry.body.id],
    events: events.body.events.map((e: { id: string }) => e.id),
  };
  for (const [name, list] of Object.entries(ids)) {
    if (list.some((id: unknown) => typeof id !== "string")) throw new Error(`fuzz seed: no ${name} id`);
  }
  return ids;
}

const mine = await seed(key, vendor.id);
const theirs = await seed(other.key, other.vendor.id);
const pools: Pools = {
  ids: { ...mine, vendors: [vendor.id, other.vendor.id], deliveries: [] },
  foreignIds: Object.values(theirs).flat(),
  vendorIds: [vendor.id, other.vendor.id],
  clientId: client.clientId,
  clientSecret: client.clientSecret,
  tokens: [tokens.refresh_token, tokens.access_token],
  redirectUri: REDIRECT_URI,
  scopes: ["orders:read", "orders:write", "customers:read", "webhooks:read", "profile:read"],
};

const document = await (await fetch(`${t.url}/openapi.json`)).json();
const operations = operationsOf(document);
console.log(
  `fuzz: ${operations.length} operations × ${RUNS} cases, seed ${SEED} (set FUZZ_SEED / FUZZ_RUNS to change), ${process.env.TEST_DATABASE_URL ? "PostgreSQL" : "PGlite"}`,
);

/** Ids the service hands out in Location headers join the pools, so later cases can use them. */
function remember(res: RawResponse) {
  const location = res.headers.location;
  if (res.status !== 201 || typeof location !== "string") return;
  const [collection, id] = location.split("/").slice(-2);
  if (!collection || !id) return;
  pools.ids[collection] = [...(pools.ids[collection] ?? []), id];
}

async function healthy(): Promise<void> {
  const res = await send(origin, { method: "GET", target: "/health", headers: {} }, HEALTH_MS);
  if (res.status !== 200 || res.ms > HEALTH_MS)
    throw new Error(`/health: ${res.status} in ${Math.round(res.ms)} ms`);
}

function describeCase(op: Operation, draft: Draft, target: string, res?: RawResponse): string {
  const request = toRequest(op, draft);
  const body = request.body ? request.body.subarray(0, 300).toString("utf8") : "";
  return [
    `case: ${draft.label}`,
    `request: ${request.method} ${target.slice(0, 300)}`,
    `headers: ${JSON.stringify(request.headers).slice(0, 300)}`,
    `body (${request.body?.length ?? 0} B): ${body}`,
    res ? `answer: ${res.status} ${res.body.subarray(0, 400).toString("utf8")}` : "",
  ].join("\n");
}

const summary: string[] = [];
afterAll(() => {
  console.log(`fuzz summary (seed ${SEED}, ${RUNS} runs per operation):\n${summary.join("\n")}`);
});

describe(`every operation of /openapi.json keeps the contract under fuzzing (seed ${SEED})`, () => {
  operations.forEach((op, index) => {
    it(
      `${op.method} ${op.path} (${op.id})`,
      async () => {
        const statuses = new Map<number, number>();
        let cases = 0;
        const started = performance.now();
        const property = fc.asyncProperty(caseOf(op, { pools, apiKey: key }), async (draft) => {
          cases++;
          // Per-address limits (public routes) see a different loopback client every few cases.
          if (kindOf(op) !== "plain") draft.localAddress = `127.0.0.${2 + (cases % 250)}`;
          const request = toRequest(op, draft);
          let res: RawResponse;
          try {
            res = await send(origin, request);
          } catch (err) {
            if (
              (err as NodeJS.ErrnoException).code === "ERR_UNESCAPED_CHARACTERS" ||
              (err as Error).name === "TypeError"
            ) {
              return; // not sendable as HTTP/1.1 by a client: nothing to learn
            }
            await healthy();
            throw new Error(
              `no answer: ${(err as Error).message}\n${describeCase(op, draft, request.target)}`,
            );
          }
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          remember(res);
          const problems = check(op, request.target, res);
          if (problems.length > 0)
            throw new Error(`${problems.join("; ")}\n${describeCase(op, draft, request.target, res)}`);
          if (cases % HEALTH_EVERY === 0) await healthy();
        });
        await fc.assert(property, {
          numRuns: RUNS,
          seed: SEED + index,
          endOnFailure: true,
          // A short report: the case, not the megabytes a hostile value can hold.
          reporter: (run) => {
            if (!run.failed) return;
            const cause =
              run.errorInstance instanceof Error ? run.errorInstance.message : String(run.errorInstance);
            throw new Error(
              `${op.method} ${op.path} failed after ${run.numRuns} cases (replay: FUZZ_SEED=${SEED} — operation seed ${run.seed}, path ${run.counterexamplePath})\n${cause}`,
            );
          },
        });
        await healthy();
        const byStatus = [...statuses.entries()]
          .sort(([a], [b]) => a - b)
          .map(([s, n]) => `${s}×${n}`)
          .join(" ");
        summary.push(
          `${op.method} ${op.path}: ${cases} cases in ${Math.round(performance.now() - started)} ms: ${byStatus}`,
        );
        expect(cases).toBeGreaterThanOrEqual(RUNS);
      },
      Math.max(60_000, RUNS * 500),
    );
  });
});
