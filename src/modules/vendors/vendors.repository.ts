import { and, eq, isNull, sql } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { vendors } from "../../db/schema/index.ts";

export type VendorRow = typeof vendors.$inferSelect;

export async function insertVendor(db: Executor, row: typeof vendors.$inferInsert): Promise<VendorRow> {
  const [inserted] = await db.insert(vendors).values(row).returning();
  if (!inserted) throw new Error("insertVendor returned nothing");
  return inserted;
}

export async function findVendorById(db: Executor, id: string): Promise<VendorRow | undefined> {
  const [row] = await db.select().from(vendors).where(eq(vendors.id, id)).limit(1);
  return row;
}

/** The shop whose sign-in e-mail this is; never a sandbox (it cannot sign in or get mail). */
export async function findVendorByEmail(db: Executor, email: string): Promise<VendorRow | undefined> {
  const [row] = await db
    .select()
    .from(vendors)
    .where(and(sql`lower(${vendors.email}) = lower(${email})`, isNull(vendors.sandboxOf)))
    .limit(1);
  return row;
}

/**
 * The vendor row, locked until the transaction ends: serializes writes that check a per-vendor
 * bound (inquiries an hour) so concurrent requests cannot both pass the check.
 */
export async function lockVendor(db: Executor, id: string): Promise<VendorRow | undefined> {
  const [row] = await db.select().from(vendors).where(eq(vendors.id, id)).for("update");
  return row;
}

export async function updateVendorSettings(
  db: Executor,
  id: string,
  settings: {
    name: string;
    contactEmail: string | null;
    timeZone: string;
    website?: string | null;
    customerMail?: boolean;
  },
  at: Date,
): Promise<void> {
  await db
    .update(vendors)
    .set({ ...settings, updatedAt: at })
    .where(eq(vendors.id, id));
}

/** Every shop, oldest first, without sandboxes: the operator's list (the CLI), never reachable over the API. */
export async function listVendorRows(db: Executor): Promise<VendorRow[]> {
  return db.select().from(vendors).where(isNull(vendors.sandboxOf)).orderBy(vendors.createdAt, vendors.id);
}

/** The shop's language and brand (Settings, Brand and language). */
export async function updateVendorBrand(
  db: Executor,
  id: string,
  brand: {
    language: string;
    brandLogoUrl: string | null;
    brandAccentColor: string | null;
    address: string | null;
    phone: string | null;
    mailSignature: string | null;
  },
  at: Date,
): Promise<void> {
  await db
    .update(vendors)
    .set({ ...brand, updatedAt: at })
    .where(eq(vendors.id, id));
}

/** The operator's change of a shop's language or time zone; the row after it, undefined when none. */
export async function updateVendorColumns(
  db: Executor,
  id: string,
  changes: { language?: string; timeZone?: string },
  at: Date,
): Promise<VendorRow | undefined> {
  const [row] = await db
    .update(vendors)
    .set({ ...changes, updatedAt: at })
    .where(eq(vendors.id, id))
    .returning();
  return row;
}
