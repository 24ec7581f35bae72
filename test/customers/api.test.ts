import { describe, expect, it } from "vitest";
import { nextMillisecond } from "../helpers/clock.ts";
import { eventsAbout } from "../helpers/events.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { readSyncList } from "../helpers/sync.ts";
import { useTestApp } from "../helpers/test-app.ts";

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const t = useTestApp();

describe("POST /api/vendor/customers", () => {
  it("answers 201 with the customer shape of CONTRACT 5, and emits customer.created", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const res = await t.api.post(
      "/api/vendor/customers",
      {
        name: "Ana Costa",
        email: "ana@example.com",
        phone: "+351 911 111 111",
        weddingDate: "2027-09-18",
        notes: "Prefers mornings",
        measurements: { bust: 86, waist: 66, hips: 92, unit: "cm", extra: { arm: [58, 59] } },
        preferences: { colors: ["ivory"], silhouette: "mermaid" },
      },
      { key },
    );
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(
      [
        "id",
        "name",
        "email",
        "phone",
        "weddingDate",
        "language",
        "notes",
        "measurements",
        "preferences",
        "externalId",
        "metadata",
        "createdAt",
        "updatedAt",
      ].sort(),
    );
    expect(res.body).toMatchObject({
      name: "Ana Costa",
      email: "ana@example.com",
      weddingDate: "2027-09-18",
      measurements: { bust: 86, waist: 66, hips: 92, unit: "cm", extra: { arm: [58, 59] } },
      preferences: { colors: ["ivory"], silhouette: "mermaid" },
    });
    expect(res.body.createdAt).toMatch(ISO_MS);
    const events = await eventsAbout(t, res.body.id);
    expect(events.map((e) => e.type)).toEqual(["customer.created"]);
    expect(events[0]?.data).toEqual(res.body);
  });
});

describe("customer e-mail uniqueness", () => {
  it("a second customer with the same e-mail in another case is 409 customer_email_taken with existingId", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const first = await t.api.post(
      "/api/vendor/customers",
      { name: "A", email: "Same@Example.com" },
      { key },
    );
    const second = await t.api.post(
      "/api/vendor/customers",
      { name: "B", email: "same@example.COM" },
      { key },
    );
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ code: "customer_email_taken", existingId: first.body.id });
    expect(second.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  });

  it("concurrent creates with one e-mail: one 201, the rest 409 naming the winner", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const results = await Promise.all(
      [0, 1, 2, 3].map((i) =>
        t.api.post("/api/vendor/customers", { name: `R${i}`, email: "race@example.com" }, { key }),
      ),
    );
    const winners = results.filter((r) => r.status === 201);
    expect(winners).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 201)) {
      expect(r.status).toBe(409);
      expect(r.body.existingId).toBe(winners[0]?.body.id);
    }
  });

  it("another vendor may have a customer with the same e-mail", async () => {
    const a = await createVendorWithKey(t.ctx);
    const b = await createVendorWithKey(t.ctx);
    const body = { name: "A", email: "shared@example.com" };
    expect((await t.api.post("/api/vendor/customers", body, { key: a.key })).status).toBe(201);
    expect((await t.api.post("/api/vendor/customers", body, { key: b.key })).status).toBe(201);
  });

  it("updating to another customer's e-mail is 409 with existingId; to one's own in another case is fine", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const a = await t.api.post("/api/vendor/customers", { name: "A", email: "a@example.com" }, { key });
    const b = await t.api.post("/api/vendor/customers", { name: "B", email: "b@example.com" }, { key });
    const clash = await t.api.patch(
      `/api/vendor/customers/${b.body.id}`,
      { email: "A@example.com" },
      { key },
    );
    expect(clash.status).toBe(409);
    expect(clash.body).toMatchObject({ code: "customer_email_taken", existingId: a.body.id });
    const own = await t.api.patch(`/api/vendor/customers/${b.body.id}`, { email: "B@EXAMPLE.com" }, { key });
    expect(own.status).toBe(200);
    expect(own.body.email).toBe("B@EXAMPLE.com");
  });
});

describe("GET /api/vendor/customers", () => {
  it("lists the last 100 by creation, newest first, and pages further with limit and cursor", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await t.api.post("/api/vendor/customers", { name: `C${i}` }, { key })).body.id);
    }
    const all = await t.api.get("/api/vendor/customers", { key });
    expect(all.status).toBe(200);
    expect(all.body.customers.map((c: any) => c.id)).toEqual([...ids].reverse());
    expect(all.body.nextCursor).toBeNull();

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const q: string = cursor ? `&cursor=${cursor}` : "";
      const page: any = await t.api.get(`/api/vendor/customers?limit=2${q}`, { key });
      expect(page.body.customers.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.customers.map((c: any) => c.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
  });

  it("filters by e-mail (case-insensitive) and by updatedSince", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const a = await t.api.post("/api/vendor/customers", { name: "A", email: "find.me@example.com" }, { key });
    await t.api.post("/api/vendor/customers", { name: "B", email: "other@example.com" }, { key });
    const byEmail = await t.api.get("/api/vendor/customers?email=FIND.ME%40example.com", { key });
    expect(byEmail.body.customers.map((c: any) => c.id)).toEqual([a.body.id]);

    await nextMillisecond();
    const since = new Date().toISOString();
    await nextMillisecond();
    await t.api.patch(`/api/vendor/customers/${a.body.id}`, { notes: "changed" }, { key });
    const changed = await readSyncList(
      t,
      `/api/vendor/customers?updatedSince=${since}`,
      key,
      (b) => b.customers.length > 0,
    );
    expect(changed.body.customers.map((c: any) => c.id)).toEqual([a.body.id]);
  });

  it("never lists another vendor's customers", async () => {
    const a = await createVendorWithKey(t.ctx);
    const b = await createVendorWithKey(t.ctx);
    await t.api.post("/api/vendor/customers", { name: "A's" }, { key: a.key });
    const list = await t.api.get("/api/vendor/customers", { key: b.key });
    expect(list.body.customers).toEqual([]);
  });

  it("a bad cursor or limit is 400 validation_failed naming the parameter", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const cursor = await t.api.get("/api/vendor/customers?cursor=garbage", { key });
    expect(cursor.status).toBe(400);
    expect(cursor.body.errors[0].field).toBe("cursor");
    const limit = await t.api.get("/api/vendor/customers?limit=101", { key });
    expect(limit.status).toBe(400);
    expect(limit.body.errors[0].field).toBe("limit");
  });
});

describe("GET /api/vendor/customers/{id}", () => {
  it("returns the complete customer with counts of orders and appointments", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const c = await t.api.post(
      "/api/vendor/customers",
      { name: "Counted", email: "count@example.com" },
      { key },
    );
    const order = await t.api.post(
      "/api/vendor/orders",
      { customerName: "Counted", customerEmail: "COUNT@example.com", type: "BRIDAL_DRESS" },
      { key },
    );
    await t.api.post(
      "/api/vendor/orders",
      { customerName: "Counted", customerEmail: "count@example.com", type: "SUIT" },
      { key },
    );
    await t.api.post(
      "/api/vendor/appointments",
      { customerId: c.body.id, type: "FITTING", date: "2027-01-10T10:00:00Z", orderId: order.body.id },
      { key },
    );
    const res = await t.api.get(`/api/vendor/customers/${c.body.id}`, { key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ...c.body, counts: { orders: 2, appointments: 1 } });
  });

  it("an unknown id is 404 not_found", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const res = await t.api.get("/api/vendor/customers/tz4a98xxat96iws9zmbrgj3a", { key });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe("not_found");
  });
});

describe("PATCH and PUT /api/vendor/customers/{id}", () => {
  for (const method of ["PATCH", "PUT"] as const) {
    it(`${method} is partial: omitted fields stay, null clears, and updatedAt moves`, async () => {
      const { key } = await createVendorWithKey(t.ctx);
      const c = await t.api.post(
        "/api/vendor/customers",
        { name: "Before", email: "p@example.com", phone: "123", notes: "n", measurements: { waist: 70 } },
        { key },
      );
      const res = await t.api.request(method, `/api/vendor/customers/${c.body.id}`, {
        key,
        body: { name: "After", phone: null, measurements: { waist: 68, hips: 94 } },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        id: c.body.id,
        name: "After",
        email: "p@example.com",
        phone: null,
        notes: "n",
        measurements: { waist: 68, hips: 94 },
        preferences: null,
        createdAt: c.body.createdAt,
        counts: { orders: 0, appointments: 0 },
      });
      expect(res.body.updatedAt > c.body.updatedAt).toBe(true);
      const read = await t.api.get(`/api/vendor/customers/${c.body.id}`, { key });
      expect(read.body).toEqual(res.body);
    });
  }

  it("name cannot be cleared (null is 400 naming name)", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const c = await t.api.post("/api/vendor/customers", { name: "X" }, { key });
    const res = await t.api.patch(`/api/vendor/customers/${c.body.id}`, { name: null }, { key });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toBe("name");
  });
});

describe("measurements and preferences", () => {
  it("are stored and returned exactly as given, nested values and unicode included", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const measurements = {
      "bust (cm)": 86.5,
      notes: "Größe 38 ✓",
      list: [1, "two", null, true],
      deep: { a: { b: { c: 1 } } },
    };
    const res = await t.api.post(
      "/api/vendor/customers",
      { name: "J", measurements, preferences: {} },
      { key },
    );
    expect(res.status).toBe(201);
    const read = await t.api.get(`/api/vendor/customers/${res.body.id}`, { key });
    expect(read.body.measurements).toEqual(measurements);
    expect(read.body.preferences).toEqual({});
  });

  it("more than 5 levels deep is 400 validation_failed naming the field", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const deep = { a: { b: { c: { d: { e: { f: 1 } } } } } }; // 6 levels
    const res = await t.api.post("/api/vendor/customers", { name: "J", preferences: deep }, { key });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("validation_failed");
    expect(res.body.errors[0].field).toBe("preferences");
    const ok = await t.api.post("/api/vendor/customers", { name: "J", preferences: deep.a }, { key });
    expect(ok.status).toBe(201);
  });

  it("a pathologically deep body is refused without a 500", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const raw = `{"name":"J","measurements":${'{"a":'.repeat(50_000)}1${"}".repeat(50_000)}}`;
    const res = await t.api.request("POST", "/api/vendor/customers", {
      key,
      raw,
      contentType: "application/json",
    });
    expect(res.status).toBe(400);
  });

  it("over 16 KiB serialized is 400 validation_failed naming the field", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const big = { blob: "x".repeat(17 * 1024) };
    const res = await t.api.post("/api/vendor/customers", { name: "J", measurements: big }, { key });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toBe("measurements");
    const c = await t.api.post("/api/vendor/customers", { name: "J" }, { key });
    const upd = await t.api.patch(`/api/vendor/customers/${c.body.id}`, { measurements: big }, { key });
    expect(upd.status).toBe(400);
    expect(upd.body.errors[0].field).toBe("measurements");
  });

  it("must be objects: an array or a string is 400", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    for (const value of [[1, 2], "tall", 3]) {
      const res = await t.api.post("/api/vendor/customers", { name: "J", measurements: value }, { key });
      expect(res.status).toBe(400);
      expect(res.body.errors[0].field).toBe("measurements");
    }
  });
});

describe("bad input to POST /api/vendor/customers", () => {
  it("a missing name, a bad e-mail or a bad weddingDate is 400 naming each field", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const res = await t.api.post(
      "/api/vendor/customers",
      { email: "nope", weddingDate: "2027-02-30" },
      { key },
    );
    expect(res.status).toBe(400);
    const fields = res.body.errors.map((e: any) => e.field).sort();
    expect(fields).toEqual(["email", "name", "weddingDate"]);
  });
});
