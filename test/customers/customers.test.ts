import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventsAbout } from "../helpers/events.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

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
        "notes",
        "measurements",
        "preferences",
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
