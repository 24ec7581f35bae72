// Seeds the benchmark database through the app's own front doors: its CLI for the vendors and their
// API keys, its HTTP API for orders (so the data is exactly what a client would have produced).
import { runCli, type Server } from "./processes.ts";

export interface Seeded {
  /** Vendor whose 100 orders (3 history entries each) the GET lists. */
  readKey: string;
  /** Another vendor, so POSTs do not change what the GET returns. */
  writeKey: string;
  /** Body of the benchmarked POST: links to a customer the write vendor already has. */
  postBody: string;
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
    return key.key as string;
  };
  return { readKey: await keyFor("read"), writeKey: await keyFor("write") };
}

export async function seedOrders(app: Server, keys: { readKey: string; writeKey: string }): Promise<Seeded> {
  const call = async (key: string, method: string, path: string, body: unknown, expect: number) => {
    const res = await fetch(`${app.url}/api/vendor${path}`, {
      method,
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== expect) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return JSON.parse(text) as { id: string };
  };
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
        const { id } = await call(keys.readKey, "POST", "/orders", orderBody(n), 201);
        await call(
          keys.readKey,
          "PUT",
          `/orders/${id}/status`,
          { status: "IN_PRODUCTION", message: "Cutting" },
          200,
        );
        await call(
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
  const postBody = orderBody(1);
  // The write vendor's customer exists before the measured POSTs link to it.
  await call(keys.writeKey, "POST", "/orders", postBody, 201);
  return { ...keys, postBody: JSON.stringify(postBody) };
}
