// SQL of the Idempotency-Key records (see idempotency.ts). Every statement is keyed by vendor,
// credential and key, so one caller can never see or disturb another's records.
import { and, eq, lt, sql } from "drizzle-orm";
import type { Executor, Tx } from "../db/client.ts";
import { queryRows } from "../db/query-rows.ts";
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

/**
 * Takes the key for the rest of the transaction `tx`; false while another transaction holds it
 * (that request is still running). PostgreSQL releases the lock when the transaction ends, or
 * when its connection dies with a crashed process: a retry after a crash never waits.
 */
export async function lockKey(tx: Tx, s: IdempotencyScope): Promise<boolean> {
  const name = `${s.vendorId}\n${s.credential}\n${s.key}`;
  const [row] = await queryRows<{ locked: boolean }>(
    tx,
    sql`select pg_try_advisory_xact_lock(hashtextextended(${name}, 0)) as locked`,
  );
  return row?.locked === true;
}

export async function findKey(db: Executor, s: IdempotencyScope): Promise<IdempotencyRow | undefined> {
  const [row] = await db.select().from(idempotencyKeys).where(match(s)).limit(1);
  return row;
}

export async function dropKey(db: Executor, s: IdempotencyScope): Promise<void> {
  await db.delete(idempotencyKeys).where(match(s));
}

/** Stores the answer; called in the transaction that made the change, so both commit together. */
export async function storeAnswer(
  tx: Tx,
  s: IdempotencyScope,
  fingerprint: string,
  response: { status: number; headers: Record<string, string>; body: string },
  createdAt: Date,
  at: Date,
): Promise<void> {
  await tx.insert(idempotencyKeys).values({
    ...s,
    fingerprint,
    state: "completed",
    responseStatus: response.status,
    responseHeaders: response.headers,
    responseBody: response.body,
    createdAt,
    completedAt: at,
  });
}

export async function purgeKeysBefore(db: Executor, before: Date): Promise<void> {
  await db.delete(idempotencyKeys).where(lt(idempotencyKeys.createdAt, before));
}
