import { and, eq, gt, ne } from "drizzle-orm";
import type { Executor } from "../db/client.ts";
import { dashboardSessions } from "../db/schema/index.ts";

export async function insertSession(db: Executor, row: typeof dashboardSessions.$inferInsert): Promise<void> {
  await db.insert(dashboardSessions).values(row);
}

export async function findLiveSession(db: Executor, tokenHash: string, now: Date) {
  const [row] = await db
    .select()
    .from(dashboardSessions)
    .where(and(eq(dashboardSessions.tokenHash, tokenHash), gt(dashboardSessions.expiresAt, now)))
    .limit(1);
  return row;
}

export async function deleteSessionByHash(db: Executor, tokenHash: string): Promise<void> {
  await db.delete(dashboardSessions).where(eq(dashboardSessions.tokenHash, tokenHash));
}

export async function deleteSessionsOfVendor(db: Executor, vendorId: string): Promise<void> {
  await db.delete(dashboardSessions).where(eq(dashboardSessions.vendorId, vendorId));
}

/** Every session of the vendor but one (the one that just changed the password). */
export async function deleteOtherSessionsOfVendor(
  db: Executor,
  vendorId: string,
  keepId: string,
): Promise<void> {
  await db
    .delete(dashboardSessions)
    .where(and(eq(dashboardSessions.vendorId, vendorId), ne(dashboardSessions.id, keepId)));
}
