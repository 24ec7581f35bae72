import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { TRACKING_REQUESTS_PER_MINUTE } from "../../src/dashboard/pages/tracking.page.ts";
import { orders } from "../../src/db/schema/index.ts";
import { Browser } from "../helpers/browser.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

async function orderWithToken() {
  const { vendor, key } = await createVendorWithKey(t.ctx, "Tracking Bridal");
  const res = await t.api.post(
    "/api/vendor/orders",
    {
      customerName: "Private Person",
      customerEmail: "private@example.test",
      type: "BRIDAL_DRESS",
      model: "Celeste",
    },
    { key },
  );
  const [row] = await t.ctx.db
    .select({ token: orders.trackingToken })
    .from(orders)
    .where(eq(orders.id, res.body.id));
  return { vendor, key, id: res.body.id as string, token: row?.token as string, body: res.body };
}

const trackingOf = (token: string) => new Browser(t.url).get(`/track/${token}`);

describe("customer-facing tracking page /track/{token}", () => {
  it("every order gets its own 32-byte base64url token at creation, not shown in the API's order JSON", async () => {
    const a = await orderWithToken();
    const b = await orderWithToken();
    expect(a.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a.token, "base64url")).toHaveLength(32);
    expect(a.token).not.toBe(b.token);
    expect(JSON.stringify(a.body)).not.toContain(a.token);
    expect(Object.keys(a.body)).not.toContain("trackingToken");
    const read = await t.api.get(`/api/vendor/orders/${a.id}`, { key: a.key });
    expect(read.text).not.toContain(a.token);
  });

  it("without a session it shows the vendor, the model and type, the status and the timeline, nothing about the customer", async () => {
    const { token } = await orderWithToken();
    const page = await trackingOf(token);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(page.text).toContain("Tracking Bridal");
    expect(page.text).toContain("<h1>Order #1001: Bridal dress Celeste</h1>");
    expect(page.text).toContain("Bridal dress");
    expect(page.text).toMatch(/Current status: <span class="badge status" data-status="ORDERED">/);
    expect(page.text).toContain("Order created");
    expect(page.text).not.toContain("Private Person");
    expect(page.text).not.toContain("private@example.test");
    expect(page.text).not.toContain("<form");
  });

  it("is not indexed and sends no referrer (the token must not leak to photo hosts)", async () => {
    const { token } = await orderWithToken();
    for (const page of [await trackingOf(token), await trackingOf("x".repeat(43))]) {
      expect(page.headers.get("x-robots-tag")).toContain("noindex");
      expect(page.headers.get("referrer-policy")).toBe("no-referrer");
      expect(page.headers.get("cache-control")).toBe("no-store");
    }
  });

  it("changes when the status changes: new status, message and photo appear", async () => {
    const { key, id, token } = await orderWithToken();
    const moved = await t.api.put(
      `/api/vendor/orders/${id}/status`,
      {
        status: "FITTING_READY",
        message: "Your dress is ready to try",
        imageUrl: "https://photos.example/d.jpg",
      },
      { key },
    );
    expect(moved.status).toBe(200);
    const page = await trackingOf(token);
    expect(page.text).toMatch(/Current status: <span class="badge status" data-status="FITTING_READY">/);
    expect(page.text).toContain("Your dress is ready to try");
    expect(page.text).toContain('<img src="https://photos.example/d.jpg"');
    const entries = [...page.text.matchAll(/<li data-status="([A-Z_]+)">/g)].map((m) => m[1]);
    expect(entries).toEqual(["FITTING_READY", "ORDERED"]);
  });

  it("an unknown, malformed or another order's altered token is a 404 page", async () => {
    const { token } = await orderWithToken();
    const altered = (token.startsWith("A") ? "B" : "A") + token.slice(1);
    for (const bad of [altered, "short", "x".repeat(43), `${token}x`, "%00"]) {
      const page = await trackingOf(bad);
      expect(page.status, bad).toBe(404);
      expect(page.text).toContain("Order not found");
    }
  });
});

// Last in this file: it spends the address's budget for the rest of the minute.
describe("tracking page rate limit", () => {
  it("answers 429 with a page and Retry-After once an address exceeds its budget", async () => {
    let last = await trackingOf("short");
    for (let i = 0; i < TRACKING_REQUESTS_PER_MINUTE && last.status !== 429; i++)
      last = await trackingOf("short");
    expect(last.status).toBe(429);
    expect(last.headers.get("content-type")).toContain("text/html");
    expect(last.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(last.headers.get("x-robots-tag")).toContain("noindex");
    expect(last.text).toContain("Too many requests");
  });
});
