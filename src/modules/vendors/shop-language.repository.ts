// The shop's language (vendors.language) and a member's own dashboard language (members.language,
// null: the shop's), each written alone: sign-up's choice, Settings, the member's Account page.
import { and, eq } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { members, vendors } from "../../db/schema/index.ts";

export async function updateVendorLanguage(
  db: Executor,
  vendorId: string,
  language: string,
  now: Date,
): Promise<void> {
  await db.update(vendors).set({ language, updatedAt: now }).where(eq(vendors.id, vendorId));
}

export async function updateMemberLanguage(
  db: Executor,
  vendorId: string,
  memberId: string,
  language: string | null,
): Promise<void> {
  await db
    .update(members)
    .set({ language })
    .where(and(eq(members.vendorId, vendorId), eq(members.id, memberId)));
}

/** The member's own language (null: the shop's) and the shop's. */
export async function findLanguages(
  db: Executor,
  vendorId: string,
  memberId: string,
): Promise<{ member: string | null; shop: string } | undefined> {
  const [row] = await db
    .select({ member: members.language, shop: vendors.language })
    .from(members)
    .innerJoin(vendors, eq(vendors.id, members.vendorId))
    .where(and(eq(members.vendorId, vendorId), eq(members.id, memberId)))
    .limit(1);
  return row;
}
