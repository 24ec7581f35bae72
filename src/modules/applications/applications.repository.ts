import { and, desc, eq } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { applications } from "../../db/schema/index.ts";

export type ApplicationRow = typeof applications.$inferSelect;

export async function insertApplication(
  db: Executor,
  row: typeof applications.$inferInsert,
): Promise<ApplicationRow> {
  const [inserted] = await db.insert(applications).values(row).returning();
  if (!inserted) throw new Error("insertApplication returned nothing");
  return inserted;
}

/** By client ID, whoever registered it (whether this vendor may authorize it is the service's rule). */
export async function findApplicationByClientId(
  db: Executor,
  clientId: string,
): Promise<ApplicationRow | undefined> {
  const [row] = await db.select().from(applications).where(eq(applications.clientId, clientId)).limit(1);
  return row;
}

export async function findApplicationById(
  db: Executor,
  vendorId: string,
  id: string,
): Promise<ApplicationRow | undefined> {
  const [row] = await db
    .select()
    .from(applications)
    .where(and(eq(applications.vendorId, vendorId), eq(applications.id, id)))
    .limit(1);
  return row;
}

export async function listApplications(db: Executor, vendorId: string): Promise<ApplicationRow[]> {
  return db
    .select()
    .from(applications)
    .where(eq(applications.vendorId, vendorId))
    .orderBy(desc(applications.createdAt));
}

export async function updateApplicationSecret(
  db: Executor,
  vendorId: string,
  id: string,
  clientSecretHash: string,
  at: Date,
): Promise<ApplicationRow | undefined> {
  const [row] = await db
    .update(applications)
    .set({ clientSecretHash, updatedAt: at })
    .where(and(eq(applications.vendorId, vendorId), eq(applications.id, id)))
    .returning();
  return row;
}

export async function updateApplicationVisibility(
  db: Executor,
  vendorId: string,
  id: string,
  isPublic: boolean,
  at: Date,
): Promise<ApplicationRow | undefined> {
  const [row] = await db
    .update(applications)
    .set({ public: isPublic, updatedAt: at })
    .where(and(eq(applications.vendorId, vendorId), eq(applications.id, id)))
    .returning();
  return row;
}

export async function deleteApplicationRow(db: Executor, vendorId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(applications)
    .where(and(eq(applications.vendorId, vendorId), eq(applications.id, id)))
    .returning({ id: applications.id });
  return rows.length > 0;
}
