import { and, desc, eq, inArray, isNull, or, sql } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { preparedStatement } from "../../db/prepared.ts";
import { apiKeys } from "../../db/schema/index.ts";

export type ApiKeyRow = typeof apiKeys.$inferSelect;

export async function insertApiKey(db: Executor, row: typeof apiKeys.$inferInsert): Promise<ApiKeyRow> {
  const [inserted] = await db.insert(apiKeys).values(row).returning();
  if (!inserted) throw new Error("insertApiKey returned nothing");
  return inserted;
}

/** What authenticating a request needs of a key (every request reads it: a prepared statement). */
export interface KeyCredential {
  id: string;
  vendorId: string;
  keyHash: string;
  scopes: string[] | null;
  revoked: boolean;
  /** Epoch milliseconds of the last recorded use, null when never used. */
  lastUsedMs: number | null;
}

export async function findApiKeyByHash(db: Executor, keyHash: string): Promise<KeyCredential | undefined> {
  const [row] = await keyByHash(db, { keyHash });
  if (!row) return undefined;
  return {
    id: row.id,
    vendorId: row.vendor_id,
    keyHash: row.key_hash,
    scopes: row.scopes,
    revoked: row.revoked,
    lastUsedMs: row.last_used_ms === null ? null : Number(row.last_used_ms),
  };
}

/**
 * The scopes of a key still in force (null = every scope), or undefined once it is revoked or gone:
 * what an open event stream checks when told the key changed.
 */
export async function findLiveKeyScopes(
  db: Executor,
  id: string,
): Promise<{ scopes: string[] | null } | undefined> {
  const [row] = await db
    .select({ scopes: apiKeys.scopes })
    .from(apiKeys)
    .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
    .limit(1);
  return row;
}

const keyByHash = preparedStatement<{
  id: string;
  vendor_id: string;
  key_hash: string;
  scopes: string[] | null;
  revoked: boolean;
  last_used_ms: string | null;
}>(
  "api_key_by_hash",
  (p) => sql`select id, vendor_id, key_hash, scopes, revoked_at is not null as revoked,
                    (extract(epoch from last_used_at) * 1000)::bigint::text as last_used_ms
             from api_keys where key_hash = ${p.keyHash}::text limit 1`,
);

/** The vendor itself and its sandbox, if it has one: a shop manages its test keys with its own. */
const vendorOrItsSandbox = (vendorId: string) =>
  or(
    eq(apiKeys.vendorId, vendorId),
    inArray(apiKeys.vendorId, sql`(select id from vendors where sandbox_of = ${vendorId})`),
  );

/** The vendor's keys and its sandbox's (test keys), newest first. */
export async function listApiKeys(db: Executor, vendorId: string): Promise<ApiKeyRow[]> {
  return db
    .select()
    .from(apiKeys)
    .where(vendorOrItsSandbox(vendorId))
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
}

export async function touchApiKey(db: Executor, vendorId: string, id: string, at: Date): Promise<void> {
  await db
    .update(apiKeys)
    .set({ lastUsedAt: at })
    .where(and(eq(apiKeys.vendorId, vendorId), eq(apiKeys.id, id)));
}

export async function revokeApiKey(db: Executor, vendorId: string, id: string, at: Date): Promise<boolean> {
  const rows = await db
    .update(apiKeys)
    .set({ revokedAt: at })
    .where(and(vendorOrItsSandbox(vendorId), eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  return rows.length > 0;
}
