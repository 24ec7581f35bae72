// Issue 28.5 (docs/contract.md section 11): what a shop's sandbox is besides isolation
// (test/sandbox/isolation.test.ts): made on the first test key (one per shop, however many keys at
// once), managed with the shop's own keys, unable to sign in, mailing nobody, absent from the
// operator's list, deleted with its shop, and reset (all its data, one transaction) while its
// keys, its webhooks and live data stay.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { executeCommand } from "../../src/cli/commands.ts";
import { buildProgram, type Parsed } from "../../src/cli/program.ts";
import { queryRows } from "../../src/db/query-rows.ts";
import {
  createApiKey,
  listApiKeysOfVendor,
  revokeApiKey,
} from "../../src/modules/api-keys/api-keys.service.ts";
import { sandboxOfShop } from "../../src/modules/sandbox/sandbox.service.ts";
import { resetSandbox } from "../../src/modules/use-cases/sandbox-reset.service.ts";
import { Browser } from "../helpers/browser.ts";
import { createKey, createVendor, TEST_PASSWORD } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";
import { eventually } from "../helpers/webhook-receiver.ts";

const t = useTestApp();

async function testKey(shopId: string, name = "POS tests") {
  return (await createApiKey(t.ctx, { vendorId: shopId, name, test: true })).key;
}

async function sandboxIdOf(shopId: string): Promise<string> {
  const sandbox = await sandboxOfShop(t.ctx, shopId);
  if (!sandbox) throw new Error("no sandbox");
  return sandbox.id;
}

/** Runs a CLI command line in this process, as the CLI and the control socket do. */
async function cli(...argv: string[]) {
  const holder: { parsed?: Parsed } = {};
  await buildProgram(holder, { out: () => {}, err: () => {} }).parseAsync(argv, { from: "user" });
  if (!holder.parsed) throw new Error("not parsed");
  return executeCommand(t.ctx, holder.parsed.request, { publicUrl: t.url });
}

describe("test keys", () => {
  it("`api-key create --test` makes a vk_test_ key for the shop's sandbox: profile livemode false, its own id, the shop's name", async () => {
    const shop = await createVendor(t.ctx, "Bella Bridal");
    const { result } = await cli(
      "api-key",
      "create",
      "--vendor",
      shop.email,
      "--name",
      "POS tests",
      "--test",
    );
    const { key, test } = result as { key: string; test: boolean };
    expect(key).toMatch(/^vk_test_[A-Za-z0-9_-]{43}$/);
    expect(test).toBe(true);
    const profile = await t.api.get("/api/vendor/profile", { key });
    expect(profile.status).toBe(200);
    expect(profile.body).toMatchObject({ name: "Bella Bridal", email: shop.email, livemode: false });
    expect(profile.body.id).toBe(await sandboxIdOf(shop.id));
    expect(profile.body.id).not.toBe(shop.id);
    const liveProfile = await t.api.get("/api/vendor/profile", { key: await createKey(t.ctx, shop.id) });
    expect(liveProfile.body).toMatchObject({ id: shop.id, livemode: true });
    // A live key made without --test is no test key, and never begins like one.
    const { result: live } = await cli("api-key", "create", "--vendor", shop.email, "--name", "POS");
    expect((live as { key: string }).key).toMatch(/^vk_(?!test_)/);
    expect(live).not.toHaveProperty("test");
  });

  it("a shop has one sandbox, however many first test keys are made at once", async () => {
    const shop = await createVendor(t.ctx);
    const keys = await Promise.all([1, 2, 3, 4].map((n) => testKey(shop.id, `k${n}`)));
    const ids = await Promise.all(
      keys.map(async (key) => (await t.api.get("/api/vendor/profile", { key })).body.id),
    );
    expect(new Set(ids).size).toBe(1);
    const [row] = await queryRows<{ n: number }>(
      t.ctx.db,
      sql`select count(*)::int as n from vendors where sandbox_of = ${shop.id}`,
    );
    expect(row?.n).toBe(1);
  });

  it("the sandbox takes the shop's name, time zone and website for its public pages (tracking, inquiry form)", async () => {
    const shop = await createVendor(t.ctx, "Atelier Lua");
    await t.ctx.db.execute(
      sql`update vendors set time_zone = 'Europe/Lisbon', website = 'https://lua.example' where id = ${shop.id}`,
    );
    await testKey(shop.id);
    const sandbox = await sandboxOfShop(t.ctx, shop.id);
    expect(sandbox).toMatchObject({
      name: "Atelier Lua",
      timeZone: "Europe/Lisbon",
      website: "https://lua.example",
      customerMail: false,
      sandboxOf: shop.id,
    });
  });

  it("are listed and revoked with the shop's own keys (marked test), never through another shop", async () => {
    const shop = await createVendor(t.ctx);
    const other = await createVendor(t.ctx);
    await createKey(t.ctx, shop.id);
    const key = await testKey(shop.id);
    const keys = await listApiKeysOfVendor(t.ctx, shop.id);
    expect(keys.map((k) => k.test).sort()).toEqual([false, true]);
    const testRow = keys.find((k) => k.test);
    expect(testRow?.prefix).toMatch(/^vk_test_.{7}$/);
    const { text } = await cli("api-key", "list", "--vendor", shop.email);
    expect(text).toContain("(test)");
    expect(await revokeApiKey(t.ctx, other.id, testRow?.id ?? "")).toBe(false);
    expect((await t.api.get("/api/vendor/profile", { key })).status).toBe(200);
    expect(await revokeApiKey(t.ctx, shop.id, testRow?.id ?? "")).toBe(true);
    expect((await t.api.get("/api/vendor/profile", { key })).status).toBe(401);
  });

  it("the CLI names shops only: a sandbox's id is no vendor, and `vendor list` leaves sandboxes out", async () => {
    const shop = await createVendor(t.ctx);
    await testKey(shop.id);
    const sandboxId = await sandboxIdOf(shop.id);
    await expect(cli("api-key", "create", "--vendor", sandboxId, "--name", "x")).rejects.toMatchObject({
      code: "not_found",
    });
    const { result } = await cli("vendor", "list");
    const ids = (result as { vendors: Array<{ id: string }> }).vendors.map((v) => v.id);
    expect(ids).toContain(shop.id);
    expect(ids).not.toContain(sandboxId);
  });
});

describe("a sandbox", () => {
  it("keeps its address: a vendor created with it is refused as already registered, never a 500", async () => {
    const shop = await createVendor(t.ctx);
    await testKey(shop.id);
    const [row] = await queryRows<{ email: string }>(
      t.ctx.db,
      sql`select email from vendors where sandbox_of = ${shop.id}`,
    );
    const email = row?.email ?? "";
    await expect(
      cli("vendor", "create", "--name", "X", "--email", email, "--password", "long enough password"),
    ).rejects.toMatchObject({
      code: "validation_failed",
      extra: { errors: [{ field: "email", message: "is already registered" }] },
    });
  });

  it("cannot sign in to the dashboard: it has no members, whatever password is tried", async () => {
    const shop = await createVendor(t.ctx);
    await testKey(shop.id);
    const sandboxId = await sandboxIdOf(shop.id);
    // Sign-in knows only members (CONTRACT 10), and a sandbox has none.
    const members = await queryRows<{ id: string }>(
      t.ctx.db,
      sql`select id from members where vendor_id = ${sandboxId}`,
    );
    expect(members).toEqual([]);
    const [row] = await queryRows<{ email: string }>(
      t.ctx.db,
      sql`select email from vendors where id = ${sandboxId}`,
    );
    const browser = new Browser(t.url);
    const res = await browser.submit(await browser.get("/login"), {
      email: row?.email ?? "",
      password: TEST_PASSWORD,
    });
    expect(res.status).not.toBe(303);
    expect(res.text).toContain("The e-mail or password is not correct.");
  });

  it("mails nobody: not its test customers (even with customer mail on), not the shop about its inquiries", async () => {
    const shop = await createVendor(t.ctx);
    const key = await testKey(shop.id);
    const sandboxId = await sandboxIdOf(shop.id);
    await t.ctx.db.execute(sql`update vendors set customer_mail = true where id = ${sandboxId}`);
    const order = await t.api.post(
      "/api/vendor/orders",
      { customerName: "Real Person", customerEmail: "real.person@example.com", type: "SUIT" },
      { key },
    );
    expect(order.status).toBe(201);
    const moved = await t.api.put(
      `/api/vendor/orders/${order.body.id}/status`,
      { status: "IN_PRODUCTION" },
      { key },
    );
    expect(moved.status).toBe(200);
    const appointment = await t.api.post(
      "/api/vendor/appointments",
      { customerId: order.body.customerId, type: "FITTING", date: "2099-05-01T10:00:00Z" },
      { key },
    );
    expect(appointment.status).toBe(201);
    expect(
      (await t.api.patch(`/api/vendor/appointments/${appointment.body.id}`, { status: "CONFIRMED" }, { key }))
        .status,
    ).toBe(200);
    const inquiry = await t.api.post(`/api/public/vendors/${sandboxId}/inquiries`, {
      name: "Lead",
      email: "lead@example.com",
      message: "Hello",
    });
    expect(inquiry.status).toBe(201);
    // Recorded: the inquiry is there for the test key to read.
    expect((await t.api.get(`/api/vendor/inquiries/${inquiry.body.id}`, { key })).status).toBe(200);
    const mails = await queryRows(
      t.ctx.db,
      sql`select kind, to_address from mails where vendor_id = ${sandboxId}`,
    );
    expect(mails).toEqual([]);
    // The live shop's inquiry is mailed as always (so the query above can find mail).
    await t.api.post(`/api/public/vendors/${shop.id}/inquiries`, {
      name: "L",
      email: "l@example.com",
      message: "Hi",
    });
    const live = await queryRows(t.ctx.db, sql`select kind from mails where vendor_id = ${shop.id}`);
    expect(live).toEqual([{ kind: "inquiry_received" }]);
  });

  it("goes with its shop: deleting the shop deletes the sandbox and everything in it", async () => {
    const shop = await createVendor(t.ctx);
    const key = await testKey(shop.id);
    const sandboxId = await sandboxIdOf(shop.id);
    expect((await t.api.post("/api/vendor/customers", { name: "Ana" }, { key })).status).toBe(201);
    await t.ctx.db.execute(sql`delete from vendors where id = ${shop.id}`);
    const left = await queryRows(
      t.ctx.db,
      sql`select (select count(*) from vendors where id = ${sandboxId})::int as vendors,
                 (select count(*) from customers where vendor_id = ${sandboxId})::int as customers,
                 (select count(*) from api_keys where vendor_id = ${sandboxId})::int as keys`,
    );
    expect(left).toEqual([{ vendors: 0, customers: 0, keys: 0 }]);
    // Deleted by SQL, as another process would: this process's key cache hears of it by the
    // api_keys trigger's NOTIFY, delivered after the commit (verified-keys.ts), not before the
    // statement returns; a request sent in between may still be served (seen once on PostgreSQL).
    await eventually(async () => (await t.api.get("/api/vendor/profile", { key })).status === 401, 2_000);
  });
});

/** Tables with a vendor_id column, from the database itself: a table added later is covered. */
async function rowsPerTable(vendorId: string): Promise<Record<string, number>> {
  const tables = await queryRows<{ table_name: string }>(
    t.ctx.db,
    sql`select table_name from information_schema.columns
        where column_name = 'vendor_id' and table_schema = current_schema() order by table_name`,
  );
  const counts: Record<string, number> = {};
  for (const { table_name } of tables) {
    const [row] = await queryRows<{ n: number }>(
      t.ctx.db,
      sql`select count(*)::int as n from ${sql.identifier(table_name)} where vendor_id = ${vendorId}`,
    );
    counts[table_name] = row?.n ?? 0;
  }
  return counts;
}

describe("reset", () => {
  it("deletes all sandbox data (every table), keeps its keys and webhooks, and leaves live data alone", async () => {
    const shop = await createVendor(t.ctx);
    const liveKey = await createKey(t.ctx, shop.id);
    const key = await testKey(shop.id);
    const sandboxId = await sandboxIdOf(shop.id);
    const fill = async (k: string, vendorId: string) => {
      const order = await t.api.post(
        "/api/vendor/orders",
        { customerName: "Ana", customerEmail: "ana@example.com", type: "SUIT" },
        { key: k, headers: { "idempotency-key": `order-${vendorId}` } },
      );
      expect(order.status).toBe(201);
      await t.api.post(
        "/api/vendor/appointments",
        {
          customerId: order.body.customerId,
          orderId: order.body.id,
          type: "FITTING",
          date: "2099-01-01T10:00:00Z",
        },
        { key: k },
      );
      await t.api.post(`/api/public/vendors/${vendorId}/inquiries`, {
        name: "L",
        email: "l@example.com",
        message: "Hi",
      });
      const hook = await t.api.post(
        "/api/vendor/webhooks",
        { url: "https://receiver.example/hook", events: ["order.created"] },
        { key: k },
      );
      expect(hook.status).toBe(201);
      await t.api.post(`/api/vendor/webhooks/${hook.body.id}/test`, {}, { key: k });
    };
    await fill(liveKey, shop.id);
    await fill(key, sandboxId);
    const liveBefore = await rowsPerTable(shop.id);
    const before = await rowsPerTable(sandboxId);
    for (const table of [
      "orders",
      "customers",
      "appointments",
      "inquiries",
      "events",
      "webhook_deliveries",
    ]) {
      expect(before[table], table).toBeGreaterThan(0);
    }

    expect(await resetSandbox(t.ctx, shop.id)).toBe(true);

    const after = await rowsPerTable(sandboxId);
    const kept = { api_keys: before.api_keys, webhooks: before.webhooks };
    expect(after).toEqual({ ...Object.fromEntries(Object.keys(before).map((k) => [k, 0])), ...kept });
    // Live data untouched; the shop's activity log gains the reset.
    expect(await rowsPerTable(shop.id)).toEqual({ ...liveBefore, activity: (liveBefore.activity ?? 0) + 1 });
    // The key still works, on an empty sandbox.
    const orders = await t.api.get("/api/vendor/orders", { key });
    expect(orders.status).toBe(200);
    expect(orders.body.orders).toEqual([]);
    expect((await t.api.get("/api/vendor/webhooks", { key })).body.webhooks).toHaveLength(1);
  });

  it("runs in one transaction: a failure part-way deletes nothing", async () => {
    const shop = await createVendor(t.ctx);
    const key = await testKey(shop.id);
    const sandboxId = await sandboxIdOf(shop.id);
    await t.api.post("/api/vendor/orders", { customerName: "Ana", type: "SUIT" }, { key });
    await t.api.post(`/api/public/vendors/${sandboxId}/inquiries`, {
      name: "L",
      email: "l@example.com",
      message: "Hi",
    });
    const before = await rowsPerTable(sandboxId);
    // A trigger that fails the reset's last deletes (inquiries come after orders).
    await t.ctx.db.execute(sql`create or replace function sandbox_reset_fails() returns trigger language plpgsql as $$
      begin if old.vendor_id = ${sql.raw(`'${sandboxId}'`)} then raise exception 'refused'; end if; return old; end $$`);
    await t.ctx.db.execute(
      sql`create trigger sandbox_reset_fails before delete on inquiries for each row execute function sandbox_reset_fails()`,
    );
    try {
      await expect(resetSandbox(t.ctx, shop.id)).rejects.toThrow();
    } finally {
      await t.ctx.db.execute(sql`drop trigger sandbox_reset_fails on inquiries`);
      await t.ctx.db.execute(sql`drop function sandbox_reset_fails()`);
    }
    expect(await rowsPerTable(sandboxId)).toEqual(before);
  });

  it("of a shop without a sandbox changes nothing", async () => {
    const shop = await createVendor(t.ctx);
    expect(await resetSandbox(t.ctx, shop.id)).toBe(false);
  });
});
