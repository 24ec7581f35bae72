import { and, asc, eq, gt, sql } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { memberInvitations } from "../../db/schema/index.ts";

export type InvitationRow = typeof memberInvitations.$inferSelect;

export async function insertInvitation(
  db: Executor,
  row: typeof memberInvitations.$inferInsert,
): Promise<void> {
  await db.insert(memberInvitations).values(row);
}

/** The shop's invitations not yet accepted, expired ones included (the page says which). */
export async function listInvitationsOfVendor(db: Executor, vendorId: string): Promise<InvitationRow[]> {
  return db
    .select()
    .from(memberInvitations)
    .where(eq(memberInvitations.vendorId, vendorId))
    .orderBy(asc(memberInvitations.createdAt), asc(memberInvitations.id));
}

/** A newer invitation to the same address replaces the older ones. */
export async function deleteInvitationsTo(db: Executor, vendorId: string, email: string): Promise<void> {
  await db
    .delete(memberInvitations)
    .where(
      and(eq(memberInvitations.vendorId, vendorId), sql`lower(${memberInvitations.email}) = lower(${email})`),
    );
}

export async function deleteInvitation(db: Executor, vendorId: string, id: string): Promise<boolean> {
  const gone = await db
    .delete(memberInvitations)
    .where(and(eq(memberInvitations.vendorId, vendorId), eq(memberInvitations.id, id)))
    .returning({ id: memberInvitations.id });
  return gone.length > 0;
}

export async function findLiveInvitation(
  db: Executor,
  tokenHash: string,
  now: Date,
): Promise<InvitationRow | undefined> {
  const [row] = await db
    .select()
    .from(memberInvitations)
    .where(and(eq(memberInvitations.tokenHash, tokenHash), gt(memberInvitations.expiresAt, now)))
    .limit(1);
  return row;
}

/** Uses the live invitation up, in one statement: of two concurrent uses one gets the row. */
export async function consumeInvitation(
  db: Executor,
  tokenHash: string,
  now: Date,
): Promise<InvitationRow | undefined> {
  const [row] = await db
    .delete(memberInvitations)
    .where(
      and(
        eq(memberInvitations.tokenHash, tokenHash),
        sql`${memberInvitations.expiresAt} > ${now.toISOString()}::timestamptz`,
      ),
    )
    .returning();
  return row;
}
