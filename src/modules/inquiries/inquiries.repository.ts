import { and, count, eq, gte, sql } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { afterCursor, keysetOrder } from "../../db/keyset.ts";
import { inquiries } from "../../db/schema/index.ts";
import type { Cursor } from "../../lib/cursor.ts";

export type InquiryRow = typeof inquiries.$inferSelect;

export async function insertInquiry(db: Executor, row: typeof inquiries.$inferInsert): Promise<InquiryRow> {
  const [inserted] = await db.insert(inquiries).values(row).returning();
  if (!inserted) throw new Error("insertInquiry returned nothing");
  return inserted;
}

export async function countInquiriesSince(db: Executor, vendorId: string, since: Date): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(inquiries)
    .where(and(eq(inquiries.vendorId, vendorId), gte(inquiries.createdAt, since)));
  return Number(row?.n ?? 0);
}

/** One page, newest first, in one statement; the ORDER BY matches inquiries_vendor_created_idx. */
export async function listInquiries(
  db: Executor,
  vendorId: string,
  filter: { limit: number; cursor?: Cursor | undefined },
): Promise<InquiryRow[]> {
  const conditions = [eq(inquiries.vendorId, vendorId)];
  if (filter.cursor) conditions.push(afterCursor(inquiries.createdAt, inquiries.id, filter.cursor, "desc"));
  return db
    .select()
    .from(inquiries)
    .where(and(...conditions))
    .orderBy(...keysetOrder(inquiries.createdAt, inquiries.id, "desc"))
    .limit(filter.limit + 1);
}

export async function findInquiryById(
  db: Executor,
  vendorId: string,
  id: string,
): Promise<InquiryRow | undefined> {
  const [row] = await db
    .select()
    .from(inquiries)
    .where(and(eq(inquiries.vendorId, vendorId), eq(inquiries.id, id)))
    .limit(1);
  return row;
}

/** Marks the vendor's inquiry handled (first time only); false when the vendor has no such inquiry. */
export async function setInquiryHandled(
  db: Executor,
  vendorId: string,
  id: string,
  at: Date,
): Promise<boolean> {
  const rows = await db
    .update(inquiries)
    .set({ handledAt: sql`coalesce(${inquiries.handledAt}, ${at.toISOString()}::timestamptz)` })
    .where(and(eq(inquiries.vendorId, vendorId), eq(inquiries.id, id)))
    .returning({ id: inquiries.id });
  return rows.length > 0;
}
