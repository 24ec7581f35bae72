import { describe, expect, it } from "vitest";
import {
  disconnectApplication,
  listConnectedApplications,
} from "../../src/modules/connections/connections.service.ts";
import { findVendor } from "../../src/modules/use-cases/vendor-accounts.service.ts";
import { createClient, obtainTokens, refresh } from "../helpers/oauth.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

describe("connected applications: a vendor sees and revokes the applications they authorized", () => {
  it("lists the authorized application with its scopes, and disconnecting it ends its tokens", async () => {
    const client = await createClient(t.ctx);
    const tokens = await obtainTokens(t, client, "orders:read profile:read");
    const vendor = await findVendor(t.ctx, tokens.email);
    if (!vendor) throw new Error("vendor");

    const connected = await listConnectedApplications(t.ctx, vendor.id);
    expect(connected).toEqual([
      {
        applicationId: client.application.id,
        name: "Bridal POS",
        clientId: client.clientId,
        scopes: ["orders:read", "profile:read"],
        connectedAt: expect.any(Date),
      },
    ]);
    // The application's owner sees nothing: it authorized nothing.
    expect(await listConnectedApplications(t.ctx, client.application.vendorId)).toEqual([]);

    // Another vendor cannot disconnect it for this vendor.
    await expect(
      disconnectApplication(t.ctx, client.application.vendorId, client.application.id),
    ).rejects.toMatchObject({
      code: "not_found",
    });
    expect((await t.api.get("/api/vendor/orders", { token: tokens.access_token })).status).toBe(200);

    await disconnectApplication(t.ctx, vendor.id, client.application.id);
    expect(await listConnectedApplications(t.ctx, vendor.id)).toEqual([]);
    expect((await t.api.get("/api/vendor/orders", { token: tokens.access_token })).status).toBe(401);
    expect((await refresh(t, client, tokens.refresh_token)).body.error).toBe("invalid_grant");
  });
});
