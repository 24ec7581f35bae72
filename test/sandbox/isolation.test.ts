// Issue 28.5 (docs/contract.md section 11): a test key (`vk_test_…`) acts for the shop's sandbox.
// Held on EVERY authenticated API route the app registers (its route catalog, so a new route is
// covered, or this file fails naming it, without anyone adding it here) in both directions: a
// sandbox key never reaches or sees live data, a live key never reaches or sees sandbox data, and
// what either creates lands in its own world. And on EVERY event of the catalog: sandbox webhooks
// (a real receiver) get sandbox events only, live webhooks live events only.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import { createApiKey } from "../../src/modules/api-keys/api-keys.service.ts";
import { type AnyEventType, allEventTypes, eventTypes } from "../../src/modules/events/catalog.ts";
import type { ApiResponse } from "../helpers/api-client.ts";
import { useDeliveryFixture } from "../helpers/delivery-fixture.ts";
import { deliveriesSettled } from "../helpers/events.ts";
import { createKey, createVendor } from "../helpers/factories.ts";
import { cameraJpeg, uploadPhoto } from "../helpers/photos.ts";
import { openSse } from "../helpers/sse.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { openTestDatabase } from "../helpers/test-app.ts";
import { eventually, type Receiver } from "../helpers/webhook-receiver.ts";

// The route list is read from the app itself, before any test runs.
const catalogApp = await buildApp({
  config: loadConfig({ NODE_ENV: "test" }),
  database: await openTestDatabase(),
});
await catalogApp.ready();
const routes = catalogApp.routeCatalog
  .filter((r) => r.scope !== undefined)
  .map(({ method, url }) => ({ method, url, title: `${method} ${url}` }));
await catalogApp.close();

// Photos are stored under a directory of the file's own.
const f = useDeliveryFixture({ DATA_DIR: tempDir("isolation-photos") });

type Kind = "order" | "customer" | "appointment" | "inquiry" | "webhook" | "delivery" | "event" | "vendor";

interface World {
  mode: "live" | "test";
  key: string;
  /** The tenant: the shop for live, its sandbox for test. */
  vendorId: string;
  /** In every name and note this world writes, so a leak shows in any answer. */
  marker: string;
  customerEmail: string;
  ids: Record<Kind, string>;
  receiver: Receiver;
}

/** One of everything, made through the API with the world's key. */
async function buildWorld(shopId: string, mode: World["mode"]): Promise<World> {
  const api = f.t.api;
  const key =
    mode === "live"
      ? await createKey(f.t.ctx, shopId)
      : (await createApiKey(f.t.ctx, { vendorId: shopId, name: "POS tests", test: true })).key;
  expect(key.startsWith(mode === "test" ? "vk_test_" : "vk_")).toBe(true);
  const profile = await api.get("/api/vendor/profile", { key });
  expect(profile.status).toBe(200);
  expect(profile.body.livemode).toBe(mode === "live");
  const vendorId = profile.body.id as string;
  const marker = `${mode.toUpperCase()}${randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const customerEmail = `${marker.toLowerCase()}@example.com`;
  const receiver = await f.receiver();
  const webhook = await f.register(key, receiver.url, [...eventTypes]);
  const created = async (path: string, body: unknown) => {
    const res = await api.post(path, body, { key });
    expect(res.status, `${path}: ${res.text}`).toBe(201);
    return res.body.id as string;
  };
  const customer = await created("/api/vendor/customers", { name: `${marker} Ana`, email: customerEmail });
  const order = await created("/api/vendor/orders", {
    customerName: `${marker} Ana`,
    customerEmail,
    type: "SUIT",
    model: marker,
  });
  const appointment = await created("/api/vendor/appointments", {
    customerId: customer,
    orderId: order,
    type: "FITTING",
    date: "2099-05-01T10:00:00Z",
    notes: marker,
  });
  const inquiry = await created(`/api/public/vendors/${vendorId}/inquiries`, {
    name: `${marker} Lead`,
    email: "lead@example.com",
    message: `${marker} question`,
  });
  // Booking settings of this world's own: its marker in the address, open every day, closed on a
  // day the other world is open (so availability shows whose settings it read).
  const settings = await api.put("/api/vendor/booking/settings", bookingSettingsOf(mode, marker), { key });
  expect(settings.status, settings.text).toBe(200);
  expect((await api.post(`/api/vendor/webhooks/${webhook.id}/test`, {}, { key })).status).toBe(202);
  const delivery = await eventually(async () => (await f.deliveries(key, webhook.id))[0]?.id as string);
  const events = await api.get("/api/vendor/events", { key });
  expect(events.body.events.length).toBeGreaterThan(0);
  return {
    mode,
    key,
    vendorId,
    marker,
    customerEmail,
    receiver,
    ids: {
      order,
      customer,
      appointment,
      inquiry,
      webhook: webhook.id,
      delivery,
      event: events.body.events[0].id,
      vendor: vendorId,
    },
  };
}

/** A day some weeks ahead, YYYY-MM-DD (UTC): the live world closes on the first, the test world on the second. */
const dayAhead = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
const closedDay = { live: dayAhead(14), test: dayAhead(15) } as const;
const openEveryDay = Object.fromEntries(
  ["mon", "tue", "wed", "thu", "fri", "sat", "sun"].map((d) => [d, [{ from: "10:00", to: "18:00" }]]),
);
const bookingSettingsOf = (mode: World["mode"], marker: string) => ({
  timeZone: "UTC",
  address: `${marker} Atelier\n1 High Street`,
  openingHours: openEveryDay,
  closedDates: [closedDay[mode]],
});

let shopId: string;
let live: World;
let test: World;
beforeAll(async () => {
  shopId = (await createVendor(f.t.ctx)).id;
  live = await buildWorld(shopId, "live");
  test = await buildWorld(shopId, "test");
  expect(test.vendorId).not.toBe(shopId);
});
afterAll(async () => {
  await deliveriesSettled(f.t, shopId);
  if (test) await deliveriesSettled(f.t, test.vendorId);
});

/** The resource a path parameter names: the segment before it (`/orders/:id` → order). */
function kindOf(url: string, param: string): Kind {
  if (param === "deliveryId") return "delivery";
  if (param === "vendorId") return "vendor";
  const segments = url.split("/");
  const before = segments[segments.indexOf(`:${param}`) - 1];
  const kinds: Record<string, Kind> = {
    orders: "order",
    customers: "customer",
    appointments: "appointment",
    inquiries: "inquiry",
    webhooks: "webhook",
    events: "event",
  };
  const kind = before ? kinds[before] : undefined;
  if (!kind) throw new Error(`${url}: no resource known for :${param}; teach kindOf and buildWorld`);
  return kind;
}

const pathFor = (url: string, world: World) =>
  url.replace(/:([A-Za-z]+)/g, (_m, param: string) => world.ids[kindOf(url, param)]);

/** A valid body for each write route that takes one, so a refusal is about the tenant, never the body. */
const bodies: Record<string, (caller: World) => unknown> = {
  "POST /api/vendor/orders": (w) => ({ customerName: `${w.marker} New`, type: "SUIT" }),
  "PATCH /api/vendor/orders/:id": () => ({ size: "40" }),
  "PUT /api/vendor/orders/:id/status": () => ({ status: "IN_PRODUCTION" }),
  "POST /api/vendor/customers": (w) => ({ name: `${w.marker} New` }),
  "PATCH /api/vendor/customers/:id": () => ({ notes: "changed" }),
  "PUT /api/vendor/customers/:id": () => ({ notes: "changed" }),
  "POST /api/vendor/appointments": (w) => ({
    customerId: w.ids.customer,
    type: "CONSULTATION",
    date: "2099-06-01T10:00:00Z",
  }),
  "PATCH /api/vendor/appointments/:id": () => ({ notes: "changed" }),
  "PUT /api/vendor/appointments/:id": () => ({ notes: "changed" }),
  "POST /api/vendor/webhooks": (w) => ({ url: w.receiver.url, events: ["order.created"] }),
  "PATCH /api/vendor/webhooks/:id": () => ({ events: [...eventTypes] }),
  "PUT /api/vendor/webhooks/:id": (w) => ({ url: w.receiver.url, events: [...eventTypes] }),
  "POST /api/vendor/webhooks/:id/rotate-secret": () => ({ overlapSeconds: 60 }),
  "POST /api/vendor/webhooks/:id/test": () => ({}),
  "POST /api/vendor/webhooks/:id/deliveries/:deliveryId/redeliver": () => ({}),
  "POST /api/vendor/webhooks/:id/recover": () => ({ since: "2020-01-01T00:00:00Z" }),
  "PUT /api/vendor/booking/settings": (w) => ({ address: `${w.marker} Moved\n2 High Street` }),
};

/** The query each GET that requires one is read with. */
const queries: Record<string, (caller: World) => string> = {
  "GET /api/vendor/availability": () => `?type=FITTING&from=${closedDay.live}&to=${closedDay.test}`,
};

/**
 * Creates that name the other world's records: each must be refused, or (an order naming a
 * customer by e-mail) must make a customer of the caller's own instead of linking the other's.
 */
const crossReferences: Record<
  string,
  Array<{ body: (caller: World, other: World) => unknown; check: (res: ApiResponse, other: World) => void }>
> = {
  "POST /api/vendor/orders": [
    {
      body: (w, o) => ({ customerName: `${w.marker} Same`, customerEmail: o.customerEmail, type: "SUIT" }),
      check: (res, o) => {
        expect(res.status).toBe(201);
        expect(res.body.customerId).not.toBe(o.ids.customer);
      },
    },
  ],
  "POST /api/vendor/appointments": [
    {
      body: (_w, o) => ({ customerId: o.ids.customer, type: "FITTING", date: "2099-06-01T10:00:00Z" }),
      check: (res) => expect([400, 404]).toContain(res.status),
    },
    {
      body: (w, o) => ({
        customerId: w.ids.customer,
        orderId: o.ids.order,
        type: "FITTING",
        date: "2099-06-01T10:00:00Z",
      }),
      check: (res) => expect([400, 404]).toContain(res.status),
    },
  ],
};

/** Every id and the marker of `world`: none may appear in an answer to the other world's key. */
const traces = (world: World) => [...Object.values(world.ids), world.marker];
const leaked = (text: string, other: World) => traces(other).filter((s) => text.includes(s));

async function send(method: string, path: string, caller: World, body?: unknown) {
  return f.t.api.request(method, path, { key: caller.key, ...(body === undefined ? {} : { body }) });
}

/** The stream replays everything the tenant has (Last-Event-ID unknown to it): only its own events. */
async function probeStream(url: string, caller: World, other: World) {
  const own = new Set<string>((await everyPage(caller, "/api/vendor/events", "events")).map((e) => e.id));
  const stream = await openSse(`${f.t.url}${url}`, {
    "x-api-key": caller.key,
    "last-event-id": other.ids.event,
  });
  try {
    expect(stream.status).toBe(200);
    const seen = new Set<string>();
    while (seen.size < own.size) {
      const event = await stream.nextEvent();
      expect(leaked(JSON.stringify(event), other)).toEqual([]);
      expect(own.has(event.id ?? ""), `${event.id} is one of the caller's events`).toBe(true);
      seen.add(event.id ?? "");
    }
  } finally {
    stream.close();
  }
}

/** The sync checksum shows no records, only counts and hashes: it counts the caller's own alone. */
async function probeChecksum(url: string, caller: World) {
  for (const resource of ["orders", "customers", "appointments"]) {
    const own = await everyPage(caller, `/api/vendor/${resource}`, resource);
    const res = await send("GET", `${url}?resource=${resource}&until=9999-12-31T00:00:00Z`, caller);
    expect(res.status, res.text).toBe(200);
    const counted = (res.body.days as Array<{ count: number }>).reduce((n, d) => n + d.count, 0);
    expect(counted, `${resource} counted`).toBe(own.length);
  }
}

/**
 * A merge names two customers: the other world's as the one kept or as `from` is 404 and merges
 * nothing; two of the caller's own merge. The `from` is a customer made for the probe, so the
 * world's own customer stays for the routes probed after.
 */
async function probeMerge(caller: World, other: World) {
  const made = await send("POST", "/api/vendor/customers", caller, { name: `${caller.marker} Twin` });
  expect(made.status, made.text).toBe(201);
  const intoOther = await send("POST", `/api/vendor/customers/${other.ids.customer}/merge`, caller, {
    from: made.body.id,
  });
  expect(intoOther.status, intoOther.text).toBe(404);
  const fromOther = await send("POST", `/api/vendor/customers/${caller.ids.customer}/merge`, caller, {
    from: other.ids.customer,
  });
  expect(fromOther.status, fromOther.text).toBe(404);
  expect(leaked(intoOther.text + fromOther.text, other)).toEqual([]);
  const own = await send("POST", `/api/vendor/customers/${caller.ids.customer}/merge`, caller, {
    from: made.body.id,
  });
  expect(own.status, own.text).toBe(200);
  expect(leaked(own.text, other)).toEqual([]);
}

/** A photo upload (multipart): to the other world's order 404, to the caller's own 201, neither leaks. */
async function probePhotos(caller: World, other: World) {
  const bytes = await cameraJpeg(640, 480);
  const foreign = await uploadPhoto(f.t.url, other.ids.order, bytes, { key: caller.key });
  expect(foreign.status, `upload to the other world's order: ${foreign.text}`).toBe(404);
  expect(leaked(foreign.text, other)).toEqual([]);
  const own = await uploadPhoto(f.t.url, caller.ids.order, bytes, { key: caller.key });
  expect(own.status, `upload to the caller's own order: ${own.text}`).toBe(201);
  expect(leaked(own.text, other)).toEqual([]);
}

/** The settings written are the caller's: read back with its key, unseen with the other's. */
async function probeBookingSettings(route: { title: string }, caller: World, other: World) {
  const body = bodies[route.title]?.(caller) as { address: string };
  const put = await send("PUT", "/api/vendor/booking/settings", caller, body);
  expect(put.status, put.text).toBe(200);
  expect(put.body.address).toBe(body.address);
  expect(leaked(put.text, other)).toEqual([]);
  const mine = await send("GET", "/api/vendor/booking/settings", caller);
  expect(mine.body.address).toBe(body.address);
  const theirs = await send("GET", "/api/vendor/booking/settings", other);
  expect(theirs.status, theirs.text).toBe(200);
  expect(theirs.text.includes(caller.marker), "the other world's settings changed").toBe(false);
  expect(theirs.body.closedDates).toEqual([closedDay[other.mode]]);
}

/** Availability reads the caller's settings: no slot on its own closed day, slots on the other's. */
async function probeAvailability(route: { url: string; title: string }, caller: World, other: World) {
  const res = await send("GET", `${route.url}${queries[route.title]?.(caller) ?? ""}`, caller);
  expect(res.status, res.text).toBe(200);
  expect(leaked(res.text, other)).toEqual([]);
  const days = new Set((res.body.slots as string[]).map((s) => new Date(s).toISOString().slice(0, 10)));
  expect(days.has(closedDay[caller.mode]), "a slot on the caller's own closed day").toBe(false);
  expect(days.has(closedDay[other.mode]), "no slot on a day only the other world closes").toBe(true);
}

async function probe(route: { method: string; url: string; title: string }, caller: World, other: World) {
  if (route.url === "/api/vendor/events/stream") return probeStream(route.url, caller, other);
  if (route.url === "/api/vendor/customers/:id/merge") return probeMerge(caller, other);
  if (route.url === "/api/vendor/sync/checksum") return probeChecksum(route.url, caller);
  if (route.title === "POST /api/vendor/orders/:id/photos") return probePhotos(caller, other);
  if (route.title === "PUT /api/vendor/booking/settings") return probeBookingSettings(route, caller, other);
  if (route.title === "GET /api/vendor/availability") return probeAvailability(route, caller, other);
  const body = bodies[route.title]?.(caller);
  if (route.url.includes(":")) {
    // The other world's ids: 404, and nothing of theirs in the answer.
    const foreign = await send(route.method, pathFor(route.url, other), caller, body);
    expect(foreign.status, `${route.title} with the other world's ids: ${foreign.text}`).toBe(404);
    expect(leaked(foreign.text, other)).toEqual([]);
    // The caller's own ids reach the record (so the 404 above is about the tenant, not the path).
    if (route.method !== "DELETE") {
      const own = await send(route.method, pathFor(route.url, caller), caller, body);
      expect(own.status, `${route.title} with the caller's own ids: ${own.text}`).toBeLessThan(300);
      expect(leaked(own.text, other)).toEqual([]);
    }
    return;
  }
  if (route.method === "GET") {
    const res = await send("GET", route.url, caller);
    expect(res.status, res.text).toBe(200);
    expect(leaked(res.text, other), `${route.title} shows the other world's records`).toEqual([]);
    expect(
      traces(caller).some((s) => res.text.includes(s)),
      `${route.title} shows the caller's own records`,
    ).toBe(true);
    return;
  }
  if (body === undefined) throw new Error(`${route.title}: no body known; add one to \`bodies\``);
  const made = await send(route.method, route.url, caller, body);
  expect(made.status, `${route.title}: ${made.text}`).toBe(201);
  expect(leaked(made.text, other)).toEqual([]);
  // What the caller made is the caller's: found with its key, 404 with the other's.
  const location = `${route.url}/${made.body.id}`;
  expect((await send("GET", location, caller)).status).toBe(200);
  expect((await send("GET", location, other)).status).toBe(404);
  for (const cross of crossReferences[route.title] ?? []) {
    const res = await send(route.method, route.url, caller, cross.body(caller, other));
    cross.check(res, other);
    expect(leaked(res.text, other)).toEqual([]);
  }
}

describe("the routes held to sandbox isolation", () => {
  it("are every authenticated API route, the event stream included", () => {
    const titles = routes.map((r) => r.title);
    expect(titles.length).toBeGreaterThanOrEqual(30);
    for (const title of [
      "GET /api/vendor/orders/:id",
      "POST /api/vendor/webhooks/:id/deliveries/:deliveryId/redeliver",
      "GET /api/vendor/events/stream",
      "GET /api/vendor/profile",
    ]) {
      expect(titles).toContain(title);
    }
  });
});

describe.each([
  ["a test key on live data", () => [test, live] as const],
  ["a live key on sandbox data", () => [live, test] as const],
])("%s", (_name, worlds) => {
  it.each(routes)("$title", async (route) => {
    const [caller, other] = worlds();
    await probe(route, caller, other);
  });
});

/** Makes one event of each type in `w`, through the API (fresh records, so nothing else depends on them). */
const triggers: Record<AnyEventType, (w: World) => Promise<unknown>> = {
  "order.created": (w) =>
    send("POST", "/api/vendor/orders", w, { customerName: `${w.marker} E`, type: "SUIT" }),
  "order.updated": (w) => send("PATCH", `/api/vendor/orders/${w.ids.order}`, w, { color: "Ivory" }),
  "order.status_changed": async (w) => {
    const order = await send("POST", "/api/vendor/orders", w, {
      customerName: `${w.marker} S`,
      type: "SUIT",
    });
    return send("PUT", `/api/vendor/orders/${order.body.id}/status`, w, { status: "IN_PRODUCTION" });
  },
  // Evaluated when made: a wedding 10 days away crosses both default risk rules; a rental due back
  // in the past is overdue at once.
  "order.at_risk": (w) =>
    send("POST", "/api/vendor/orders", w, {
      customerName: `${w.marker} R`,
      type: "SUIT",
      weddingDate: new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10),
    }),
  "order.overdue": (w) =>
    send("POST", "/api/vendor/orders", w, {
      customerName: `${w.marker} O`,
      type: "RENTAL",
      pickupDate: "2020-01-01",
      dueBackDate: "2020-01-05",
    }),
  "customer.created": (w) => send("POST", "/api/vendor/customers", w, { name: `${w.marker} C` }),
  "customer.updated": (w) => send("PATCH", `/api/vendor/customers/${w.ids.customer}`, w, { phone: "+1 5" }),
  "customer.deleted": async (w) => {
    const c = await send("POST", "/api/vendor/customers", w, { name: `${w.marker} D` });
    return send("DELETE", `/api/vendor/customers/${c.body.id}`, w);
  },
  "appointment.created": (w) =>
    send("POST", "/api/vendor/appointments", w, {
      customerId: w.ids.customer,
      type: "PICKUP",
      date: "2099-07-01T10:00:00Z",
    }),
  "appointment.updated": (w) =>
    send("PATCH", `/api/vendor/appointments/${w.ids.appointment}`, w, { notes: `${w.marker} moved` }),
  "appointment.confirmed": (w) => moveAppointment(w, ["CONFIRMED"]),
  "appointment.completed": (w) => moveAppointment(w, ["CONFIRMED", "COMPLETED"]),
  "appointment.cancelled": (w) => moveAppointment(w, ["CANCELLED"]),
  "appointment.deleted": async (w) => {
    const a = await send("POST", "/api/vendor/appointments", w, {
      customerId: w.ids.customer,
      type: "FITTING",
      date: "2099-08-02T10:00:00Z",
    });
    return send("DELETE", `/api/vendor/appointments/${a.body.id}`, w);
  },
  "inquiry.received": (w) =>
    f.t.api.post(`/api/public/vendors/${w.vendorId}/inquiries`, {
      name: `${w.marker} I`,
      email: "lead@example.com",
      message: "Hello",
    }),
  "webhook.test": (w) => send("POST", `/api/vendor/webhooks/${w.ids.webhook}/test`, w, {}),
};

async function moveAppointment(w: World, statuses: string[]) {
  const a = await send("POST", "/api/vendor/appointments", w, {
    customerId: w.ids.customer,
    type: "FITTING",
    date: "2099-08-01T10:00:00Z",
  });
  for (const status of statuses) {
    const res = await send("PATCH", `/api/vendor/appointments/${a.body.id}`, w, { status });
    expect(res.status, res.text).toBe(200);
  }
}

/** Every page of a list, with the world's key. */
async function everyPage(w: World, path: string, field: string): Promise<any[]> {
  const items: any[] = [];
  for (let cursor: string | null = null; ; ) {
    const page: ApiResponse = await send("GET", `${path}?limit=100${cursor ? `&cursor=${cursor}` : ""}`, w);
    expect(page.status, page.text).toBe(200);
    items.push(...page.body[field]);
    cursor = page.body.nextCursor;
    if (!cursor) break;
  }
  return items;
}

/** The world's events: those of the events API, and `webhook.test` ones (known by their deliveries only). */
async function eventIdsOf(w: World): Promise<Set<string>> {
  const ids = new Set<string>((await everyPage(w, "/api/vendor/events", "events")).map((e) => e.id));
  for (const webhook of await everyPage(w, "/api/vendor/webhooks", "webhooks")) {
    const deliveries = await everyPage(w, `/api/vendor/webhooks/${webhook.id}/deliveries`, "deliveries");
    for (const d of deliveries) ids.add(d.eventId);
  }
  return ids;
}

describe("every event type", () => {
  it("reaches the webhooks of its own world only (real receivers, both directions)", async () => {
    for (const w of [live, test]) {
      for (const type of allEventTypes) {
        const res = (await triggers[type](w)) as ApiResponse | undefined;
        if (res) expect(res.status, `${type} in ${w.mode}: ${res.text}`).toBeLessThan(300);
      }
    }
    await deliveriesSettled(f.t, live.vendorId);
    await deliveriesSettled(f.t, test.vendorId);
    for (const [mine, other] of [
      [live, test],
      [test, live],
    ] as const) {
      const own = await eventIdsOf(mine);
      const theirs = await eventIdsOf(other);
      for (const id of own) expect(theirs.has(id), `${id} is listed for both worlds`).toBe(false);
      const received = mine.receiver.requests.map((r) => r.body as { id: string; event: string });
      for (const body of received) {
        // Its own event: listed for it, or (a customer.created whose customer was erased since,
        // which takes the event along) carrying its marker.
        const mineToo = own.has(body.id) || JSON.stringify(body).includes(mine.marker);
        expect(mineToo, `${mine.mode} receiver got ${body.event} ${body.id}, not its own`).toBe(true);
        expect(theirs.has(body.id), `${mine.mode} receiver got ${body.event} of the other world`).toBe(false);
        expect(leaked(JSON.stringify(body), other)).toEqual([]);
      }
      const types = new Set(received.map((b) => b.event));
      for (const type of allEventTypes)
        expect(types.has(type), `${mine.mode} receiver got ${type}`).toBe(true);
    }
  });
});
