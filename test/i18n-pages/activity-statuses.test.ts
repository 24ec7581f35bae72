// The Activity page names a status move in the reader's words, the labels the order and
// appointment pages use: "Bestellt → In Produktion", not the stored "ORDERED → IN_PRODUCTION".
import { describe, expect, it } from "vitest";
import { updateAppointment } from "../../src/modules/appointments/appointments.service.ts";
import { updateOrderStatus } from "../../src/modules/orders/orders.service.ts";
import { setShopLanguage } from "../../src/modules/vendors/shop-language.ts";
import { decodeEntities } from "../helpers/browser.ts";
import { signedInBrowser } from "../helpers/dashboard.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

describe("status moves on the Activity page", () => {
  it("a German reader sees an order's and an appointment's statuses in German", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx, "Atelier Lumière");
    await setShopLanguage(t.ctx, vendor.id, "de");
    const order = await t.api.post(
      "/api/vendor/orders",
      { customerName: "Clara Weiß", type: "BRIDAL_DRESS", model: "Aurora" },
      { key },
    );
    await updateOrderStatus(t.ctx, vendor.id, order.body.id, { status: "IN_PRODUCTION" });
    const clara = await t.api.post("/api/vendor/customers", { name: "Clara Weiß" }, { key });
    const appt = await t.api.post(
      "/api/vendor/appointments",
      { customerId: clara.body.id, type: "FITTING", date: "2030-01-02T10:00:00Z" },
      { key },
    );
    await updateAppointment(t.ctx, vendor.id, appt.body.id, { status: "CONFIRMED" });

    const browser = await signedInBrowser(t, vendor.email);
    const page = await browser.get("/dashboard/activity");
    expect(page.status).toBe(200);
    const text = decodeEntities(page.text);
    expect(text).toContain('<html lang="de">');
    expect(text).toContain("Bestellt → In Produktion");
    expect(text).toContain("Angefragt → Bestätigt");
    expect(text).not.toContain("IN_PRODUCTION");
    expect(text).not.toContain("CONFIRMED");
  });
});
