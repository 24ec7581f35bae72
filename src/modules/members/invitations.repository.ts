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

/**
 * Revokes the invitations this member sent (they are removed, or no longer an owner): an
 * invitation speaks for its sender, and a removed owner once came back in through their own.
 */
export async function deleteInvitationsSentBy(
  db: Executor,
  vendorId: string,
  memberId: string,
): Promise<number> {
  const gone = await db
    .delete(memberInvitations)
    .where(and(eq(memberInvitations.vendorId, vendorId), eq(memberInvitations.invitedBy, memberId)))
    .returning({ id: memberInvitations.id });
  return gone.length;
}

/**
 * Its sender is still an owner of the shop. Checked again at every use, so an invitation whose
 * sender left before revocation on removal existed (invited_by set null) is dead too.
 */
const senderIsOwner = sql`exists (select 1 from members m
  where m.id = ${memberInvitations.invitedBy} and m.vendor_id = ${memberInvitations.vendorId}
    and m.role = 'owner')`;

export async function findLiveInvitation(
  db: Executor,
  tokenHash: string,
  now: Date,
): Promise<InvitationRow | undefined> {
  const [row] = await db
    .select()
    .from(memberInvitations)
    .where(
      and(eq(memberInvitations.tokenHash, tokenHash), gt(memberInvitations.expiresAt, now), senderIsOwner),
    )
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
        senderIsOwner,
      ),
    )
    .returning();
  return row;
}
