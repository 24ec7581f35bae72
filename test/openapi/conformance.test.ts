// Every answer matches the document: this walks every operation of /openapi.json through real
// HTTP (successes and the errors each can give), checking status, body schema, content type and
// required headers of every answer against the document the service serves.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDispatcher } from "../../src/webhook-delivery/dispatcher.ts";
import type { ApiResponse, RequestOptions } from "../helpers/api-client.ts";
import { createKey, createVendorWithKey } from "../helpers/factories.ts";
import { createClient } from "../helpers/oauth.ts";
import { type Conformance, openApiConformance } from "../helpers/openapi-conformance.ts";
import { cameraJpeg, uploadPhoto } from "../helpers/photos.ts";
import { openSse } from "../helpers/sse.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";
import { eventually } from "../helpers/webhook-receiver.ts";

let t: TestApp;
let doc: any;
let conformance: Conformance;
const violations: string[] = [];
beforeAll(async () => {
  t = await startTestApp({ ownDatabase: true });
  doc = (await t.api.get("/openapi.json")).body;
  conformance = openApiConformance(doc);
});
afterAll(() => t.close());

async function call(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
  const res = await t.api.request(method, path, options);
  violations.push(
    ...conformance.check({ method, url: path, status: res.status, headers: res.headers, text: res.text }),
  );
  return res;
}

const maria = {
  name: "Maria Silva",
  email: "maria.silva@example.com",
  phone: "+351 912 345 678",
  weddingDate: "2027-06-12",
  measurements: { bust: 86, waist: 68 },
};

describe("every answer matches the OpenAPI document", () => {
  it("walks every operation, successes and errors", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx);
    const readOnly = await createKey(t.ctx, vendor.id, ["orders:read"]);
    const k = { key };

    await call("GET", "/health");
    await call("GET", "/ready");
    await call("GET", "/.well-known/oauth-authorization-server");
    await call("GET", "/api/vendor/profile", k);

    // Authentication errors.
    await call("GET", "/api/vendor/orders");
    await call("GET", "/api/vendor/orders", { key: "vk_unknown" });
    await call("GET", "/api/vendor/orders", { key, token: "vat_x" });
    await call("POST", "/api/vendor/orders", { key: readOnly, body: { customerName: "X", type: "SUIT" } });

    // Customers.
    const customer = await call("POST", "/api/vendor/customers", { ...k, body: maria });
    expect(customer.status).toBe(201);
    await call("POST", "/api/vendor/customers", { ...k, body: maria });
    await call("GET", "/api/vendor/customers?limit=1", k);
    await call("GET", "/api/vendor/customers?bogus=1", k);
    await call("GET", `/api/vendor/customers/${customer.body.id}`, k);
    await call("GET", "/api/vendor/customers/unknown", k);
    await call("PATCH", `/api/vendor/customers/${customer.body.id}`, { ...k, body: { notes: "Saturdays" } });
    await call("PUT", `/api/vendor/customers/${customer.body.id}`, { ...k, body: { phone: null } });
    const duplicate = await call("POST", "/api/vendor/customers", { ...k, body: { name: "Maria S." } });
    await call("POST", `/api/vendor/customers/${customer.body.id}/merge`, {
      ...k,
      body: { from: duplicate.body.id },
    });
    await call("POST", `/api/vendor/customers/${customer.body.id}/merge`, {
      ...k,
      body: { from: "unknown" },
    });

    // Orders.
    const orderBody = {
      customerName: "Maria Silva",
      customerEmail: "maria.silva@example.com",
      type: "BRIDAL_DRESS",
      model: "Aurora",
      size: "38",
    };
    const order = await call("POST", "/api/vendor/orders", {
      ...k,
      body: orderBody,
      headers: { "idempotency-key": "order-1" },
    });
    expect(order.status).toBe(201);
    const replay = await call("POST", "/api/vendor/orders", {
      ...k,
      body: orderBody,
      headers: { "idempotency-key": "order-1" },
    });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    await call("POST", "/api/vendor/orders", {
      ...k,
      body: { ...orderBody, size: "40" },
      headers: { "idempotency-key": "order-1" },
    });
    await call("POST", "/api/vendor/orders", {
      ...k,
      raw: '{"customerName":',
      contentType: "application/json",
    });
    await call("POST", "/api/vendor/orders", { ...k, raw: "customerName=x", contentType: "text/plain" });
    await call("POST", "/api/vendor/orders", {
      ...k,
      raw: JSON.stringify({ x: "y".repeat(1_100_000) }),
      contentType: "application/json",
    });
    await call("GET", "/api/vendor/orders?status=ORDERED&status=IN_PRODUCTION", k);
    await call("GET", `/api/vendor/orders?customerId=${customer.body.id}`, k);
    await call("GET", `/api/vendor/orders/${order.body.id}`, k);
    await call("PATCH", `/api/vendor/orders/${order.body.id}`, { ...k, body: { size: "40" } });
    await call("PUT", `/api/vendor/orders/${order.body.id}/status`, {
      ...k,
      body: { status: "IN_PRODUCTION", message: "Cutting", imageUrl: "https://photos.example.com/1.jpg" },
    });
    await call("PUT", `/api/vendor/orders/${order.body.id}/status`, { ...k, body: { status: "RETURNED" } });
    // A photo from the camera, then one that is not an image.
    for (const bytes of [await cameraJpeg(640, 480), Buffer.from("%PDF-1.7\n")]) {
      const upload = await uploadPhoto(t.url, order.body.id, bytes, { key });
      violations.push(
        ...conformance.check({
          method: "POST",
          url: `/api/vendor/orders/${order.body.id}/photos`,
          status: upload.status,
          headers: upload.headers,
          text: upload.text,
        }),
      );
    }

    // Appointments.
    const fitting = {
      customerId: customer.body.id,
      orderId: order.body.id,
      type: "FITTING",
      date: "2027-03-20T10:00:00Z",
    };
    const a1 = await call("POST", "/api/vendor/appointments", { ...k, body: fitting });
    expect(a1.status).toBe(201);
    await call("POST", "/api/vendor/appointments", { ...k, body: { ...fitting, customerId: "nope" } });
    await call("GET", "/api/vendor/appointments?from=2027-01-01", k);
    await call("GET", `/api/vendor/appointments/${a1.body.id}`, k);
    await call("PATCH", `/api/vendor/appointments/${a1.body.id}`, { ...k, body: { status: "CONFIRMED" } });
    await call("PUT", `/api/vendor/appointments/${a1.body.id}`, { ...k, body: { status: "PROPOSED" } });
    await call("DELETE", `/api/vendor/appointments/${a1.body.id}`, k);
    const a2 = await call("POST", "/api/vendor/appointments", { ...k, body: { ...fitting, orderId: null } });
    await call("DELETE", `/api/vendor/appointments/${a2.body.id}`, k);
    await call("GET", "/api/vendor/sync/checksum?resource=appointments", k);
    await call("GET", "/api/vendor/sync/checksum?resource=bookings", k);

    // Booking: the shop's settings, its free starts, and a bride taking one (then the same one again).
    await call("GET", "/api/vendor/booking/settings", k);
    await call("PUT", "/api/vendor/booking/settings", {
      ...k,
      body: { timeZone: "Europe/Lisbon", types: { CONSULTATION: { minNoticeMinutes: 0 } } },
    });
    await call("PUT", "/api/vendor/booking/settings", { ...k, body: { timeZone: "Mars/Olympus" } });
    const free = await call("GET", "/api/vendor/availability?type=CONSULTATION", k);
    await call("GET", "/api/vendor/availability?type=BOGUS", k);
    await call("GET", `/api/public/vendors/${vendor.id}/availability?type=CONSULTATION`);
    await call("GET", "/api/public/vendors/unknown/availability?type=CONSULTATION");
    const start = free.body.slots?.[0];
    expect(start).toBeDefined();
    const booking = { type: "CONSULTATION", start, name: "Lena Schmidt", email: "lena@example.com" };
    expect((await call("POST", `/api/public/vendors/${vendor.id}/bookings`, { body: booking })).status).toBe(
      201,
    );
    await call("POST", `/api/public/vendors/${vendor.id}/bookings`, { body: booking });
    await call("POST", `/api/public/vendors/${vendor.id}/bookings`, { body: { type: "CONSULTATION" } });

    // Inquiries.
    const inquiry = await call("POST", `/api/public/vendors/${vendor.id}/inquiries`, {
      body: { name: "Ana Costa", email: "ana@example.com", message: "Is the Aurora available in 42?" },
    });
    expect(inquiry.status).toBe(201);
    await call("POST", `/api/public/vendors/${vendor.id}/inquiries`, { body: { name: "Ana" } });
    await call("GET", "/api/vendor/inquiries", k);
    await call("GET", `/api/vendor/inquiries/${inquiry.body.id}`, k);

    // Webhooks and events.
    const hook = await call("POST", "/api/vendor/webhooks", {
      ...k,
      body: { url: "http://127.0.0.1:9/hooks", events: ["order.created", "order.status_changed"] },
    });
    expect(hook.status).toBe(201);
    await call("GET", "/api/vendor/webhooks", k);
    await call("GET", `/api/vendor/webhooks/${hook.body.id}`, k);
    await call("PATCH", `/api/vendor/webhooks/${hook.body.id}`, { ...k, body: { status: "DISABLED" } });
    await call("PUT", `/api/vendor/webhooks/${hook.body.id}`, { ...k, body: { status: "ACTIVE" } });
    await call("POST", `/api/vendor/webhooks/${hook.body.id}/rotate-secret`, k);
    await call("POST", `/api/vendor/webhooks/${hook.body.id}/rotate-secret`, {
      ...k,
      body: { overlapSeconds: 60 },
    });
    await call("POST", `/api/vendor/webhooks/${hook.body.id}/test`, k);
    // A dispatcher fans the test event out into a delivery (its POST to port 9 is refused).
    const dispatcher = await startDispatcher({ config: t.config, database: t.database });
    const deliveries = await eventually(async () => {
      const res = await call("GET", `/api/vendor/webhooks/${hook.body.id}/deliveries`, k);
      return res.body.deliveries.length > 0 && res;
    });
    await dispatcher.stop(1_000);
    const deliveryId = deliveries.body.deliveries[0].id;
    await call("GET", `/api/vendor/webhooks/${hook.body.id}/deliveries/${deliveryId}`, k);
    await call("POST", `/api/vendor/webhooks/${hook.body.id}/deliveries/${deliveryId}/redeliver`, k);
    await call("POST", `/api/vendor/webhooks/${hook.body.id}/recover`, {
      ...k,
      body: { since: "2026-01-01T00:00:00Z" },
    });
    const events = await call("GET", "/api/vendor/events", k);
    await call("GET", `/api/vendor/events/${events.body.events[0].id}`, k);
    // The event stream: its head and first message (it never ends by itself).
    const streamPath = "/api/vendor/events/stream";
    const stream = await openSse(t.url + streamPath, { "x-api-key": key });
    const first = await stream.next();
    violations.push(
      ...conformance.check({
        method: "GET",
        url: streamPath,
        status: stream.status,
        headers: stream.headers,
        text: `: ${first.comment}\n\n`,
      }),
    );
    stream.close();
    await call("GET", `${streamPath}?types=order.nothing`, k);
    await call("DELETE", `/api/vendor/webhooks/${hook.body.id}`, k);

    // Erasure, after which the order answers without its customer.
    await call("DELETE", `/api/vendor/customers/${customer.body.id}`, k);
    await call("GET", `/api/vendor/orders/${order.body.id}`, k);
    await call("GET", "/api/vendor/events", k);

    // OAuth protocol endpoints (RFC 6749 errors, form bodies).
    const client = await createClient(t.ctx);
    const form = (fields: Record<string, string>) => ({
      raw: new URLSearchParams(fields).toString(),
      contentType: "application/x-www-form-urlencoded",
    });
    await call(
      "POST",
      "/api/oauth/token",
      form({
        grant_type: "authorization_code",
        code: "x",
        client_id: client.clientId,
        client_secret: client.clientSecret,
        redirect_uri: "https://client.example/callback",
        code_verifier: "x".repeat(43),
      }),
    );
    await call(
      "POST",
      "/api/oauth/token",
      form({ grant_type: "password", client_id: client.clientId, client_secret: "wrong" }),
    );
    await call(
      "POST",
      "/api/oauth/revoke",
      form({ token: "vrt_unknown", client_id: client.clientId, client_secret: client.clientSecret }),
    );
    await call("GET", "/api/oauth/authorize?response_type=code", {});

    expect(violations).toEqual([]);
    const documented = Object.entries<any>(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(documented.filter((op) => !conformance.seen.has(op))).toEqual([]);
  });

  it("the check itself refuses answers that depart from the document", () => {
    const headers = (h: Record<string, string>) => new Headers(h);
    const base = { method: "GET", url: "/api/vendor/profile" };
    expect(conformance.check({ ...base, status: 418, headers: headers({}), text: "" })[0]).toMatch(
      /status not documented/,
    );
    const ok = { "content-type": "application/json", "x-request-id": "r1" };
    const limits = {
      "ratelimit-limit": "600",
      "ratelimit-remaining": "599",
      "ratelimit-reset": "60",
      "ratelimit-policy": '"credential";q=600;w=60',
      ratelimit: '"credential";r=599;t=60',
    };
    const profile =
      '{"id":"v1","name":"Bella Bridal","email":"owner@bella.example","createdAt":"2026-11-02T10:15:00.000Z","timeZone":"UTC","language":"en","contactEmail":null,"livemode":true}';
    expect(
      conformance.check({ ...base, status: 200, headers: headers({ ...ok, ...limits }), text: profile }),
    ).toEqual([]);
    expect(conformance.check({ ...base, status: 200, headers: headers(ok), text: profile }).join()).toMatch(
      /required header RateLimit-Limit missing/,
    );
    expect(
      conformance
        .check({ ...base, status: 200, headers: headers({ ...ok, ...limits }), text: '{"id":"v1"}' })
        .join(),
    ).toMatch(/must have required property/);
    const problem = '{"type":"x","title":"t","status":409,"code":"not_found","requestId":"r"}';
    expect(
      conformance
        .check({
          method: "PUT",
          url: "/api/vendor/orders/o1/status",
          status: 409,
          headers: headers({ "content-type": "application/problem+json", "x-request-id": "r1" }),
          text: problem,
        })
        .join(),
    ).toMatch(/must be equal to one of the allowed values/);
  });
});
