// The activity log (CONTRACT 10): every change names who made it (the person signed in to
// the dashboard, the API key or OAuth application by name, the operator's CLI), what was done and
// to which record, and is written in the change's own transaction, so a refused change leaves no
// entry. An erasure leaves no id of the erased customer in it; entries older than a year go.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { runAsActor } from "../../src/auth/actor.ts";
import { executeCommand } from "../../src/cli/commands.ts";
import { queryRows } from "../../src/db/query-rows.ts";
import { purgeExpiredCredentials } from "../../src/maintenance/housekeeping.ts";
import { listActivity } from "../../src/modules/activity/activity.service.ts";
import { createApiKey } from "../../src/modules/api-keys/api-keys.service.ts";
import { createCustomer } from "../../src/modules/customers/customers.service.ts";
import { confirmThrough, follow, postFrom, signedInBrowser } from "../helpers/dashboard.ts";
import { createVendor } from "../helpers/factories.ts";
import { authorizeCode, createClient, exchangeCode } from "../helpers/oauth.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

/** The vendor's whole log, oldest first, as the fields a test compares. */
async function logOf(vendorId: string) {
  const page = await listActivity(t.ctx, vendorId, {}, 100);
  return page.rows
    .map((r) => ({
      actorKind: r.actorKind,
      actorName: r.actorName,
      action: r.action,
      subjectId: r.subjectId,
      detail: r.detail,
    }))
    .reverse();
}

async function vendorWithNamedKey(name: string) {
  const vendor = await createVendor(t.ctx);
  const { row, key } = await createApiKey(t.ctx, { vendorId: vendor.id, name });
  return { vendor, key, keyId: row.id };
}

const order = { customerName: "Ana Noiva", customerEmail: "ana@example.test", type: "BRIDAL_DRESS" };

describe("the activity log", () => {
  it("names the API key for an integrator's writes, with the record and what changed", async () => {
    const { vendor, key } = await vendorWithNamedKey("Shop POS");
    const created = await t.api.post("/api/vendor/orders", order, { key });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(
      (await t.api.put(`/api/vendor/orders/${id}/status`, { status: "IN_PRODUCTION" }, { key })).status,
    ).toBe(200);
    expect((await t.api.patch(`/api/vendor/orders/${id}`, { size: "40" }, { key })).status).toBe(200);
    const customer = await t.api.post("/api/vendor/customers", { name: "Bia" }, { key });
    expect(
      (await t.api.patch(`/api/vendor/customers/${customer.body.id}`, { notes: "hem" }, { key })).status,
    ).toBe(200);
    const log = await logOf(vendor.id);
    const byKey = log.filter((e) => e.actorKind === "api_key");
    expect(byKey).toEqual([
      {
        actorKind: "api_key",
        actorName: "Shop POS",
        action: "order.created",
        subjectId: id,
        detail: { number: 1001 },
      },
      {
        actorKind: "api_key",
        actorName: "Shop POS",
        action: "order.status_changed",
        subjectId: id,
        detail: { number: 1001, from: "ORDERED", to: "IN_PRODUCTION" },
      },
      {
        actorKind: "api_key",
        actorName: "Shop POS",
        action: "order.updated",
        subjectId: id,
        detail: { number: 1001, fields: ["size"] },
      },
      {
        actorKind: "api_key",
        actorName: "Shop POS",
        action: "customer.created",
        subjectId: customer.body.id,
        detail: null,
      },
      {
        actorKind: "api_key",
        actorName: "Shop POS",
        action: "customer.updated",
        subjectId: customer.body.id,
        detail: { fields: ["notes"] },
      },
    ]);
    // No entry names a customer's personal data.
    expect(JSON.stringify(log)).not.toMatch(/Ana|ana@example|Bia/);
  });

  it("names the API key for an integrator's webhook operations: test event, redeliver, recover", async () => {
    const { vendor, key } = await vendorWithNamedKey("Shop ERP");
    const hook = await t.api.post(
      "/api/vendor/webhooks",
      { url: "https://erp.example.test/hooks", events: ["order.created"] },
      { key },
    );
    expect(hook.status).toBe(201);
    const sent = await t.api.post(`/api/vendor/webhooks/${hook.body.id}/test`, {}, { key });
    expect(sent.status).toBe(202);
    const list = await t.api.get(`/api/vendor/webhooks/${hook.body.id}/deliveries`, { key });
    const delivery = list.body.deliveries[0];
    expect(
      (
        await t.api.post(
          `/api/vendor/webhooks/${hook.body.id}/deliveries/${delivery.id}/redeliver`,
          {},
          { key },
        )
      ).status,
    ).toBe(202);
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const recovered = await t.api.post(`/api/vendor/webhooks/${hook.body.id}/recover`, { since }, { key });
    expect(recovered.status).toBe(202);
    const log = (await logOf(vendor.id)).filter((e) => e.actorKind === "api_key");
    expect(log.map((e) => [e.action, e.actorName, e.subjectId])).toEqual([
      ["webhook.created", "Shop ERP", hook.body.id],
      ["webhook.test_sent", "Shop ERP", hook.body.id],
      ["webhook.redelivered", "Shop ERP", hook.body.id],
      ["webhook.recovered", "Shop ERP", hook.body.id],
    ]);
    expect(log[2]?.detail).toEqual({ eventId: delivery.eventId });
    expect(log[3]?.detail).toEqual({ count: recovered.body.count });
  });

  it("a refused change leaves no entry (the entry is in the change's transaction)", async () => {
    const { vendor, key } = await vendorWithNamedKey("POS");
    const created = await t.api.post("/api/vendor/orders", order, { key });
    const before = await logOf(vendor.id);
    const refused = await t.api.put(
      `/api/vendor/orders/${created.body.id}/status`,
      { status: "PICKED_UP" },
      { key },
    );
    expect(refused.status).toBe(409);
    const other = await t.api.post("/api/vendor/customers", { name: "X", email: "x@example.test" }, { key });
    const taken = await t.api.post("/api/vendor/customers", { name: "Y", email: "x@example.test" }, { key });
    expect(taken.status).toBe(409);
    const after = await logOf(vendor.id);
    expect(after.slice(before.length)).toEqual([
      {
        actorKind: "api_key",
        actorName: "POS",
        action: "customer.created",
        subjectId: other.body.id,
        detail: null,
      },
    ]);
  });

  it("a change whose request fails after it rolls back its entry with it (Idempotency-Key transaction)", async () => {
    const { vendor, key } = await vendorWithNamedKey("POS");
    const before = (await logOf(vendor.id)).length;
    // Same key and transaction as the change: a replay answers without a second entry.
    const headers = { "idempotency-key": `k-${vendor.id}` };
    const first = await t.api.post("/api/vendor/orders", order, { key, headers });
    const again = await t.api.post("/api/vendor/orders", order, { key, headers });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    const after = await logOf(vendor.id);
    expect(after.slice(before).map((e) => [e.action, e.subjectId])).toEqual([
      ["order.created", first.body.id],
    ]);
  });

  it("names the OAuth application for its writes, and the person who authorized it", async () => {
    const client = await createClient(t.ctx);
    const vendor = await createVendor(t.ctx);
    const { code, verifier } = await authorizeCode(t, client, { email: vendor.email, scope: "orders:write" });
    const tokens = await exchangeCode(t, client, code, verifier);
    expect(tokens.status).toBe(200);
    const created = await t.api.post("/api/vendor/orders", order, { token: tokens.body.access_token });
    expect(created.status).toBe(201);
    const log = await logOf(vendor.id);
    expect(log).toEqual([
      {
        actorKind: "person",
        actorName: vendor.email,
        action: "application.authorized",
        subjectId: client.application.id,
        detail: { scopes: ["orders:write"] },
      },
      {
        actorKind: "oauth_app",
        actorName: "Bridal POS",
        action: "order.created",
        subjectId: created.body.id,
        detail: { number: 1001 },
      },
    ]);
  });

  it("names the person signed in to the dashboard, and the CLI for the operator's commands", async () => {
    const vendor = await createVendor(t.ctx);
    const browser = await signedInBrowser(t, vendor.email);
    const created = await postFrom(browser, "/dashboard/customers/new", "/dashboard/customers", {
      name: "Carla",
      email: "",
      phone: "",
      weddingDate: "",
      notes: "",
    });
    const page = await follow(browser, created);
    expect(page.status).toBe(200);
    const keyCreated = await executeCommand(
      t.ctx,
      { command: "api-key create", vendor: vendor.id, name: "Till", scopes: [] },
      { publicUrl: t.url },
    );
    const keyId = (keyCreated.result as { id: string }).id;
    const revoke = await confirmThrough(browser, `/dashboard/integrations/api-keys/${keyId}/revoke`);
    expect(revoke.status).toBe(303);
    const log = await logOf(vendor.id);
    expect(log.map((e) => [e.actorKind, e.actorName, e.action, e.subjectId])).toEqual([
      ["person", vendor.email, "customer.created", expect.any(String)],
      ["cli", null, "api_key.created", keyId],
      ["person", vendor.email, "api_key.revoked", keyId],
    ]);
  });

  it("an erasure keeps the entries but no id of the erased customer", async () => {
    const { vendor, key } = await vendorWithNamedKey("POS");
    const customer = await t.api.post(
      "/api/vendor/customers",
      { name: "Dora", email: "dora@example.test" },
      { key },
    );
    const id = customer.body.id as string;
    await t.api.patch(`/api/vendor/customers/${id}`, { phone: "+1 555" }, { key });
    expect((await t.api.delete(`/api/vendor/customers/${id}`, { key })).status).toBe(204);
    const log = (await logOf(vendor.id)).filter((e) => e.action.startsWith("customer."));
    expect(log.map((e) => [e.action, e.subjectId])).toEqual([
      ["customer.created", null],
      ["customer.updated", null],
      ["customer.erased", null],
    ]);
    const [row] = await queryRows<{ n: number }>(
      t.ctx.db,
      sql`select count(*)::int as n from activity where vendor_id = ${vendor.id} and activity::text like ${`%${id}%`}`,
    );
    expect(row?.n).toBe(0);
  });

  it("housekeeping removes entries older than a year and keeps the rest", async () => {
    const vendor = await createVendor(t.ctx);
    const now = new Date();
    const day = 24 * 60 * 60 * 1000;
    const at = (daysAgo: number) => ({ ...t.ctx, now: () => new Date(now.getTime() - daysAgo * day) });
    const old = await runAsActor({ kind: "cli" }, () => createCustomer(at(366), vendor.id, { name: "Old" }));
    const recent = await runAsActor({ kind: "cli" }, () =>
      createCustomer(at(364), vendor.id, { name: "New" }),
    );
    await purgeExpiredCredentials(t.ctx.db, now);
    const log = await logOf(vendor.id);
    expect(log.map((e) => e.subjectId)).toEqual([recent.id]);
    expect(old.id).not.toBe(recent.id);
  });
});
