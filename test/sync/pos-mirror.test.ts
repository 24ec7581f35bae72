// CONTRACT 12 as a POS lives it: a mirror of orders, customers and appointments kept by polling
// alone (`updatedSince` with `includeDeleted=true`, the README's "Incremental sync" procedure),
// through a random run of creates, updates, appointment deletions, customer merges and erasures,
// holds exactly the service's records: its own checksum of them equals GET /sync/checksum, and its
// ids equal the full lists'. Tombstones are what let it drop what was deleted, erased or merged.
import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { allPages } from "../helpers/api-client.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";
import { eventually } from "../helpers/webhook-receiver.ts";

const t = useTestApp();
const resources = ["orders", "customers", "appointments"] as const;
type Resource = (typeof resources)[number];
type Item = { id: string; updatedAt: string; deleted?: true };

/** The POS's copy: per resource, the records it holds and the instant it resumes from. */
class Mirror {
  readonly held: Record<Resource, Map<string, string>> = {
    orders: new Map(),
    customers: new Map(),
    appointments: new Map(),
  };
  private readonly since: Record<Resource, string> = {
    orders: "1970-01-01T00:00:00.000Z",
    customers: "1970-01-01T00:00:00.000Z",
    appointments: "1970-01-01T00:00:00.000Z",
  };

  constructor(private readonly key: string) {}

  /** One pass of the procedure for every resource: read the changes, keep the newest of each id. */
  async poll(): Promise<void> {
    for (const resource of resources) {
      let cursor: string | undefined;
      let newest = this.since[resource];
      do {
        const query = `updatedSince=${encodeURIComponent(this.since[resource])}&includeDeleted=true&limit=7`;
        const res = await t.api.get(
          `/api/vendor/${resource}?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
          { key: this.key },
        );
        expect(res.status).toBe(200);
        for (const item of res.body[resource] as Item[]) {
          const known = this.held[resource].get(item.id);
          if (known === undefined || known <= item.updatedAt) {
            if (item.deleted) this.held[resource].delete(item.id);
            else this.held[resource].set(item.id, item.updatedAt);
          }
          if (item.updatedAt > newest) newest = item.updatedAt;
        }
        cursor = res.body.nextCursor ?? undefined;
      } while (cursor);
      this.since[resource] = newest;
    }
  }

  /** The contract's checksum of what the mirror holds (CONTRACT 12, Sync checksum). */
  checksum(resource: Resource, until: string) {
    const byDay = new Map<string, string[]>();
    for (const [id, updatedAt] of this.held[resource]) {
      if (updatedAt > until) continue;
      byDay.set(updatedAt.slice(0, 10), [...(byDay.get(updatedAt.slice(0, 10)) ?? []), id]);
    }
    return [...byDay.keys()].sort().map((day) => {
      const ids = (byDay.get(day) ?? []).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
      const text = ids.map((id) => `${id}:${this.held[resource].get(id)}`).join("\n");
      return { day, count: ids.length, hash: createHash("sha256").update(text, "utf8").digest("hex") };
    });
  }
}

type Command =
  | { kind: "createCustomer" | "createOrder" }
  | {
      kind:
        | "orderForCustomer"
        | "updateCustomer"
        | "eraseCustomer"
        | "mergeCustomers"
        | "createAppointment"
        | "updateAppointment"
        | "deleteAppointment"
        | "updateOrder"
        | "moveOrder";
      pick: number;
      other: number;
    }
  | { kind: "poll" };

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.constant({ kind: "createCustomer" as const }),
  fc.constant({ kind: "createOrder" as const }),
  fc.constant({ kind: "poll" as const }),
  ...(
    [
      "orderForCustomer",
      "updateCustomer",
      "eraseCustomer",
      "mergeCustomers",
      "createAppointment",
      "updateAppointment",
      "deleteAppointment",
      "updateOrder",
      "moveOrder",
    ] as const
  ).map((kind) => fc.record({ kind: fc.constant(kind), pick: fc.nat(50), other: fc.nat(50) })),
);

async function ids(key: string, resource: Resource): Promise<string[]> {
  return (await allPages<{ id: string }>(t.api, `/api/vendor/${resource}`, key, resource)).map((r) => r.id);
}

async function apply(key: string, c: Command, n: number, mirror: Mirror): Promise<void> {
  const pick = async (resource: Resource, i: number) => {
    const all = await ids(key, resource);
    return all.length === 0 ? undefined : all[i % all.length];
  };
  const ok = (status: number) => expect(status).toBeLessThan(300);
  switch (c.kind) {
    case "poll":
      return mirror.poll();
    case "createCustomer":
      return ok((await t.api.post("/api/vendor/customers", { name: `C ${n}` }, { key })).status);
    case "createOrder":
      return ok(
        (
          await t.api.post(
            "/api/vendor/orders",
            { customerName: `O ${n}`, customerEmail: `o${n}@example.com`, type: "SUIT" },
            { key },
          )
        ).status,
      );
    case "orderForCustomer": {
      const customerId = await pick("customers", c.pick);
      if (customerId)
        ok((await t.api.post("/api/vendor/orders", { customerId, type: "BRIDAL_DRESS" }, { key })).status);
      return;
    }
    case "updateCustomer": {
      const id = await pick("customers", c.pick);
      if (id) ok((await t.api.patch(`/api/vendor/customers/${id}`, { notes: `n ${n}` }, { key })).status);
      return;
    }
    case "eraseCustomer": {
      const id = await pick("customers", c.pick);
      if (id) ok((await t.api.delete(`/api/vendor/customers/${id}`, { key })).status);
      return;
    }
    case "mergeCustomers": {
      const kept = await pick("customers", c.pick);
      const from = await pick("customers", c.other);
      if (kept && from && kept !== from)
        ok((await t.api.post(`/api/vendor/customers/${kept}/merge`, { from }, { key })).status);
      return;
    }
    case "createAppointment": {
      const customerId = await pick("customers", c.pick);
      if (customerId)
        ok(
          (
            await t.api.post(
              "/api/vendor/appointments",
              {
                customerId,
                type: "FITTING",
                date: `2027-03-${String((n % 28) + 1).padStart(2, "0")}T10:00:00Z`,
              },
              { key },
            )
          ).status,
        );
      return;
    }
    case "updateAppointment":
    case "deleteAppointment": {
      const id = await pick("appointments", c.pick);
      if (!id) return;
      const res =
        c.kind === "updateAppointment"
          ? await t.api.patch(`/api/vendor/appointments/${id}`, { notes: `n ${n}` }, { key })
          : await t.api.delete(`/api/vendor/appointments/${id}`, { key });
      return ok(res.status);
    }
    case "updateOrder": {
      const id = await pick("orders", c.pick);
      if (id) ok((await t.api.patch(`/api/vendor/orders/${id}`, { color: `c ${n}` }, { key })).status);
      return;
    }
    case "moveOrder": {
      const id = await pick("orders", c.pick);
      // A second move to the same status is refused (409), which changes nothing.
      if (id)
        expect([200, 409]).toContain(
          (await t.api.put(`/api/vendor/orders/${id}/status`, { status: "IN_PRODUCTION" }, { key })).status,
        );
      return;
    }
  }
}

describe("a POS mirror kept by polling alone", () => {
  it("matches the service's checksum and lists after a random run of creates, updates, deletions, merges and erasures", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 16 }), async (commands) => {
        const { key } = await createVendorWithKey(t.ctx);
        const mirror = new Mirror(key);
        let n = 0;
        for (const c of commands) await apply(key, c, ++n, mirror);
        // A pass reads only up to the sync horizon, which another test file's open transaction
        // holds back (delaying, never losing: README, "Incremental sync"). The checksum answers
        // the horizon as its default `until`: once that has passed the last write, so has the
        // next pass's, and the mirror must hold everything.
        const writesDone = new Date().toISOString();
        await eventually(async () => {
          const res = await t.api.get("/api/vendor/sync/checksum?resource=orders", { key });
          return res.status === 200 && (res.body.until as string) >= writesDone;
        }, 30_000);
        await mirror.poll();
        const until = new Date(Date.now() + 60_000).toISOString();
        for (const resource of resources) {
          const res = await t.api.get(`/api/vendor/sync/checksum?resource=${resource}&until=${until}`, {
            key,
          });
          expect(res.status).toBe(200);
          expect(mirror.checksum(resource, until), resource).toEqual(res.body.days);
          expect([...mirror.held[resource].keys()].sort(), resource).toEqual(
            (await ids(key, resource)).sort(),
          );
        }
      }),
      {
        numRuns: 6,
        // Always also this run: each kind of record made, changed and removed, with polls between.
        examples: [
          [
            [
              { kind: "createCustomer" },
              { kind: "createOrder" },
              { kind: "createAppointment", pick: 0, other: 0 },
              { kind: "createAppointment", pick: 1, other: 0 },
              { kind: "poll" },
              { kind: "mergeCustomers", pick: 0, other: 1 },
              { kind: "orderForCustomer", pick: 0, other: 0 },
              { kind: "deleteAppointment", pick: 0, other: 0 },
              { kind: "poll" },
              { kind: "createCustomer" },
              { kind: "createAppointment", pick: 1, other: 0 },
              { kind: "eraseCustomer", pick: 0, other: 0 },
              { kind: "updateOrder", pick: 0, other: 0 },
              { kind: "moveOrder", pick: 1, other: 0 },
            ],
          ],
        ],
      },
    );
    // Seven runs, each of which may wait out another file's statement of several seconds.
  }, 240_000);
});
