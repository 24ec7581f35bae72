// A file that runs a dispatcher asks for a database of its own (useTestApp({ ownDatabase })), and
// then sees only its own queued work. On PostgreSQL that is a scratch database; on PGlite the
// worker's shared instance, emptied of what earlier files left queued. Without that, a
// clock-skew test read its delivery's row after another file's attempt had settled (a run under
// load: "expected 8.977 to be greater than 55", the lease still on its row) and a breaker test
// counted another file's sends (CI).
import { sql } from "drizzle-orm";
import { afterAll, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";

const apps: TestApp[] = [];
afterAll(() => Promise.all(apps.map((a) => a.close())));

const pending = async (t: TestApp) =>
  queryRows<{ n: number }>(
    t.database.db,
    sql`select (select count(*) from webhook_deliveries where status = 'PENDING')::int
          + (select count(*) from mails where status = 'PENDING')::int as n`,
  ).then(([row]) => Number(row?.n));

it("a file with a database of its own starts with no delivery another file left queued", async () => {
  // An earlier file's app, and a webhook whose deliveries nobody sends.
  const earlier = await startTestApp();
  apps.push(earlier);
  const { key } = await createVendorWithKey(earlier.ctx, "Earlier Bridal");
  const hook = await earlier.api.post(
    "/api/vendor/webhooks",
    { url: "http://127.0.0.1:9/hook", events: ["order.created"] },
    { key },
  );
  expect(hook.status).toBe(201);
  const order = await earlier.api.post("/api/vendor/orders", { customerName: "E", type: "SUIT" }, { key });
  expect(order.status).toBe(201);
  expect(await pending(earlier)).toBeGreaterThan(0);

  const own = await startTestApp({ ownDatabase: true });
  apps.push(own);
  expect(await pending(own)).toBe(0);
  // The earlier webhook goes, so nothing of this file stays queued on the shared PostgreSQL.
  expect((await earlier.api.delete(`/api/vendor/webhooks/${hook.body.id}`, { key })).status).toBe(204);
});
