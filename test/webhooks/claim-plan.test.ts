// A dispatcher's claim reads each endpoint's own range of the PENDING index, whatever the other
// endpoints hold: neither one endpoint's backlog (rows due now) nor another's scheduled retries
// (rows due later) is walked row by row to claim for a third. The dispatcher's own claim
// statement under EXPLAIN ANALYZE, on PGlite or the PostgreSQL of TEST_DATABASE_URL, with the
// planner's statistics taken over the queue as it stands.
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.ts";
import { claimStatement } from "../../src/webhook-delivery/claim.repository.ts";
import { createVendorWithKey } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp({ ownDatabase: true });
afterAll(async () => {
  // On PGlite the database is the worker's, shared with its other files: nothing is left queued.
  await t.database.db.execute(sql`delete from webhooks where id like 'plan-%'`);
  await t.database.db.execute(sql`delete from events where id like 'plan-%'`);
});

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Rows Removed by Filter"?: number;
  "Actual Loops"?: number;
  Plans?: PlanNode[];
}

/** Every node of the plan that reads webhook_deliveries, with the rows it read and threw away. */
function deliveryReads(node: PlanNode, found: PlanNode[] = []): PlanNode[] {
  if (node["Relation Name"] === "webhook_deliveries") found.push(node);
  for (const child of node.Plans ?? []) deliveryReads(child, found);
  return found;
}

const literal = (v: string | number) => (typeof v === "number" ? String(v) : `'${v.replaceAll("'", "''")}'`);

/** Queues `n` deliveries to `webhookId`, due `dueIn` from now (negative: overdue), in two statements. */
async function queue(vendorId: string, webhookId: string, n: number, dueIn: string) {
  await t.database.db.execute(
    sql`insert into events (id, vendor_id, type, data, created_at, dispatched_at)
        select ${webhookId} || '-ev-' || i, ${vendorId}, 'order.created', '{}'::jsonb, now(), now()
        from generate_series(1, ${n}::int) i`,
  );
  await t.database.db.execute(
    sql`insert into webhook_deliveries (id, webhook_id, vendor_id, event_id, event_type, status,
          next_attempt_at, created_at, updated_at)
        select ${webhookId} || '-d-' || i, ${webhookId}, ${vendorId}, ${webhookId} || '-ev-' || i,
          'order.created', 'PENDING', now() + ${dueIn}::interval, now(), now()
        from generate_series(1, ${n}::int) i`,
  );
}

async function endpoint(vendorId: string, id: string) {
  await t.database.db.execute(
    sql`insert into webhooks (id, vendor_id, url, events, secret, status, created_at, updated_at)
        values (${id}, ${vendorId}, 'https://receiver.example.test/hook', '["order.created"]'::jsonb,
          'whsk_plan', 'ACTIVE', now(), now())`,
  );
}

describe("the claim statement's reads", () => {
  it("stay within each endpoint's range: 3,000 due on one endpoint and 3,000 retries on another cost a third endpoint's claim nothing", async () => {
    const { vendor } = await createVendorWithKey(t.ctx, "Plan Bridal");
    for (const id of ["plan-backlog", "plan-retrying", "plan-small"]) await endpoint(vendor.id, id);
    await queue(vendor.id, "plan-backlog", 3_000, "-1 minute");
    await queue(vendor.id, "plan-retrying", 3_000, "1 hour");
    await queue(vendor.id, "plan-small", 5, "-1 second");
    await t.database.db.execute(sql`analyze webhook_deliveries`);

    const now = new Date();
    const values: Record<(typeof claimStatement.parameterNames)[number], string | number> = {
      at: now.toISOString(),
      leaseEnd: new Date(now.getTime() + 60_000).toISOString(),
      token: "plan-claim",
      holder: "plan-holder",
      limit: 100,
      cap: 4,
      failures: 5,
      ownEndpoints: "{}",
      ownPosting: "{}",
      ownReserved: "{}",
      // With a reserve, as the dispatcher claims: each healthy endpoint's cap more, if due.
      reserveLimit: 100,
    };
    await t.database.db.execute(sql.raw(`prepare claim_plan as ${claimStatement.text}`));
    const [row] = await queryRows<{ "QUERY PLAN": unknown }>(
      t.database.db,
      sql.raw(
        `explain (analyze, format json) execute claim_plan(${claimStatement.parameterNames
          .map((name) => literal(values[name]))
          .join(", ")})`,
      ),
    );
    await t.database.db.execute(sql`deallocate claim_plan`);
    const explained = row?.["QUERY PLAN"];
    const [plan] = (typeof explained === "string" ? JSON.parse(explained) : explained) as {
      Plan: PlanNode;
    }[];
    if (!plan) throw new Error("EXPLAIN returned no plan");

    const reads = deliveryReads(plan.Plan);
    const discarded = reads.map((n) => (n["Rows Removed by Filter"] ?? 0) * (n["Actual Loops"] ?? 1));
    const total = discarded.reduce((a, b) => a + b, 0);
    expect(
      total,
      `rows of other endpoints read and discarded, per read: ${JSON.stringify(
        reads.map((n, i) => [n["Node Type"], n["Index Name"], discarded[i]]),
      )}`,
    ).toBeLessThan(50);
    // Nothing reads the whole table.
    expect(reads.filter((n) => n["Node Type"] === "Seq Scan")).toEqual([]);

    // And the claim itself took each due endpoint's cap and as many again in reserve (the small
    // one has 5 due), and nothing of the retries. (On PGlite
    // the database is shared with the worker's other files: their endpoints may be dealt some too.)
    const claimed = await queryRows<{ webhookId: string; n: number }>(
      t.database.db,
      sql`select webhook_id as "webhookId", count(*)::int as n from webhook_deliveries
          where claim_token = 'plan-claim' and webhook_id like 'plan-%'
          group by webhook_id order by webhook_id`,
    );
    expect(claimed).toEqual([
      { webhookId: "plan-backlog", n: 8 },
      { webhookId: "plan-small", n: 5 },
    ]);
  });
});
