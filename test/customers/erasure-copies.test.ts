// Erasure reaches every copy: after DELETE /customers/{id} none of her values
// is left anywhere in the database (every table, searched as text) nor in the log, and the
// stored Idempotency-Key answer no longer replays her. Her copies: the idempotent answer of her
// creation, an inquiry from the e-mail she had before she changed it, and webhook attempt logs
// whose receiver echoed the payload in its answer (and failed once, so an error is logged too).
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.ts";
import { receiveInquiry } from "../../src/modules/inquiries/inquiries.service.ts";
import { type Dispatcher, startDispatcher } from "../../src/webhook-delivery/dispatcher.ts";
import { deliveriesSettled } from "../helpers/events.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";
import { type Receiver, startReceiver } from "../helpers/webhook-receiver.ts";

let dispatcher: Dispatcher;
let receiver: Receiver;
const log: string[] = [];
const t = useTestApp({
  ownDatabase: true,
  env: { WEBHOOK_ALLOW_PRIVATE_URLS: "true", WEBHOOK_RETRY_DELAYS_MS: "20", LOG_LEVEL: "trace" },
  logStream: { write: (line) => log.push(line) },
});
beforeAll(async () => {
  dispatcher = await startDispatcher({ config: t.config, database: t.database });
  // Echoes what it received, and fails the first time: both land in the attempt logs.
  receiver = await startReceiver((req, index) => ({
    status: index === 0 ? 500 : 200,
    body: `received ${req.rawBody.toString("utf8")}`,
  }));
});
afterAll(async () => {
  await dispatcher?.stop(1_000);
  await receiver?.close();
});

/**
 * Every table of the database as text, lower-cased; of the events, all but customer.deleted,
 * which announces the erasure by her id (CONTRACT 10), and of the tombstones all but hers, which
 * shows sync lists the erasure by her id for 30 days (CONTRACT 12, Deletions).
 */
async function wholeDatabase(): Promise<string> {
  const tables = await queryRows<{ name: string }>(
    t.ctx.db,
    sql`select quote_ident(tablename) as name from pg_tables where schemaname = 'public'`,
  );
  let text = "";
  for (const { name } of tables) {
    const [row] = await queryRows<{ t: string | null }>(
      t.ctx.db,
      sql.raw(
        `select string_agg(x::text, ' ') as t from ${name} x` +
          (name === "events" ? ` where x.type <> 'customer.deleted'` : "") +
          (name === "tombstones" ? ` where x.resource <> 'customers'` : ""),
      ),
    );
    text += ` ${row?.t ?? ""}`;
  }
  return text.toLowerCase();
}

describe("erasure reaches every copy", () => {
  it("no value of hers is left in the database or the log, and her creation's key no longer replays her", async () => {
    const { vendor, key } = await createVendorWithKey(t.ctx);
    const mark = randomUUID().slice(0, 8);
    const her = {
      name: `Erased Person ${mark}`,
      earlier: `earlier-${mark}@example.com`,
      current: `current-${mark}@example.com`,
      phone: `+351 91 ${mark.slice(0, 3)} ${mark.slice(3, 6)}`,
    };
    const hook = await t.api.post(
      "/api/vendor/webhooks",
      { url: receiver.url, events: ["customer.created", "customer.updated"] },
      { key },
    );
    expect(hook.status).toBe(201);
    const idempotencyKey = `create-${mark}`;
    const body = { name: her.name, email: her.earlier, phone: her.phone };
    const created = await t.api.post("/api/vendor/customers", body, {
      key,
      headers: { "idempotency-key": idempotencyKey },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    await receiveInquiry(t.ctx, vendor.id, { name: her.name, email: her.earlier, message: "Sizes?" });
    expect((await t.api.patch(`/api/vendor/customers/${id}`, { email: her.current }, { key })).status).toBe(
      200,
    );
    await deliveriesSettled(t, vendor.id);
    const values = [id, her.name, her.earlier, her.current, her.phone].map((v) => v.toLowerCase());
    const before = await wholeDatabase();
    for (const value of values) expect(before).toContain(value);

    expect((await t.api.delete(`/api/vendor/customers/${id}`, { key })).status).toBe(204);
    await deliveriesSettled(t, vendor.id);

    const after = await wholeDatabase();
    for (const value of values) expect(after).not.toContain(value);
    const logText = log.join("\n").toLowerCase();
    for (const value of values.slice(1)) expect(logText).not.toContain(value);

    // Re-sent with its key, the original POST is a new request: no replay of the erased customer.
    const again = await t.api.post("/api/vendor/customers", body, {
      key,
      headers: { "idempotency-key": idempotencyKey },
    });
    expect(again.headers.get("idempotent-replayed")).toBeNull();
    expect(again.body.id).not.toBe(id);
  });
});
