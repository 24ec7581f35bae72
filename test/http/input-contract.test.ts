// Issue 10: every input answered in the contract's shape (CONTRACT 1, 2, 8). Each block restates
// one defect found from outside and the answer the contract promises instead.
import net from "node:net";
import { describe, expect, it } from "vitest";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

const enc = encodeURIComponent;

function expectFieldError(res: { status: number; body: any; headers: Headers }, field: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  expect(res.body.code).toBe("validation_failed");
  expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
}

async function webhookOf(key: string) {
  const res = await t.api.post(
    "/api/vendor/webhooks",
    { url: "http://127.0.0.1:9/hook", events: ["order.created"] },
    { key },
  );
  expect(res.status).toBe(201);
  return res.body as { id: string; secret: string };
}

describe("one date parser, one accepted range (years 0001-9999 UTC): outside it is 400 naming the field", () => {
  it("a bare `to` of 9999-12-31 covers that whole day without overflowing into year 10000", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const c = await t.api.post("/api/vendor/customers", { name: "Late" }, { key });
    const a = await t.api.post(
      "/api/vendor/appointments",
      { customerId: c.body.id, type: "FITTING", date: "9999-12-31T23:00:00Z" },
      { key },
    );
    expect(a.status).toBe(201);
    const res = await t.api.get("/api/vendor/appointments?from=9999-12-31&to=9999-12-31", { key });
    expect(res.status).toBe(200);
    expect(res.body.appointments.map((x: { id: string }) => x.id)).toEqual([a.body.id]);
  });

  for (const resource of ["orders", "customers", "appointments"]) {
    it(`updatedSince with an offset beyond ±15:59 is read as the instant it names (${resource})`, async () => {
      const { key } = await createVendorWithKey(t.ctx);
      const res = await t.api.get(
        `/api/vendor/${resource}?updatedSince=${enc("2026-01-01T00:00:00+16:00")}`,
        {
          key,
        },
      );
      expect(res.status).toBe(200);
    });
  }

  it("updatedSince landing past year 9999 once in UTC is 400 naming updatedSince", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    for (const resource of ["orders", "customers", "appointments"]) {
      const res = await t.api.get(
        `/api/vendor/${resource}?updatedSince=${enc("9999-12-31T23:00:00-05:00")}`,
        {
          key,
        },
      );
      expectFieldError(res, "updatedSince");
    }
  });

  it("recover: a leap second, an hour-only offset and dates outside 0001-9999 UTC are never 500", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const hook = await webhookOf(key);
    const path = `/api/vendor/webhooks/${hook.id}/recover`;
    for (const since of ["2026-06-30T23:59:60Z", "0001-01-01T00:00:00+01:00", "9999-12-31T23:00:00-05:00"]) {
      expectFieldError(await t.api.post(path, { since }, { key }), "since");
    }
    // An hour-only offset is an offset: it names an exact instant.
    const hourOnly = await t.api.post(path, { since: "2026-01-01T00:00:00+05" }, { key });
    expect(hourOnly.status).toBe(202);
    expect(hourOnly.body).toEqual({ count: 0 });
    expectFieldError(
      await t.api.post(path, { since: "2026-01-01T00:00:00Z", until: "2026-01-01T00:00:00+05" }, { key }),
      "until",
    );
  });

  it("events since that lands in year 10000 is 400 naming since", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    expectFieldError(
      await t.api.get(`/api/vendor/events?since=${enc("9999-12-31T22:00:00-03:00")}`, { key }),
      "since",
    );
    const ok = await t.api.get(`/api/vendor/events?since=${enc("2026-01-01T00:00:00+05")}`, { key });
    expect(ok.status).toBe(200);
  });

  it("appointment dates and wedding dates follow the same range", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const c = await t.api.post("/api/vendor/customers", { name: "R" }, { key });
    for (const date of ["2026-06-30T23:59:60Z", "9999-12-31T23:00:00-05:00", "0000-12-31T23:00:00Z"]) {
      expectFieldError(
        await t.api.post(
          "/api/vendor/appointments",
          { customerId: c.body.id, type: "FITTING", date },
          { key },
        ),
        "date",
      );
    }
    expectFieldError(
      await t.api.post("/api/vendor/customers", { name: "W", weddingDate: "2027-02-29" }, { key }),
      "weddingDate",
    );
    const last = await t.api.post("/api/vendor/customers", { name: "W", weddingDate: "9999-12-31" }, { key });
    expect(last.status).toBe(201);
  });
});

describe("framework errors in the contract's shape", () => {
  it("a path id that is not a valid URL component (%ZZ) is 404 not_found, like any unknown id", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    for (const path of [
      "/api/vendor/customers/%ZZ",
      "/api/vendor/orders/%FF",
      "/api/vendor/webhooks/%E0%A4%A/test",
    ]) {
      const res = await t.api.request(path.endsWith("/test") ? "POST" : "GET", path, { key });
      expect(res.status, path).toBe(404);
      expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect(res.body.code).toBe("not_found");
      expect(res.headers.get("x-request-id")).toBe(res.body.requestId);
      expect(res.headers.get("ratelimit-limit")).not.toBeNull();
    }
  });

  async function rawExchange(request: string): Promise<string> {
    const { port } = new URL(t.url);
    return new Promise((resolve, reject) => {
      const socket = net.connect(Number(port), "127.0.0.1");
      let out = "";
      socket.on("data", (d) => {
        out += d.toString("utf8");
      });
      socket.on("close", () => resolve(out));
      socket.on("error", reject);
      socket.write(request);
    });
  }

  function parseRaw(raw: string) {
    const [head = "", body = ""] = raw.split("\r\n\r\n");
    const [statusLine = "", ...lines] = head.split("\r\n");
    const headers = Object.fromEntries(
      lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]),
    );
    return { status: Number(statusLine.split(" ")[1]), headers, body: JSON.parse(body) };
  }

  it("a duplicate Content-Length is 400 problem+json with a request id", async () => {
    const raw = await rawExchange(
      "POST /api/vendor/customers HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
    );
    const res = parseRaw(raw);
    expect(res.status).toBe(400);
    expect(res.headers["content-type"]).toBe("application/problem+json");
    expect(res.body).toMatchObject({ status: 400, code: "validation_failed" });
    expect(res.headers["x-request-id"]).toBe(res.body.requestId);
  });

  it("oversized headers are 431 problem+json with a code of the contract", async () => {
    const raw = await rawExchange(
      `GET /api/vendor/orders HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`,
    );
    const res = parseRaw(raw);
    expect(res.status).toBe(431);
    expect(res.headers["content-type"]).toBe("application/problem+json");
    expect(res.body).toMatchObject({ status: 431, code: "headers_too_large" });
  });

  it("every answer under /api carries X-Request-Id and the RateLimit headers, unknown routes included", async () => {
    for (const path of [
      "/api/vendor/nothing-here",
      "/api/public/nothing",
      "/api/nothing",
      "/api/oauth/nothing",
    ]) {
      const res = await t.api.get(path);
      expect(res.status, path).toBe(404);
      expect(res.body.code).toBe("route_not_found");
      expect(res.headers.get("x-request-id"), path).toBe(res.body.requestId);
      for (const h of [
        "ratelimit-limit",
        "ratelimit-remaining",
        "ratelimit-reset",
        "ratelimit-policy",
        "ratelimit",
      ]) {
        expect(res.headers.get(h), `${path} ${h}`).not.toBeNull();
      }
    }
  });
});

describe("bodiless operations accept an empty body whatever the Content-Type", () => {
  it("DELETE, test, rotate-secret and redeliver with Content-Type: application/json and no body", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const hook = await webhookOf(key);
    const json = { contentType: "application/json", raw: "" };
    const test = await t.api.request("POST", `/api/vendor/webhooks/${hook.id}/test`, { key, ...json });
    expect(test.status, test.text).toBe(202);
    const rotate = await t.api.request("POST", `/api/vendor/webhooks/${hook.id}/rotate-secret`, {
      key,
      ...json,
    });
    expect(rotate.status, rotate.text).toBe(200);
    // No delivery exists here: the body is accepted and the unknown delivery is what is refused.
    const redeliver = await t.api.request(
      "POST",
      `/api/vendor/webhooks/${hook.id}/deliveries/nosuchdelivery0000000000/redeliver`,
      { key, contentType: "text/plain", raw: "" },
    );
    expect(redeliver.body.code, redeliver.text).toBe("not_found");
    const redeliverJson = await t.api.request(
      "POST",
      `/api/vendor/webhooks/${hook.id}/deliveries/nosuchdelivery0000000000/redeliver`,
      { key, ...json },
    );
    expect(redeliverJson.body.code, redeliverJson.text).toBe("not_found");
    const del = await t.api.request("DELETE", `/api/vendor/webhooks/${hook.id}`, { key, ...json });
    expect(del.status, del.text).toBe(204);
  });

  it("the OpenAPI document declares those bodies optional", async () => {
    const doc = (await t.api.get("/openapi.json")).body;
    for (const path of [
      "/api/vendor/webhooks/{id}/test",
      "/api/vendor/webhooks/{id}/rotate-secret",
      "/api/vendor/webhooks/{id}/deliveries/{deliveryId}/redeliver",
    ]) {
      expect(doc.paths[path].post.requestBody.required, path).toBe(false);
    }
    expect(doc.paths["/api/vendor/customers"].post.requestBody.required).toBe(true);
  });

  it("an empty JSON body where one is required stays invalid_json", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const res = await t.api.request("POST", "/api/vendor/customers", {
      key,
      contentType: "application/json",
      raw: "",
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("invalid_json");
  });
});

describe("bodies that should be refused are refused, storing nothing", () => {
  it("a JSON null body does not rotate the secret", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const hook = await webhookOf(key);
    const before = await t.api.get(`/api/vendor/webhooks/${hook.id}`, { key });
    const res = await t.api.request("POST", `/api/vendor/webhooks/${hook.id}/rotate-secret`, {
      key,
      contentType: "application/json",
      raw: "null",
    });
    expectFieldError(res, "(body)");
    const after = await t.api.get(`/api/vendor/webhooks/${hook.id}`, { key });
    // A rotation stamps updatedAt; the refused request changed nothing.
    expect(after.body.updatedAt).toBe(before.body.updatedAt);
  });

  it("a JSON null body where a body is required is validation_failed", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    expectFieldError(
      await t.api.request("POST", "/api/vendor/customers", {
        key,
        contentType: "application/json",
        raw: "null",
      }),
      "(body)",
    );
  });

  it("a body on an operation that takes none is refused", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const hook = await webhookOf(key);
    expectFieldError(
      await t.api.request("DELETE", `/api/vendor/webhooks/${hook.id}`, {
        key,
        contentType: "application/json",
        raw: "null",
      }),
      "(body)",
    );
    expect((await t.api.get(`/api/vendor/webhooks/${hook.id}`, { key })).status).toBe(200);
  });

  it("a string holding a lone surrogate (JSON \\ud800) is 400 naming the field, never a 500 or U+FFFD", async () => {
    // Found by the fuzzer: jsonb cannot hold one, so measurements answered 500.
    const { key } = await createVendorWithKey(t.ctx);
    for (const [body, field] of [
      ['{"name":"x","measurements":{"bust":"\\ud800"}}', "measurements.bust"],
      ['{"name":"x","preferences":{"colour":"a\\udc00b"}}', "preferences.colour"],
      ['{"name":"Ma\\ud800ria"}', "name"],
    ] as const) {
      expectFieldError(
        await t.api.request("POST", "/api/vendor/customers", {
          key,
          contentType: "application/json",
          raw: body,
        }),
        field,
      );
    }
    const paired = await t.api.request("POST", "/api/vendor/customers", {
      key,
      contentType: "application/json",
      raw: '{"name":"Bride \\ud83d\\udc70"}',
    });
    expect(paired.status).toBe(201);
    expect(paired.body.name).toBe("Bride \u{1F470}");
  });

  it("a body that is not valid UTF-8 is invalid_json and nothing is stored", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const raw = Buffer.concat([Buffer.from('{"name":"Ma'), Buffer.from([0xff, 0xfe]), Buffer.from('ria"}')]);
    const res = await t.api.request("POST", "/api/vendor/customers", {
      key,
      contentType: "application/json",
      raw,
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("invalid_json");
    const list = await t.api.get("/api/vendor/customers", { key });
    expect(list.body.customers).toEqual([]);
  });
});

describe("mistakes are not silently accepted", () => {
  it("unknown query parameters are 400 validation_failed naming them", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    expectFieldError(await t.api.get("/api/vendor/orders?limt=5", { key }), "limt");
    expectFieldError(await t.api.get("/api/vendor/customers?bogus=1&limit=2", { key }), "bogus");
    expectFieldError(await t.api.get("/api/vendor/profile?x=1", { key }), "x");
    const hook = await webhookOf(key);
    expectFieldError(
      await t.api.request("DELETE", `/api/vendor/webhooks/${hook.id}?force=true`, { key }),
      "force",
    );
    expect((await t.api.get("/api/vendor/orders?limit=5", { key })).status).toBe(200);
  });

  it("a wrong method on an existing path is 405 method_not_allowed with Allow", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const res = await t.api.request("DELETE", "/api/vendor/orders", { key });
    expect(res.status).toBe(405);
    expect(res.body.code).toBe("method_not_allowed");
    expect(res.headers.get("allow")).toBe("GET, HEAD, POST");
    expect(res.headers.get("ratelimit-limit")).not.toBeNull();
    const token = await t.api.get("/api/oauth/token");
    expect(token.status).toBe(405);
    expect(token.headers.get("allow")).toBe("POST");
  });

  it("a 201 carries Location naming the created resource", async () => {
    const { key, vendor } = await createVendorWithKey(t.ctx);
    const customer = await t.api.post(
      "/api/vendor/customers",
      { name: "L", email: "l@example.com" },
      { key },
    );
    const order = await t.api.post(
      "/api/vendor/orders",
      { customerName: "L", customerEmail: "l@example.com", type: "SUIT" },
      { key },
    );
    const appointment = await t.api.post(
      "/api/vendor/appointments",
      { customerId: customer.body.id, type: "FITTING", date: "2027-01-01T10:00:00Z" },
      { key },
    );
    const webhook = await t.api.post(
      "/api/vendor/webhooks",
      { url: "http://127.0.0.1:9/h", events: ["order.created"] },
      { key },
    );
    const inquiry = await t.api.post(`/api/public/vendors/${vendor.id}/inquiries`, {
      name: "I",
      email: "i@example.com",
      message: "hello",
    });
    for (const [res, path] of [
      [customer, "customers"],
      [order, "orders"],
      [appointment, "appointments"],
      [webhook, "webhooks"],
      [inquiry, "inquiries"],
    ] as const) {
      expect(res.status).toBe(201);
      const location = res.headers.get("location");
      expect(location).toBe(`/api/vendor/${path}/${res.body.id}`);
      expect((await t.api.get(location as string, { key })).status).toBe(200);
    }
  });
});

describe("GET /api/vendor/webhooks pages like every list (CONTRACT 8)", () => {
  it("has nextCursor, null on the last page, and limit/cursor walk every webhook once", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await webhookOf(key)).id);
    const all = await t.api.get("/api/vendor/webhooks", { key });
    expect(all.body.nextCursor).toBeNull();
    expect(all.body.webhooks.map((w: { id: string }) => w.id)).toEqual(ids);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await t.api.get(`/api/vendor/webhooks?limit=2${cursor ? `&cursor=${cursor}` : ""}`, {
        key,
      });
      expect(page.status).toBe(200);
      seen.push(...page.body.webhooks.map((w: { id: string }) => w.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(ids);
  });
});
