// CONTRACT 12, Sync checksum: GET /api/vendor/sync/checksum?resource=…&until=… answers per UTC
// day of updatedAt (≤ until) the count of records and the lowercase hex SHA-256 of the lines
// `<id>:<updatedAt>` of that day's records sorted by id in byte order, joined with "\n". The test
// computes the same from the list API, as a POS would, after a random run of creates, updates
// and deletions (fast-check, bounded runs), and compares.
import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { allPages } from "../helpers/api-client.ts";
import { adjustableClock } from "../helpers/clock.ts";
import { createKey, createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

// Moved on by the runs, so their records spread over several UTC days.
const clock = adjustableClock();
const t = useTestApp({ now: clock.now });
const resources = ["orders", "customers", "appointments"] as const;
type Resource = (typeof resources)[number];

/** What a POS computes from the records it holds (the guide's recipe). */
function clientChecksum(records: Array<{ id: string; updatedAt: string }>, until: string) {
  const byDay = new Map<string, string[]>();
  for (const r of records) {
    if (r.updatedAt > until) continue;
    const day = r.updatedAt.slice(0, 10);
    byDay.set(day, [...(byDay.get(day) ?? []), r.id]);
  }
  const stamp = new Map(records.map((r) => [r.id, r.updatedAt]));
  return [...byDay.keys()].sort().map((day) => {
    const ids = (byDay.get(day) ?? []).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    const text = ids.map((id) => `${id}:${stamp.get(id)}`).join("\n");
    return { day, count: ids.length, hash: createHash("sha256").update(text, "utf8").digest("hex") };
  });
}

let daysSeen = 0;

async function compare(key: string, until: string) {
  for (const resource of resources) {
    const records = await allPages(t.api, `/api/vendor/${resource}`, key, resource);
    const res = await t.api.get(`/api/vendor/sync/checksum?resource=${resource}&until=${until}`, { key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ resource, until, days: clientChecksum(records, until) });
    daysSeen = Math.max(daysSeen, res.body.days.length);
  }
}

type Command =
  | { kind: "createCustomer" | "createOrder" }
  | { kind: "updateCustomer" | "eraseCustomer" | "createAppointment" | "updateAppointment"; pick: number }
  | { kind: "deleteAppointment" | "updateOrder"; pick: number }
  | { kind: "nextDay"; hours: number };

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.constant({ kind: "createCustomer" as const }),
  fc.constant({ kind: "createOrder" as const }),
  fc.record({ kind: fc.constant("nextDay" as const), hours: fc.integer({ min: 6, max: 40 }) }),
  ...(
    [
      "updateCustomer",
      "eraseCustomer",
      "createAppointment",
      "updateAppointment",
      "deleteAppointment",
      "updateOrder",
    ] as const
  ).map((kind) => fc.record({ kind: fc.constant(kind), pick: fc.nat(50) })),
);

async function run(key: string, commands: Command[]) {
  const live: Record<Resource, string[]> = { orders: [], customers: [], appointments: [] };
  const pick = (list: string[], n: number) => (list.length === 0 ? undefined : list[n % list.length]);
  let n = 0;
  for (const c of commands) {
    n++;
    if (c.kind === "nextDay") {
      clock.advance(c.hours * 3600_000);
    } else if (c.kind === "createCustomer") {
      const res = await t.api.post("/api/vendor/customers", { name: `C ${n}` }, { key });
      live.customers.push(res.body.id);
    } else if (c.kind === "createOrder") {
      const res = await t.api.post(
        "/api/vendor/orders",
        { customerName: `O ${n}`, customerEmail: `o${n}@example.com`, type: "SUIT" },
        { key },
      );
      live.orders.push(res.body.id);
      if (!live.customers.includes(res.body.customerId)) live.customers.push(res.body.customerId);
    } else if (c.kind === "updateCustomer") {
      const id = pick(live.customers, c.pick);
      if (id)
        expect((await t.api.patch(`/api/vendor/customers/${id}`, { notes: `n ${n}` }, { key })).status).toBe(
          200,
        );
    } else if (c.kind === "eraseCustomer") {
      const id = pick(live.customers, c.pick);
      if (!id) continue;
      expect((await t.api.delete(`/api/vendor/customers/${id}`, { key })).status).toBe(204);
      live.customers = live.customers.filter((x) => x !== id);
    } else if (c.kind === "createAppointment") {
      const customerId = pick(live.customers, c.pick);
      if (!customerId) continue;
      const res = await t.api.post(
        "/api/vendor/appointments",
        { customerId, type: "FITTING", date: `2027-03-${String((n % 28) + 1).padStart(2, "0")}T10:00:00Z` },
        { key },
      );
      expect(res.status).toBe(201);
    } else if (c.kind === "updateAppointment" || c.kind === "deleteAppointment") {
      const all = await allPages(t.api, "/api/vendor/appointments", key, "appointments");
      const id = pick(
        all.map((a: { id: string }) => a.id),
        c.pick,
      );
      if (!id) continue;
      const res =
        c.kind === "updateAppointment"
          ? await t.api.patch(`/api/vendor/appointments/${id}`, { notes: `n ${n}` }, { key })
          : await t.api.delete(`/api/vendor/appointments/${id}`, { key });
      expect(res.status).toBeLessThan(300);
    } else if (c.kind === "updateOrder") {
      const id = pick(live.orders, c.pick);
      if (id)
        expect((await t.api.patch(`/api/vendor/orders/${id}`, { color: `c ${n}` }, { key })).status).toBe(
          200,
        );
    }
  }
}

describe("GET /api/vendor/sync/checksum", () => {
  it("equals a client-side computation from the list API after a random run of creates, updates and deletions", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 14 }), async (commands) => {
        const { key } = await createVendorWithKey(t.ctx);
        await run(key, commands);
        // Every write above has committed: an until a minute ahead covers all of them.
        await compare(key, new Date(clock.now().getTime() + 60_000).toISOString());
      }),
      {
        numRuns: 8,
        // Always also this run: records over three days, each kind created, updated and deleted.
        examples: [
          [
            [
              { kind: "createCustomer" },
              { kind: "createOrder" },
              { kind: "createAppointment", pick: 0 },
              { kind: "nextDay", hours: 30 },
              { kind: "updateCustomer", pick: 0 },
              { kind: "createAppointment", pick: 1 },
              { kind: "updateOrder", pick: 0 },
              { kind: "nextDay", hours: 24 },
              { kind: "updateAppointment", pick: 1 },
              { kind: "deleteAppointment", pick: 0 },
              { kind: "createOrder" },
              { kind: "eraseCustomer", pick: 0 },
            ],
          ],
        ],
      },
    );
    expect(daysSeen).toBeGreaterThan(1);
  });

  it("counts only records updated at or before until, and an empty shop has no days", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const empty = await t.api.get("/api/vendor/sync/checksum?resource=orders&until=2030-01-01T00:00:00Z", {
      key,
    });
    expect(empty.body).toEqual({ resource: "orders", until: "2030-01-01T00:00:00.000Z", days: [] });
    const first = await t.api.post("/api/vendor/customers", { name: "A" }, { key });
    const at = first.body.updatedAt as string;
    await t.api.post("/api/vendor/customers", { name: "B" }, { key });
    const line = `${first.body.id}:${at}`;
    const res = await t.api.get(`/api/vendor/sync/checksum?resource=customers&until=${at}`, { key });
    expect(res.body.days).toEqual([
      { day: at.slice(0, 10), count: 1, hash: createHash("sha256").update(line).digest("hex") },
    ]);
  });

  it("needs the resource's read scope, and names a bad resource or until", async () => {
    const { key, vendor } = await createVendorWithKey(t.ctx);
    const customersOnly = await createKey(t.ctx, vendor.id, ["customers:read"]);
    expect(
      (await t.api.get("/api/vendor/sync/checksum?resource=customers", { key: customersOnly })).status,
    ).toBe(200);
    const refused = await t.api.get("/api/vendor/sync/checksum?resource=orders", { key: customersOnly });
    expect(refused.status).toBe(403);
    expect(refused.headers.get("www-authenticate")).toContain('scope="orders:read"');
    const bad = await t.api.get("/api/vendor/sync/checksum?resource=invoices", { key });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe("resource");
    const badUntil = await t.api.get("/api/vendor/sync/checksum?resource=orders&until=yesterday", { key });
    expect(badUntil.status).toBe(400);
    expect(badUntil.body.errors[0].field).toBe("until");
  });
});
