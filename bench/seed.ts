// Seeds the benchmark database through the app's own front doors: its CLI for the vendors and their
// API keys, its HTTP API for orders (so the data is exactly what a client would have produced).
import { runCli, type Server } from "./processes.ts";

export interface Seeded {
  /** Vendor whose 100 orders (3 history entries each) the GET lists. */
  readKey: string;
  /** Another vendor, so POSTs do not change what the GET returns. */
  writeKey: string;
  writeVendorId: string;
  /** Orders of the write vendor for the status benchmark, and the status each was last sent. */
  statusOrders: string[];
  statusOf: Map<string, string>;
  /** The read vendor's first page's ETag (for `list304`), once the app has answered it. */
  listEtag?: string;
}

export const ORDER_COUNT = 100;

export async function seedVendors(env: Record<string, string>, tag: string) {
  const keyFor = async (label: string) => {
    const email = `bench-${label}-${tag}@example.com`;
    const vendor = await runCli(
      ["vendor", "create", "--name", `Bench ${label}`, "--email", email, "--password", "bench-password-123"],
      env,
    );
    const key = await runCli(["api-key", "create", "--vendor", vendor.id as string, "--name", "bench"], env);
    return { key: key.key as string, vendorId: vendor.id as string };
  };
  const read = await keyFor("read");
  const write = await keyFor("write");
  return { readKey: read.key, writeKey: write.key, writeVendorId: write.vendorId };
}

type Keys = Awaited<ReturnType<typeof seedVendors>>;

async function call(app: Server, key: string, method: string, path: string, body: unknown, expect: number) {
  const res = await fetch(`${app.url}/api/vendor${path}`, {
    method,
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== expect) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as { id: string };
}

/** `count` orders of the write vendor in FITTING_READY, for the status-update benchmark. */
export async function seedStatusOrders(app: Server, seeded: Seeded, count: number): Promise<void> {
  for (let i = 0; i < count; i += 4) {
    await Promise.all(
      [i, i + 1, i + 2, i + 3].map(async (n) => {
        const { id } = await call(
          app,
          seeded.writeKey,
          "POST",
          "/orders",
          {
            customerName: `Status ${n % 10}`,
            customerEmail: `status-${n % 10}@example.com`,
            type: "BRIDAL_DRESS",
            model: `Model ${n}`,
          },
          201,
        );
        await call(app, seeded.writeKey, "PUT", `/orders/${id}/status`, { status: "FITTING_READY" }, 200);
        seeded.statusOrders.push(id);
        seeded.statusOf.set(id, "FITTING_READY");
      }),
    );
  }
}

export async function seedOrders(app: Server, keys: Keys): Promise<Seeded> {
  const orderBody = (i: number) => ({
    customerName: `Customer ${i % 40}`,
    customerEmail: `customer-${i % 40}@example.com`,
    type: (["BRIDAL_DRESS", "SUIT", "RENTAL"] as const)[i % 3],
    model: `Model ${i}`,
    size: "38",
    color: "ivory",
    description: "Lace bodice, long train, hand-finished hem. ".repeat(2),
    specialRequests: i % 2 ? "Extra buttons" : null,
  });
  // Four at a time: fast enough, and orders get distinct updated_at values.
  for (let i = 0; i < ORDER_COUNT; i += 4) {
    await Promise.all(
      [i, i + 1, i + 2, i + 3].map(async (n) => {
        const { id } = await call(app, keys.readKey, "POST", "/orders", orderBody(n), 201);
        await call(
          app,
          keys.readKey,
          "PUT",
          `/orders/${id}/status`,
          { status: "IN_PRODUCTION", message: "Cutting" },
          200,
        );
        await call(
          app,
          keys.readKey,
          "PUT",
          `/orders/${id}/status`,
          {
            status: "FITTING_READY",
            message: "Ready to try on",
            imageUrl: `https://img.example.com/${id}.jpg`,
          },
          200,
        );
      }),
    );
  }
  return { ...keys, statusOrders: [], statusOf: new Map() };
}
