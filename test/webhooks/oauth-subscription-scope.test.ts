// CONTRACT 7: with an OAuth token, subscribing to an event needs the read scope of its resource
// besides webhooks:write — an application must not learn through webhooks what it cannot read.
import { describe, expect, it } from "vitest";
import { createClient, obtainTokens } from "../helpers/oauth.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

const register = (token: string, events: string[]) =>
  t.api.post("/api/vendor/webhooks", { url: "http://127.0.0.1:9/hook", events }, { token });

describe("OAuth tokens subscribing to events", () => {
  it("a token with webhooks:write but not orders:read cannot subscribe to order events", async () => {
    const client = await createClient(t.ctx);
    const { access_token } = await obtainTokens(t, client, "webhooks:write customers:read");
    const refused = await register(access_token, ["order.created", "customer.created"]);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("insufficient_scope");
    expect(refused.text).toContain("orders:read");
    const allowed = await register(access_token, ["customer.created"]);
    expect(allowed.status).toBe(201);
    expect(allowed.body.secret).toEqual(expect.any(String));
  });

  it("each event needs its own resource's read scope", async () => {
    const client = await createClient(t.ctx);
    const cases: Array<[string, string]> = [
      ["order.status_changed", "orders:read"],
      ["appointment.confirmed", "appointments:read"],
      ["appointment.cancelled", "appointments:read"],
      ["inquiry.received", "inquiries:read"],
      ["customer.created", "customers:read"],
    ];
    const bare = (await obtainTokens(t, client, "webhooks:write")).access_token;
    for (const [event, scope] of cases) {
      expect((await register(bare, [event])).status, `${event} without ${scope}`).toBe(403);
      const withScope = (await obtainTokens(t, client, `webhooks:write ${scope}`)).access_token;
      const res = await register(withScope, [event]);
      expect(res.status, `${event} with ${scope}`).toBe(201);
      await t.api.delete(`/api/vendor/webhooks/${res.body.id}`, { token: withScope });
    }
  });
});
