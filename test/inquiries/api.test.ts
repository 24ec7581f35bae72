import { describe, expect, it } from "vitest";
import {
  INQUIRIES_PER_VENDOR_PER_HOUR,
  receiveInquiry,
} from "../../src/modules/inquiries/inquiries.service.ts";
import { nextMillisecond } from "../helpers/clock.ts";
import { eventsAbout } from "../helpers/events.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

const inquiry = {
  name: "Joana",
  email: "joana@example.com",
  phone: "+351 900 000 000",
  weddingDate: "2027-08-21",
  message: "Do you have the Aurora in ivory?",
};

describe("POST /api/public/vendors/{vendorId}/inquiries", () => {
  it("needs no credentials, answers 201 { id }, emits inquiry.received, and the vendor reads it", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx);
    const res = await t.api.post(`/api/public/vendors/${vendor.id}/inquiries`, inquiry);
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(["id"]);

    const read = await t.api.get(`/api/vendor/inquiries/${res.body.id}`, { key });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ id: res.body.id, ...inquiry, createdAt: expect.any(String) });

    const events = await eventsAbout(t, res.body.id);
    expect(events.map((e) => e.type)).toEqual(["inquiry.received"]);
    expect(events[0]?.data).toEqual(read.body);
  });

  it("phone and weddingDate are optional; name, email and message are required", async () => {
    const { vendor } = await createVendorWithKey(t.ctx);
    const ok = await t.api.post(`/api/public/vendors/${vendor.id}/inquiries`, {
      name: "A",
      email: "a@example.com",
      message: "Hi",
    });
    expect(ok.status).toBe(201);
    const bad = await t.api.post(`/api/public/vendors/${vendor.id}/inquiries`, { email: "not-an-email" });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: any) => e.field).sort()).toEqual(["email", "message", "name"]);
  });

  it(`past ${INQUIRIES_PER_VENDOR_PER_HOUR} an hour a new sender is still accepted, a repeat sender gets 429 with Retry-After`, async () => {
    const { vendor } = await createVendorWithKey(t.ctx);
    const other = await createVendorWithKey(t.ctx);
    for (let i = 0; i < INQUIRIES_PER_VENDOR_PER_HOUR; i++) {
      await receiveInquiry(t.ctx, vendor.id, { name: "N", email: "n@example.com", message: `m${i}` });
    }
    expect((await t.api.post(`/api/public/vendors/${vendor.id}/inquiries`, inquiry)).status).toBe(201);
    const res = await t.api.post(`/api/public/vendors/${vendor.id}/inquiries`, inquiry);
    expect(res.status).toBe(429);
    expect(res.body.code).toBe("rate_limited");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    // Another vendor is unaffected.
    expect((await t.api.post(`/api/public/vendors/${other.vendor.id}/inquiries`, inquiry)).status).toBe(201);
  });
});

describe("the per-vendor bound under concurrency", () => {
  it("concurrent inquiries at the bound: exactly one more is accepted", async () => {
    const { vendor } = await createVendorWithKey(t.ctx);
    for (let i = 0; i < INQUIRIES_PER_VENDOR_PER_HOUR - 1; i++) {
      await receiveInquiry(t.ctx, vendor.id, { name: "N", email: "n@example.com", message: `m${i}` });
    }
    const results = await Promise.allSettled(
      Array.from({ length: 4 }, (_, i) =>
        receiveInquiry(t.ctx, vendor.id, { name: "N", email: "n@example.com", message: `race${i}` }),
      ),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of results) {
      if (r.status === "rejected") expect(r.reason).toMatchObject({ code: "rate_limited" });
    }
  });
});

describe("GET /api/vendor/inquiries", () => {
  it("lists the vendor's inquiries newest first, pages with a cursor, and never another vendor's", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx);
    const other = await createVendorWithKey(t.ctx);
    await receiveInquiry(t.ctx, other.vendor.id, { name: "X", email: "x@example.com", message: "other" });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push(
        (await receiveInquiry(t.ctx, vendor.id, { name: "N", email: "n@example.com", message: `m${i}` })).id,
      );
      await nextMillisecond();
    }
    const all = await t.api.get("/api/vendor/inquiries", { key });
    expect(all.body.inquiries.map((i: any) => i.id)).toEqual([...ids].reverse());
    const first = await t.api.get("/api/vendor/inquiries?limit=2", { key });
    expect(first.body.inquiries).toHaveLength(2);
    const second = await t.api.get(`/api/vendor/inquiries?limit=2&cursor=${first.body.nextCursor}`, { key });
    expect(second.body).toMatchObject({ inquiries: [{ id: ids[0] }], nextCursor: null });
  });
});
