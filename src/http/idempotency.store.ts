// SQL of the Idempotency-Key records (see idempotency.ts). Every statement is keyed by vendor,
// credential and key, so one caller can never see or disturb another's records.
import { and, eq, lt } from "drizzle-orm";
import type { Executor } from "../db/client.ts";
import { idempotencyKeys } from "../db/schema/index.ts";

export type IdempotencyRow = typeof idempotencyKeys.$inferSelect;
export interface IdempotencyScope {
  vendorId: string;
  credential: string;
  key: string;
}

const match = (s: IdempotencyScope) =>
  and(
    eq(idempotencyKeys.vendorId, s.vendorId),
    eq(idempotencyKeys.credential, s.credential),
    eq(idempotencyKeys.key, s.key),
  );

/** Claims the key for this request; false when a record already exists. */
export async function claimKey(db: Executor, s: IdempotencyScope, fingerprint: string, at: Date) {
  const rows = await db
    .insert(idempotencyKeys)
    .values({ ...s, fingerprint, state: "in_flight", createdAt: at })
    .onConflictDoNothing()
    .returning({ key: idempotencyKeys.key });
  return rows.length > 0;
}

export async function findKey(db: Executor, s: IdempotencyScope): Promise<IdempotencyRow | undefined> {
  const [row] = await db.select().from(idempotencyKeys).where(match(s)).limit(1);
  return row;
}

/** Deletes the record only if it is still the one we looked at (compare-and-delete). */
export async function dropKeyCreatedAt(db: Executor, s: IdempotencyScope, createdAt: Date): Promise<void> {
  await db.delete(idempotencyKeys).where(and(match(s), eq(idempotencyKeys.createdAt, createdAt)));
}

export async function dropKey(db: Executor, s: IdempotencyScope): Promise<void> {
  await db.delete(idempotencyKeys).where(match(s));
}

export async function completeKey(
  db: Executor,
  s: IdempotencyScope,
  response: { status: number; headers: Record<string, string>; body: string },
  at: Date,
): Promise<void> {
  await db
    .update(idempotencyKeys)
    .set({
      state: "completed",
      responseStatus: response.status,
      responseHeaders: response.headers,
      responseBody: response.body,
      completedAt: at,
    })
    .where(match(s));
}

export async function purgeKeysBefore(db: Executor, before: Date): Promise<void> {
  await db.delete(idempotencyKeys).where(lt(idempotencyKeys.createdAt, before));
}
