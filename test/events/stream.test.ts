// Issue 28 item 3 (CONTRACT 10): GET /api/vendor/events/stream, Server-Sent Events. Each event as
// GET /events/{id} answers it; Last-Event-ID replays what a dropped connection missed, then live;
// a types filter; a heartbeat; several API processes (one writes, another streams); a bound on
// the streams one shop holds open.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKey, createVendorWithKey } from "../helpers/factories.ts";
import { openSse, type SseConnection } from "../helpers/sse.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";

const env = { EVENT_STREAM_HEARTBEAT_MS: "100", EVENT_STREAM_POLL_MS: "20", EVENT_STREAM_MAX_PER_SHOP: "2" };
let t: TestApp;
/** A second API process on the same database. */
let other: TestApp;
const open: SseConnection[] = [];

beforeAll(async () => {
  t = await startTestApp({ env });
  other = await startTestApp({ env, databaseUrl: process.env.TEST_DATABASE_URL });
});
afterAll(async () => {
  for (const c of open) c.close();
  await other.close();
  await t.close();
});

async function stream(app: TestApp, key: string, query = "", headers: Record<string, string> = {}) {
  const c = await openSse(`${app.url}/api/vendor/events/stream${query}`, { "x-api-key": key, ...headers });
  open.push(c);
  return c;
}

const newOrder = (key: string, name = "Maria Silva") =>
  t.api.post("/api/vendor/orders", { customerName: name, type: "BRIDAL_DRESS" }, { key });

describe("GET /api/vendor/events/stream", () => {
  it("sends each new event as id, event and data (the event as GET /events/{id})", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const s = await stream(t, key);
    expect(s.status).toBe(200);
    expect(s.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const order = await t.api.post(
      "/api/vendor/orders",
      { customerName: "Maria Silva", customerEmail: "maria@example.com", type: "BRIDAL_DRESS" },
      { key },
    );
    const first = await s.nextEvent();
    const second = await s.nextEvent();
    const byType = new Map([first, second].map((m) => [m.event, m]));
    expect([...byType.keys()].sort()).toEqual(["customer.created", "order.created"]);
    const created = byType.get("order.created");
    expect(created?.json.data.id).toBe(order.body.id);
    expect(created?.id).toBe(created?.json.id);
    const asRead = await t.api.get(`/api/vendor/events/${created?.id}`, { key });
    expect(created?.json).toEqual(asRead.body);
    s.close();
  });

  it("sends a comment heartbeat while nothing happens", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const s = await stream(t, key);
    const comments = [await s.next(), await s.next(), await s.next()].map((m) => m.comment);
    expect(comments).toContain("heartbeat");
    s.close();
  });

  it("after a dropped connection, Last-Event-ID replays exactly what was missed, in order, then goes live", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const s = await stream(t, key, "?types=order.created");
    await newOrder(key, "A");
    const seen = await s.nextEvent();
    s.close(); // the connection drops
    const missed = [];
    for (const name of ["B", "C", "D"]) missed.push((await newOrder(key, name)).body.id);
    const again = await stream(t, key, "?types=order.created", { "last-event-id": seen.id as string });
    const replayed = [];
    for (let i = 0; i < 3; i++) replayed.push((await again.nextEvent()).json.data.id);
    expect(replayed).toEqual(missed);
    const live = (await newOrder(key, "E")).body.id;
    expect((await again.nextEvent()).json.data.id).toBe(live);
    again.close();
  });

  it("works across API processes: an event written through one reaches a stream on the other", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const s = await stream(other, key, "?types=order.created");
    const order = await newOrder(key);
    expect((await s.nextEvent()).json.data.id).toBe(order.body.id);
    s.close();
  });

  it("types filters the events; only events the credential may read are sent", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx);
    const ordersOnly = await createKey(t.ctx, vendor.id, ["webhooks:read", "orders:read"]);
    const filtered = await stream(t, key, "?types=customer.created");
    const scoped = await stream(t, ordersOnly);
    const order = await t.api.post(
      "/api/vendor/orders",
      { customerName: "Maria", customerEmail: "maria@example.com", type: "SUIT" },
      { key },
    );
    const c = await filtered.nextEvent();
    expect(c.event).toBe("customer.created");
    expect(c.json.data.id).toBe(order.body.customerId);
    const o = await scoped.nextEvent();
    expect(o.event).toBe("order.created");
    await t.api.post("/api/vendor/customers", { name: "Ana" }, { key });
    const marker = await newOrder(key, "marker");
    // Nothing about customers came in between: the next event is the marker order.
    expect((await scoped.nextEvent()).json.data.id).toBe(marker.body.id);
    filtered.close();
    scoped.close();
  });

  it("refuses bad input and missing scope with problem details", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx);
    const noScope = await createKey(t.ctx, vendor.id, ["orders:read"]);
    expect((await stream(t, noScope)).status).toBe(403);
    const badType = await stream(t, key, "?types=order.created,order.exploded");
    expect(badType.status).toBe(400);
    expect(badType.body.errors[0].field).toBe("types");
    const badId = await stream(t, key, "", { "last-event-id": "not an id!" });
    expect(badId.status).toBe(400);
    expect((await openSse(`${t.url}/api/vendor/events/stream`, {})).status).toBe(401);
  });

  it("a shop holds a bounded number of open streams: one more is 429 with Retry-After, freed on close", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const a = await stream(t, key);
    const b = await stream(t, key);
    const refused = await stream(t, key);
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe("rate_limited");
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    // Another shop is not affected.
    expect((await stream(t, (await createVendorWithKey(t.ctx)).key)).status).toBe(200);
    a.close();
    // The server notices the close; then a new stream is accepted.
    let again = await stream(t, key);
    for (let i = 0; again.status === 429 && i < 100; i++) {
      await new Promise((r) => setTimeout(r, 20));
      again = await stream(t, key);
    }
    expect(again.status).toBe(200);
    b.close();
    again.close();
  });
});
