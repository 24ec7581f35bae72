import { and, eq, gt, isNull, sql } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { signupRequests } from "../../db/schema/index.ts";

export type SignupRequestRow = typeof signupRequests.$inferSelect;

export async function insertSignupRequest(
  db: Executor,
  row: typeof signupRequests.$inferInsert,
): Promise<void> {
  await db.insert(signupRequests).values(row);
}

/** The live (unused, unexpired) request with this token hash, or undefined. */
export async function findLiveSignupRequest(
  db: Executor,
  tokenHash: string,
  now: Date,
): Promise<SignupRequestRow | undefined> {
  const [row] = await db
    .select()
    .from(signupRequests)
    .where(
      and(
        eq(signupRequests.tokenHash, tokenHash),
        isNull(signupRequests.usedAt),
        gt(signupRequests.expiresAt, now),
      ),
    )
    .limit(1);
  return row;
}

/** Marks the request used if it is still live, in one statement: of two uses exactly one gets it. */
export async function consumeSignupRequest(
  db: Executor,
  tokenHash: string,
  now: Date,
): Promise<SignupRequestRow | undefined> {
  const [row] = await db
    .update(signupRequests)
    .set({ usedAt: now })
    .where(
      and(
        eq(signupRequests.tokenHash, tokenHash),
        isNull(signupRequests.usedAt),
        sql`${signupRequests.expiresAt} > ${now.toISOString()}::timestamptz`,
      ),
    )
    .returning();
  return row;
}
