// The TypeScript client's side of CONTRACT 12: `ifMatch` on the calls that change one resource
// (412 as ApiError when stale), `etagOf` of each answer, `changes()` iterating records and
// tombstones, `sync.checksum`, and externalId/metadata in its types.
import { describe, expect, it } from "vitest";
import { ApiError, etagOf, isTombstone, VendorApiClient } from "../../clients/typescript/src/index.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";
import { eventually } from "../helpers/webhook-receiver.ts";

const t = useTestApp();

async function client() {
  const { key } = await createVendorWithKey(t.ctx);
  return new VendorApiClient({ baseUrl: t.url, apiKey: key, maxRetries: 0 });
}

describe("the client's conditional writes", () => {
  it("etagOf gives each answer's ETag, and ifMatch refuses a stale one with ApiError 412", async () => {
    const api = await client();
    const clara = await api.customers.create({ name: "Clara", externalId: "pos-1", metadata: { till: "2" } });
    expect(clara.externalId).toBe("pos-1");
    const read = await api.customers.get(clara.id);
    const etag = etagOf(read);
    expect(etag).toMatch(/^"/);
    expect(etagOf(clara)).toBe(etag);
    const updated = await api.customers.update(clara.id, { notes: "first" }, { ifMatch: etag as string });
    expect(etagOf(updated)).not.toBe(etag);
    const stale = await api.customers
      .update(clara.id, { notes: "second" }, { ifMatch: etag as string })
      .catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(ApiError);
    expect((stale as ApiError).status).toBe(412);
    expect((stale as ApiError).code).toBe("precondition_failed");
    await api.customers.erase(clara.id, { ifMatch: etagOf(updated) as string });
  });

  it("changes() iterates records and tombstones; sync.checksum answers per day", async () => {
    const api = await client();
    const since = new Date().toISOString();
    const customer = await api.customers.create({ name: "Bea" });
    const fitting = await api.appointments.create({
      customerId: customer.id,
      type: "FITTING",
      date: "2027-03-20T10:00:00Z",
    });
    await api.appointments.delete(fitting.id, { ifMatch: "*" });
    const items = await eventually(async () => {
      const all = [];
      for await (const item of api.appointments.changes({ updatedSince: since })) all.push(item);
      return all.length > 0 && all;
    });
    expect(items).toHaveLength(1);
    const [only] = items;
    expect(only && isTombstone(only) && only.id).toBe(fitting.id);
    const sum = await api.sync.checksum({ resource: "customers" });
    expect(sum.days.reduce((n, d) => n + d.count, 0)).toBe(1);
  });
});
