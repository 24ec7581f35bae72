import { and, eq, gt, isNotNull, ne } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { dashboardSessions } from "../../db/schema/index.ts";

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

export async function deleteSessionRow(db: Executor, vendorId: string, sessionId: string): Promise<void> {
  await db
    .delete(dashboardSessions)
    .where(and(eq(dashboardSessions.vendorId, vendorId), eq(dashboardSessions.id, sessionId)));
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

export async function setPendingSecret(
  db: Executor,
  vendorId: string,
  sessionId: string,
  sealed: string,
): Promise<void> {
  await db
    .update(dashboardSessions)
    .set({ pendingSecret: sealed })
    .where(and(eq(dashboardSessions.vendorId, vendorId), eq(dashboardSessions.id, sessionId)));
}

/** The session's pending secret, cleared in the same step: of two readers only one gets it. */
export async function takePendingSecret(
  db: Executor,
  vendorId: string,
  sessionId: string,
): Promise<string | undefined> {
  const session = and(eq(dashboardSessions.vendorId, vendorId), eq(dashboardSessions.id, sessionId));
  const [row] = await db
    .select({ sealed: dashboardSessions.pendingSecret })
    .from(dashboardSessions)
    .where(and(session, isNotNull(dashboardSessions.pendingSecret)));
  if (!row?.sealed) return undefined;
  const taken = await db
    .update(dashboardSessions)
    .set({ pendingSecret: null })
    .where(and(session, eq(dashboardSessions.pendingSecret, row.sealed)))
    .returning({ id: dashboardSessions.id });
  return taken.length > 0 ? row.sealed : undefined;
}
