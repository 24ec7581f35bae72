import { and, desc, eq, isNull } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { apiKeys } from "../../db/schema/index.ts";

export type ApiKeyRow = typeof apiKeys.$inferSelect;

export async function insertApiKey(db: Executor, row: typeof apiKeys.$inferInsert): Promise<ApiKeyRow> {
  const [inserted] = await db.insert(apiKeys).values(row).returning();
  if (!inserted) throw new Error("insertApiKey returned nothing");
  return inserted;
}

export async function findApiKeyByHash(db: Executor, keyHash: string): Promise<ApiKeyRow | undefined> {
  const [row] = await db.select().from(apiKeys).where(eq(apiKeys.keyHash, keyHash)).limit(1);
  return row;
}

export async function listApiKeys(db: Executor, vendorId: string): Promise<ApiKeyRow[]> {
  return db.select().from(apiKeys).where(eq(apiKeys.vendorId, vendorId)).orderBy(desc(apiKeys.createdAt));
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
    .where(and(eq(apiKeys.vendorId, vendorId), eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  return rows.length > 0;
}
