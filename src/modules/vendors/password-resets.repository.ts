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

/** Ends every unused link of the vendor (a newer link replaces them). */
export async function voidPasswordResetsOfVendor(db: Executor, vendorId: string, now: Date): Promise<void> {
  await db
    .update(passwordResets)
    .set({ usedAt: now })
    .where(and(eq(passwordResets.vendorId, vendorId), isNull(passwordResets.usedAt)));
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
 * uses exactly one gets the vendor id back.
 */
export async function consumePasswordReset(
  db: Executor,
  tokenHash: string,
  now: Date,
): Promise<string | undefined> {
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
    .returning({ vendorId: passwordResets.vendorId });
  return row?.vendorId;
}
