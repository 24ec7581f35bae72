// CONTRACT 12, Conditional writes: every 2xx answer about one order, customer, appointment or
// webhook (reads and writes) carries ETag, the same tag a GET of it then answers; every update and
// delete of them honours If-Match: a stale tag is 412 precondition_failed and changes nothing, the
// current tag or `*` lets it through.
import { describe, expect, it } from "vitest";
import type { ApiResponse } from "../helpers/api-client.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();
const STRONG = /^"[A-Za-z0-9_-]+"$/;

interface Resource {
  name: string;
  /** Makes one; answers the 201. */
  create(key: string, n: number): Promise<ApiResponse>;
  path: (id: string) => string;
  /** Updates: method, path suffix, a body (each changes the resource). */
  updates: Array<{ method: "PATCH" | "PUT"; suffix?: string; body: (n: number) => object }>;
  deletable: boolean;
}

let customerOf = new Map<string, string>();

const resources: Resource[] = [
  {
    name: "order",
    create: (key, n) => t.api.post("/api/vendor/orders", { customerName: `Ana ${n}`, type: "SUIT" }, { key }),
    path: (id) => `/api/vendor/orders/${id}`,
    updates: [
      { method: "PATCH", body: (n) => ({ color: `Ivory ${n}` }) },
      { method: "PUT", suffix: "/status", body: (n) => ({ status: "IN_PRODUCTION", message: `step ${n}` }) },
    ],
    deletable: false,
  },
  {
    name: "customer",
    create: (key, n) => t.api.post("/api/vendor/customers", { name: `Clara ${n}` }, { key }),
    path: (id) => `/api/vendor/customers/${id}`,
    updates: [
      { method: "PATCH", body: (n) => ({ notes: `note ${n}` }) },
      { method: "PUT", body: (n) => ({ phone: `+49 30 ${n}` }) },
    ],
    deletable: true,
  },
  {
    name: "appointment",
    create: async (key, n) => {
      const customer = customerOf.get(key) as string;
      return t.api.post(
        "/api/vendor/appointments",
        { customerId: customer, type: "FITTING", date: "2027-03-29T10:00:00Z", notes: `n ${n}` },
        { key },
      );
    },
    path: (id) => `/api/vendor/appointments/${id}`,
    updates: [
      { method: "PATCH", body: (n) => ({ notes: `note ${n}` }) },
      { method: "PUT", body: (n) => ({ duration: 30 + n }) },
    ],
    deletable: true,
  },
  {
    name: "webhook",
    create: (key, n) =>
      t.api.post(
        "/api/vendor/webhooks",
        { url: `http://127.0.0.1:9/hook-${n}`, events: ["order.created"] },
        { key },
      ),
    path: (id) => `/api/vendor/webhooks/${id}`,
    updates: [
      { method: "PATCH", body: (n) => ({ url: `http://127.0.0.1:9/patched-${n}` }) },
      { method: "PUT", body: (n) => ({ url: `http://127.0.0.1:9/put-${n}` }) },
    ],
    deletable: true,
  },
];

async function shop() {
  const { key } = await createVendorWithKey(t.ctx);
  const customer = await t.api.post("/api/vendor/customers", { name: "Bride" }, { key });
  customerOf = new Map([[key, customer.body.id]]);
  return key;
}

const etagOf = (res: ApiResponse) => res.headers.get("etag");

describe.each(resources)("$name", (r) => {
  it("every 2xx answer about it carries the ETag that a GET of it then answers", async () => {
    const key = await shop();
    const created = await r.create(key, 1);
    expect(created.status).toBe(201);
    expect(etagOf(created)).toMatch(STRONG);
    const id = created.body.id as string;
    let read = await t.api.get(r.path(id), { key });
    expect(read.status).toBe(200);
    expect(etagOf(read)).toBe(etagOf(created));
    let n = 2;
    for (const u of r.updates) {
      const res = await t.api.request(u.method, r.path(id) + (u.suffix ?? ""), { key, body: u.body(n++) });
      expect(res.status, `${u.method} ${u.suffix ?? ""}`).toBe(200);
      expect(etagOf(res)).toMatch(STRONG);
      expect(etagOf(res)).not.toBe(etagOf(read));
      read = await t.api.get(r.path(id), { key });
      expect(etagOf(read), `${u.method} ${u.suffix ?? ""}`).toBe(etagOf(res));
    }
    if (r.name === "webhook") {
      const rotated = await t.api.post(`${r.path(id)}/rotate-secret`, {}, { key });
      expect(rotated.status).toBe(200);
      read = await t.api.get(r.path(id), { key });
      expect(etagOf(rotated)).toBe(etagOf(read));
    }
    if (r.deletable) {
      const del = await t.api.delete(r.path(id), { key });
      expect(del.status).toBe(204);
      // The 204 names the version it removed.
      expect(etagOf(del)).toBe(etagOf(read));
    }
  });

  it("If-Match with a stale ETag is 412 precondition_failed on every update and delete, and changes nothing", async () => {
    const key = await shop();
    const created = await r.create(key, 1);
    const id = created.body.id as string;
    const stale = etagOf(created) as string;
    const first = r.updates[0];
    if (!first) throw new Error("no update");
    const moved = await t.api.request(first.method, r.path(id) + (first.suffix ?? ""), {
      key,
      body: first.body(2),
    });
    expect(moved.status).toBe(200);
    const before = await t.api.get(r.path(id), { key });

    const writes = [
      ...r.updates.map((u, i) => ({
        method: u.method as string,
        path: r.path(id) + (u.suffix ?? ""),
        body: u.body(10 + i),
      })),
      ...(r.deletable ? [{ method: "DELETE", path: r.path(id), body: undefined }] : []),
    ];
    for (const w of writes) {
      const refused = await t.api.request(w.method, w.path, {
        key,
        body: w.body,
        headers: { "if-match": stale },
      });
      expect(refused.status, `${w.method} ${w.path}`).toBe(412);
      expect(refused.body.code).toBe("precondition_failed");
    }
    const after = await t.api.get(r.path(id), { key });
    expect(after.text).toBe(before.text);

    // The current tag lets an update through, and so does `*`.
    const current = etagOf(after) as string;
    for (const [i, w] of writes.entries()) {
      const tag = i % 2 === 0 ? (etagOf(await t.api.get(r.path(id), { key })) as string) : "*";
      const res = await t.api.request(w.method, w.path, { key, body: w.body, headers: { "if-match": tag } });
      expect(res.status, `${w.method} ${w.path} with ${tag === "*" ? "*" : "the current tag"}`).toBe(
        w.method === "DELETE" ? 204 : 200,
      );
    }
    expect(current).toMatch(STRONG);
  });
});
