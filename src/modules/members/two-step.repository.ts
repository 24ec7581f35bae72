// The rows of two-step sign-in (two-step.service.ts): the member's sealed secret and last time
// step, their recovery codes (hashes), and the shop's requirement. Every write names the vendor.
import { and, eq, isNull, lt, or, sql } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { memberRecoveryCodes, members, vendors } from "../../db/schema/index.ts";
import { newId } from "../../lib/ids.ts";

const theMember = (vendorId: string, memberId: string) =>
  and(eq(members.vendorId, vendorId), eq(members.id, memberId));

export async function setPendingTotpSecret(
  db: Executor,
  vendorId: string,
  memberId: string,
  sealed: string,
): Promise<void> {
  await db.update(members).set({ totpPending: sealed }).where(theMember(vendorId, memberId));
}

/** Two-step sign-in on: the pending secret becomes the secret, and these recovery codes replace any. */
export async function enableTotp(
  db: Executor,
  vendorId: string,
  memberId: string,
  input: { sealed: string; step: number; codeHashes: string[]; at: Date },
): Promise<void> {
  await db
    .update(members)
    .set({
      totpSecret: input.sealed,
      totpPending: null,
      totpEnabledAt: input.at,
      totpLastStep: input.step,
      updatedAt: input.at,
    })
    .where(theMember(vendorId, memberId));
  await db
    .delete(memberRecoveryCodes)
    .where(and(eq(memberRecoveryCodes.vendorId, vendorId), eq(memberRecoveryCodes.memberId, memberId)));
  await db.insert(memberRecoveryCodes).values(
    input.codeHashes.map((codeHash) => ({
      id: newId(),
      vendorId,
      memberId,
      codeHash,
      createdAt: input.at,
    })),
  );
}

export async function disableTotp(db: Executor, vendorId: string, memberId: string, at: Date): Promise<void> {
  await db
    .update(members)
    .set({ totpSecret: null, totpPending: null, totpEnabledAt: null, totpLastStep: null, updatedAt: at })
    .where(theMember(vendorId, memberId));
  await db
    .delete(memberRecoveryCodes)
    .where(and(eq(memberRecoveryCodes.vendorId, vendorId), eq(memberRecoveryCodes.memberId, memberId)));
}

/** Records `step` as used, only if it is later than the last: false when it was used already. */
export async function acceptTimeStep(
  db: Executor,
  vendorId: string,
  memberId: string,
  step: number,
): Promise<boolean> {
  const taken = await db
    .update(members)
    .set({ totpLastStep: step })
    .where(
      and(theMember(vendorId, memberId), or(isNull(members.totpLastStep), lt(members.totpLastStep, step))),
    )
    .returning({ id: members.id });
  return taken.length > 0;
}

/** Uses the recovery code up: false when it is not the member's or was used already. */
export async function consumeRecoveryCode(
  db: Executor,
  vendorId: string,
  memberId: string,
  codeHash: string,
  at: Date,
): Promise<boolean> {
  const used = await db
    .update(memberRecoveryCodes)
    .set({ usedAt: at })
    .where(
      and(
        eq(memberRecoveryCodes.vendorId, vendorId),
        eq(memberRecoveryCodes.memberId, memberId),
        eq(memberRecoveryCodes.codeHash, codeHash),
        isNull(memberRecoveryCodes.usedAt),
      ),
    )
    .returning({ id: memberRecoveryCodes.id });
  return used.length > 0;
}

export async function countUnusedRecoveryCodes(
  db: Executor,
  vendorId: string,
  memberId: string,
): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(memberRecoveryCodes)
    .where(
      and(
        eq(memberRecoveryCodes.vendorId, vendorId),
        eq(memberRecoveryCodes.memberId, memberId),
        isNull(memberRecoveryCodes.usedAt),
      ),
    );
  return row?.n ?? 0;
}

export async function shopRequiresTwoStep(db: Executor, vendorId: string): Promise<boolean> {
  const [row] = await db.select({ on: vendors.requireTwoStep }).from(vendors).where(eq(vendors.id, vendorId));
  return row?.on ?? false;
}

export async function setShopRequirement(
  db: Executor,
  vendorId: string,
  on: boolean,
  at: Date,
): Promise<void> {
  await db.update(vendors).set({ requireTwoStep: on, updatedAt: at }).where(eq(vendors.id, vendorId));
}
