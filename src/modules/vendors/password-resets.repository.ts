import { and, eq, gt, isNull, sql } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { passwordResets } from "../../db/schema/index.ts";

export type PasswordResetRow = typeof passwordResets.$inferSelect;

export async function insertPasswordReset(
  db: Executor,
  row: typeof passwordResets.$inferInsert,
): Promise<void> {
  await db.insert(passwordResets).values(row);
}

/** Ends every unused link of the member (a newer link, or a new password, replaces them). */
export async function voidPasswordResetsOfMember(
  db: Executor,
  vendorId: string,
  memberId: string,
  now: Date,
): Promise<void> {
  await db
    .update(passwordResets)
    .set({ usedAt: now })
    .where(
      and(
        eq(passwordResets.vendorId, vendorId),
        eq(passwordResets.memberId, memberId),
        isNull(passwordResets.usedAt),
      ),
    );
}

/** The live (unused, unexpired) link with this token hash, or undefined. */
export async function findLivePasswordReset(
  db: Executor,
  tokenHash: string,
  now: Date,
): Promise<PasswordResetRow | undefined> {
  const [row] = await db
    .select()
    .from(passwordResets)
    .where(
      and(
        eq(passwordResets.tokenHash, tokenHash),
        isNull(passwordResets.usedAt),
        gt(passwordResets.expiresAt, now),
      ),
    )
    .limit(1);
  return row;
}

/**
 * Marks the link used, in one statement that also checks it is still live: of two concurrent
 * uses exactly one gets the member back.
 */
export async function consumePasswordReset(
  db: Executor,
  tokenHash: string,
  now: Date,
): Promise<{ vendorId: string; memberId: string } | undefined> {
  const [row] = await db
    .update(passwordResets)
    .set({ usedAt: now })
    .where(
      and(
        eq(passwordResets.tokenHash, tokenHash),
        isNull(passwordResets.usedAt),
        sql`${passwordResets.expiresAt} > ${now.toISOString()}::timestamptz`,
      ),
    )
    .returning({ vendorId: passwordResets.vendorId, memberId: passwordResets.memberId });
  return row;
}
