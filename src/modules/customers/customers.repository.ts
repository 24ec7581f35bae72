import { and, eq, sql } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { customers } from "../../db/schema/index.ts";

export type CustomerRow = typeof customers.$inferSelect;

/** Insert unless a customer of the vendor already has this e-mail (any case); undefined then. */
export async function insertCustomerUnlessEmailTaken(
  db: Executor,
  row: typeof customers.$inferInsert,
): Promise<CustomerRow | undefined> {
  const [inserted] = await db.insert(customers).values(row).onConflictDoNothing().returning();
  return inserted;
}

export async function findCustomerByEmail(
  db: Executor,
  vendorId: string,
  email: string,
): Promise<CustomerRow | undefined> {
  const [row] = await db
    .select()
    .from(customers)
    .where(and(eq(customers.vendorId, vendorId), sql`lower(${customers.email}) = lower(${email})`))
    .limit(1);
  return row;
}

export async function findCustomerById(
  db: Executor,
  vendorId: string,
  id: string,
): Promise<CustomerRow | undefined> {
  const [row] = await db
    .select()
    .from(customers)
    .where(and(eq(customers.vendorId, vendorId), eq(customers.id, id)))
    .limit(1);
  return row;
}
