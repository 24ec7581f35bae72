// The tracking page of an order whose customer was erased (the audit's low findings): the link
// may still be in anyone's hands, and the shop's messages often name the bride, so the page keeps
// the order's statuses and dates and shows no message text, photo or name any more.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { orders } from "../../src/db/schema/index.ts";
import { Browser } from "../helpers/browser.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

describe("the tracking page of an erased customer's order", () => {
  it("shows the statuses and dates, but no message text, photo or name", async () => {
    const { key } = await createVendorWithKey(t.ctx, "Atelier Luz");
    const created = await t.api.post(
      "/api/vendor/orders",
      {
        customerName: "Maria Erased",
        customerEmail: "maria-erased@example.test",
        type: "BRIDAL_DRESS",
        model: "Aurora",
      },
      { key },
    );
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const moved = await t.api.put(
      `/api/vendor/orders/${id}/status`,
      {
        status: "FITTING_READY",
        message: "Maria, your dress is ready for the fitting on Friday",
        imageUrl: "https://photos.example/maria.jpg",
      },
      { key },
    );
    expect(moved.status).toBe(200);
    const [row] = await t.ctx.db
      .select({ token: orders.trackingToken })
      .from(orders)
      .where(eq(orders.id, id));
    const track = () => new Browser(t.url).get(`/track/${row?.token}`);

    const before = await track();
    expect(before.text).toContain("Maria, your dress is ready");

    expect((await t.api.delete(`/api/vendor/customers/${created.body.customerId}`, { key })).status).toBe(
      204,
    );
    const after = await track();
    expect(after.status).toBe(200);
    // The order's progress is still there, in the shop's words for the statuses, with dates.
    expect(after.text).toMatch(/Current status: <span class="badge status" data-status="FITTING_READY">/);
    const entries = [...after.text.matchAll(/<li data-status="([A-Z_]+)">/g)].map((m) => m[1]);
    expect(entries).toEqual(["FITTING_READY", "ORDERED"]);
    expect(after.text).toContain("<time");
    // Nothing the shop wrote about her, nor her photo or name.
    expect(after.text).not.toContain("your dress is ready");
    expect(after.text).not.toContain("photos.example");
    expect(after.text).not.toContain("Maria");
    expect(after.text).toContain('id="messages-withheld"');
  });
});
