import { and, asc, desc, eq, gt, isNotNull, isNull, ne, type SQL, sql } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { members, notificationEmailChanges, vendors } from "../../db/schema/index.ts";

export type NotificationEmailChangeRow = typeof notificationEmailChanges.$inferSelect;

export async function insertNotificationEmailChange(
  db: Executor,
  row: typeof notificationEmailChanges.$inferInsert,
): Promise<void> {
  await db.insert(notificationEmailChanges).values(row);
}

/** Drops the shop's unused requests (a newer one replaces them). */
export async function deleteNotificationEmailChanges(db: Executor, vendorId: string): Promise<void> {
  await db
    .delete(notificationEmailChanges)
    .where(and(eq(notificationEmailChanges.vendorId, vendorId), isNull(notificationEmailChanges.usedAt)));
}

/** Drops the unused requests this member made (they are no longer an owner). */
export async function deleteNotificationEmailChangesBy(
  db: Executor,
  vendorId: string,
  memberId: string,
): Promise<void> {
  await db
    .delete(notificationEmailChanges)
    .where(
      and(
        eq(notificationEmailChanges.vendorId, vendorId),
        eq(notificationEmailChanges.requestedBy, memberId),
        isNull(notificationEmailChanges.usedAt),
      ),
    );
}

/** Still an owner of the request's shop: a request outlives no demotion (checked again at use). */
const requesterIsOwner = sql`exists (select 1 from ${members} m
  where m.id = ${notificationEmailChanges.requestedBy} and m.vendor_id = ${notificationEmailChanges.vendorId}
    and m.role = 'owner')`;

/** A request still live at `now`: unused, unexpired, its requester still an owner. */
async function findLiveChange(
  db: Executor,
  which: SQL | undefined,
  now: Date,
): Promise<NotificationEmailChangeRow | undefined> {
  const [row] = await db
    .select()
    .from(notificationEmailChanges)
    .where(
      and(
        which,
        isNull(notificationEmailChanges.usedAt),
        gt(notificationEmailChanges.expiresAt, now),
        requesterIsOwner,
      ),
    )
    .limit(1);
  return row;
}

/** The shop's live request, or undefined. */
export function findPendingNotificationEmailChange(
  db: Executor,
  vendorId: string,
  now: Date,
): Promise<NotificationEmailChangeRow | undefined> {
  return findLiveChange(db, eq(notificationEmailChanges.vendorId, vendorId), now);
}

/** The live request with this token hash, or undefined. */
export function findLiveNotificationEmailChange(
  db: Executor,
  tokenHash: string,
  now: Date,
): Promise<NotificationEmailChangeRow | undefined> {
  return findLiveChange(db, eq(notificationEmailChanges.tokenHash, tokenHash), now);
}

/** Marks the request used if it is still live, in one statement: of two uses exactly one gets it. */
export async function consumeNotificationEmailChange(
  db: Executor,
  tokenHash: string,
  now: Date,
): Promise<NotificationEmailChangeRow | undefined> {
  const [row] = await db
    .update(notificationEmailChanges)
    .set({ usedAt: now })
    .where(
      and(
        eq(notificationEmailChanges.tokenHash, tokenHash),
        isNull(notificationEmailChanges.usedAt),
        sql`${notificationEmailChanges.expiresAt} > ${now.toISOString()}::timestamptz`,
        requesterIsOwner,
      ),
    )
    .returning();
  return row;
}

export async function updateNotificationEmail(
  db: Executor,
  vendorId: string,
  email: string,
  movedAt: Date | null,
  at: Date,
): Promise<void> {
  await db
    .update(vendors)
    .set({ notificationEmail: email, notificationEmailMovedAt: movedAt, updatedAt: at })
    .where(eq(vendors.id, vendorId));
}

/** Who asked for the confirmed change that made `email` the shop's address, if a member did. */
export async function findRequesterOfAddress(
  db: Executor,
  vendorId: string,
  email: string,
): Promise<string | undefined> {
  const [row] = await db
    .select({ requestedBy: notificationEmailChanges.requestedBy })
    .from(notificationEmailChanges)
    .where(
      and(
        eq(notificationEmailChanges.vendorId, vendorId),
        isNotNull(notificationEmailChanges.usedAt),
        sql`lower(${notificationEmailChanges.email}) = lower(${email})`,
      ),
    )
    .orderBy(desc(notificationEmailChanges.usedAt))
    .limit(1);
  return row?.requestedBy;
}

/** The shop's first owner other than `memberId` (by seniority), or undefined. */
export async function findOtherOwner(
  db: Executor,
  vendorId: string,
  memberId: string,
): Promise<{ id: string; email: string } | undefined> {
  const [row] = await db
    .select({ id: members.id, email: members.email })
    .from(members)
    .where(and(eq(members.vendorId, vendorId), eq(members.role, "owner"), ne(members.id, memberId)))
    .orderBy(asc(members.createdAt), asc(members.id))
    .limit(1);
  return row;
}
