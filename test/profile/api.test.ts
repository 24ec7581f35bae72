import { describe, expect, it } from "vitest";
import { updateShopSettings } from "../../src/modules/vendors/shop-settings.ts";
import { createVendor, createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

describe("GET /api/vendor/profile", () => {
  it("answers { id, name, email, createdAt, timeZone, language, contactEmail, livemode } of the key's vendor, and nothing else", async () => {
    await createVendor(t.ctx, "Someone Else");
    const { vendor, key } = await createVendorWithKey(t.ctx, "Atelier Lua");
    const res = await t.api.get("/api/vendor/profile", { key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: vendor.id,
      name: "Atelier Lua",
      email: vendor.email,
      createdAt: vendor.createdAt.toISOString(),
      timeZone: "UTC",
      language: "en",
      contactEmail: null,
      livemode: true,
    });
  });

  it("carries the time zone and contact e-mail the shop set in its settings", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx, "Atelier Lua");
    await updateShopSettings(t.ctx, vendor.id, {
      name: "Atelier Lua",
      contactEmail: "hello@atelier-lua.example",
      timeZone: "Europe/Lisbon",
    });
    const res = await t.api.get("/api/vendor/profile", { key });
    expect(res.body).toMatchObject({ timeZone: "Europe/Lisbon", contactEmail: "hello@atelier-lua.example" });
  });
});
