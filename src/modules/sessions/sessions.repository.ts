import { and, eq, gt, inArray, isNotNull, isNull, lt, ne, sql } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { dashboardSessions, members, vendors } from "../../db/schema/index.ts";

export async function insertSession(db: Executor, row: typeof dashboardSessions.$inferInsert): Promise<void> {
  await db.insert(dashboardSessions).values(row);
}

/** The live session with this token hash and its member (one statement: every page asks). */
export async function findLiveSession(db: Executor, tokenHash: string, now: Date) {
  const [row] = await db
    .select({
      id: dashboardSessions.id,
      vendorId: dashboardSessions.vendorId,
      memberId: members.id,
      name: members.name,
      email: members.email,
      role: members.role,
      // The member's own dashboard language, else the shop's (members.language null).
      language: sql<string>`coalesce(${members.language}, ${vendors.language})`,
      secondStep: dashboardSessions.secondStep,
    })
    .from(dashboardSessions)
    .innerJoin(
      members,
      and(eq(members.id, dashboardSessions.memberId), eq(members.vendorId, dashboardSessions.vendorId)),
    )
    .innerJoin(vendors, eq(vendors.id, dashboardSessions.vendorId))
    .where(and(eq(dashboardSessions.tokenHash, tokenHash), gt(dashboardSessions.expiresAt, now)))
    .limit(1);
  return row;
}

export async function deleteSessionRow(db: Executor, vendorId: string, sessionId: string): Promise<void> {
  await db
    .delete(dashboardSessions)
    .where(and(eq(dashboardSessions.vendorId, vendorId), eq(dashboardSessions.id, sessionId)));
}

export async function deleteSessionsOfMember(
  db: Executor,
  vendorId: string,
  memberId: string,
): Promise<void> {
  await db
    .delete(dashboardSessions)
    .where(and(eq(dashboardSessions.vendorId, vendorId), eq(dashboardSessions.memberId, memberId)));
}

/** Every session of the member but one (the one that just changed the password). */
export async function deleteOtherSessionsOfMember(
  db: Executor,
  vendorId: string,
  memberId: string,
  keepId: string,
): Promise<void> {
  await db
    .delete(dashboardSessions)
    .where(
      and(
        eq(dashboardSessions.vendorId, vendorId),
        eq(dashboardSessions.memberId, memberId),
        ne(dashboardSessions.id, keepId),
      ),
    );
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

/**
 * Counts one guess at a pending sign-in's second step in one statement, if fewer than `max` were
 * counted: the new count, or undefined when the guesses are spent (or the sign-in is gone).
 */
export async function countSecondStepGuess(
  db: Executor,
  vendorId: string,
  sessionId: string,
  max: number,
  now: Date,
): Promise<number | undefined> {
  const [row] = await db
    .update(dashboardSessions)
    .set({ secondStepAttempts: sql`${dashboardSessions.secondStepAttempts} + 1` })
    .where(
      and(
        eq(dashboardSessions.vendorId, vendorId),
        eq(dashboardSessions.id, sessionId),
        isNotNull(dashboardSessions.secondStep),
        gt(dashboardSessions.expiresAt, now),
        lt(dashboardSessions.secondStepAttempts, max),
      ),
    )
    .returning({ attempts: dashboardSessions.secondStepAttempts });
  return row?.attempts;
}

/**
 * Every session, but `keepId`, of the shop's members who have no two-step sign-in: the shop has
 * just required it, and a session opened with a password alone must not outlive that.
 */
export async function deleteSessionsWithoutTwoStep(
  db: Executor,
  vendorId: string,
  keepId: string | undefined,
): Promise<void> {
  await db.delete(dashboardSessions).where(
    and(
      eq(dashboardSessions.vendorId, vendorId),
      keepId === undefined ? undefined : ne(dashboardSessions.id, keepId),
      inArray(
        dashboardSessions.memberId,
        db
          .select({ id: members.id })
          .from(members)
          .where(and(eq(members.vendorId, vendorId), isNull(members.totpEnabledAt))),
      ),
    ),
  );
}
