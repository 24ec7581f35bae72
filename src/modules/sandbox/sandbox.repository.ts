// A shop's sandbox (CONTRACT 11) is a vendors row of its own with `sandbox_of` naming the shop:
// every vendor-scoped query then isolates it with no change of its own. Made on the first test key.
import { eq, sql } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { queryRows } from "../../db/query-rows.ts";
import { vendors } from "../../db/schema/index.ts";

export type SandboxRow = typeof vendors.$inferSelect;

/** The sandbox of shop `shopId`, if it has one. */
export async function findSandboxOf(db: Executor, shopId: string): Promise<SandboxRow | undefined> {
  const [row] = await db.select().from(vendors).where(eq(vendors.sandboxOf, shopId)).limit(1);
  return row;
}

/** A vendors row by id, sandbox or not. */
export async function findVendorRow(db: Executor, id: string): Promise<SandboxRow | undefined> {
  const [row] = await db.select().from(vendors).where(eq(vendors.id, id)).limit(1);
  return row;
}

/**
 * Inserts the sandbox row unless the shop has one (two first test keys at once make one sandbox:
 * the unique `sandbox_of` index, and the loser of the race reads the winner's row).
 */
export async function insertSandboxOnce(db: Executor, row: typeof vendors.$inferInsert): Promise<void> {
  await db.insert(vendors).values(row).onConflictDoNothing();
}

/** How many of each kind of record the sandbox holds (the dashboard's summary), in one statement. */
export async function countSandboxRecords(db: Executor, sandboxId: string) {
  const [row] = await queryRows<{
    orders: number;
    customers: number;
    appointments: number;
    inquiries: number;
    webhooks: number;
    events: number;
  }>(
    db,
    sql`select (select count(*) from orders where vendor_id = ${sandboxId})::int as orders,
               (select count(*) from customers where vendor_id = ${sandboxId})::int as customers,
               (select count(*) from appointments where vendor_id = ${sandboxId})::int as appointments,
               (select count(*) from inquiries where vendor_id = ${sandboxId})::int as inquiries,
               (select count(*) from webhooks where vendor_id = ${sandboxId})::int as webhooks,
               (select count(*) from events where vendor_id = ${sandboxId})::int as events`,
  );
  return row ?? { orders: 0, customers: 0, appointments: 0, inquiries: 0, webhooks: 0, events: 0 };
}

/**
 * Deletes every record of the sandbox but its keys and its webhook endpoints (their settings): the
 * orders, customers, appointments, inquiries, events (with their deliveries and attempt logs),
 * stored Idempotency-Key answers, mails and the activity log. One transaction, run by the caller.
 */
export async function deleteSandboxRecords(tx: Executor, sandboxId: string): Promise<void> {
  // Children before parents: appointments name orders and customers, orders name customers.
  await tx.execute(sql`delete from appointments where vendor_id = ${sandboxId}`);
  await tx.execute(sql`delete from orders where vendor_id = ${sandboxId}`);
  await tx.execute(sql`delete from mails where vendor_id = ${sandboxId}`);
  await tx.execute(sql`delete from customers where vendor_id = ${sandboxId}`);
  await tx.execute(sql`delete from inquiries where vendor_id = ${sandboxId}`);
  await tx.execute(sql`delete from events where vendor_id = ${sandboxId}`);
  await tx.execute(sql`delete from webhook_deliveries where vendor_id = ${sandboxId}`);
  await tx.execute(sql`delete from idempotency_keys where vendor_id = ${sandboxId}`);
  // What the test keys did there (the activity log): gone with what they did it to.
  await tx.execute(sql`delete from activity where vendor_id = ${sandboxId}`);
}
