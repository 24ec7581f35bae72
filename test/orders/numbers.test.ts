// CONTRACT 12: each order gets a per-shop number from 1001, unique under concurrent creates on
// PGlite and PostgreSQL and across API processes, with no gap.
import { describe, expect, it } from "vitest";
import { allPages, apiClient } from "../helpers/api-client.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { freePort } from "../helpers/ports.ts";
import { childEnv, processBackends, startService, vendorWithKeyByCli } from "../helpers/processes.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();
const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

describe("order numbers", () => {
  it("50 concurrent creates get 1001..1050, no gap, no duplicate; another shop starts at 1001 too", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const other = await createVendorWithKey(t.ctx);
    const answers = await Promise.all(
      range(0, 50).map((i) =>
        t.api.post(
          "/api/vendor/orders",
          // Every tenth with one shared e-mail: the statement that loses that customer's insert
          // runs again, and must not spend a number.
          {
            customerName: `N${i}`,
            customerEmail: i % 10 === 0 ? "same@example.com" : `n${i}@example.com`,
            type: "SUIT",
          },
          { key },
        ),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 201));
    expect(answers.map((a) => a.body.number).sort((a, b) => a - b)).toEqual(range(1001, 50));
    const theirs = await t.api.post(
      "/api/vendor/orders",
      { customerName: "X", type: "SUIT" },
      { key: other.key },
    );
    expect(theirs.body.number).toBe(1001);
  });

  it("a refused create takes no number", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    const first = await t.api.post(
      "/api/vendor/orders",
      { customerName: "A", type: "SUIT", externalId: "x-1" },
      { key },
    );
    const clash = await t.api.post(
      "/api/vendor/orders",
      { customerName: "B", type: "SUIT", externalId: "x-1" },
      { key },
    );
    const unknown = await t.api.post(
      "/api/vendor/orders",
      { customerId: "tz4a98xxat96iws9zmbrgj3a", type: "SUIT" },
      { key },
    );
    const next = await t.api.post("/api/vendor/orders", { customerName: "C", type: "SUIT" }, { key });
    expect([first.body.number, clash.status, unknown.status, next.body.number]).toEqual([
      1001, 409, 400, 1002,
    ]);
  });

  it("?number= finds the order, and its number reads back in the list and the order", async () => {
    const { key } = await createVendorWithKey(t.ctx);
    for (const name of ["A", "B", "C"])
      await t.api.post("/api/vendor/orders", { customerName: name, type: "SUIT" }, { key });
    const found = await t.api.get("/api/vendor/orders?number=1002", { key });
    expect(
      found.body.orders.map((o: { number: number; customer: { name: string } }) => [
        o.number,
        o.customer.name,
      ]),
    ).toEqual([[1002, "B"]]);
    const one = await t.api.get(`/api/vendor/orders/${found.body.orders[0].id}`, { key });
    expect(one.body.number).toBe(1002);
    const bad = await t.api.get("/api/vendor/orders?number=abc", { key });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toMatch(/number/);
  });
});

const pg = Boolean(process.env.TEST_DATABASE_URL);
const { backends, track } = processBackends("order-numbers");

describe.skipIf(!pg)("order numbers across two API processes", { timeout: 240_000 }, () => {
  it.each(backends)("50 creates spread over two processes get 1001..1050 ($name)", async ({ db }) => {
    const database = await db();
    const [portA, portB] = [await freePort(), await freePort()];
    const a = track(await startService(childEnv({ ...database, PORT: String(portA) }), ["--role", "api"]));
    const b = track(await startService(childEnv({ ...database, PORT: String(portB) }), ["--role", "api"]));
    const { key } = await vendorWithKeyByCli(childEnv({ ...database }), "Numbers");
    const apis = [apiClient(a.url), apiClient(b.url)];
    const answers = await Promise.all(
      range(0, 50).map((i) =>
        (apis[i % 2] as (typeof apis)[number]).post(
          "/api/vendor/orders",
          { customerName: `P${i}`, type: "SUIT" },
          { key },
        ),
      ),
    );
    expect(answers.map((x) => x.status)).toEqual(answers.map(() => 201));
    const listed = await allPages(apis[0] as (typeof apis)[number], "/api/vendor/orders", key, "orders");
    expect(listed.map((o: { number: number }) => o.number).sort((x: number, y: number) => x - y)).toEqual(
      range(1001, 50),
    );
  });
});
