import { and, asc, count, eq, sql } from "drizzle-orm";
import type { Role } from "../../auth/member-policy.ts";
import type { Executor } from "../../db/client.ts";
import { members } from "../../db/schema/index.ts";

export type MemberRow = typeof members.$inferSelect;

export async function insertMember(db: Executor, row: typeof members.$inferInsert): Promise<MemberRow> {
  const [inserted] = await db.insert(members).values(row).returning();
  if (!inserted) throw new Error("insertMember returned nothing");
  return inserted;
}

/** The member with this e-mail in any shop (an e-mail is one member's), case-insensitively. */
export async function findMemberByEmail(db: Executor, email: string): Promise<MemberRow | undefined> {
  const [row] = await db
    .select()
    .from(members)
    .where(sql`lower(${members.email}) = lower(${email})`)
    .limit(1);
  return row;
}

export async function findMemberOfVendor(
  db: Executor,
  vendorId: string,
  memberId: string,
): Promise<MemberRow | undefined> {
  const [row] = await db
    .select()
    .from(members)
    .where(and(eq(members.vendorId, vendorId), eq(members.id, memberId)))
    .limit(1);
  return row;
}

/** The shop's first owner (the CLI names a shop by its id and means its owner). */
export async function findFirstOwner(db: Executor, vendorId: string): Promise<MemberRow | undefined> {
  const [row] = await db
    .select()
    .from(members)
    .where(and(eq(members.vendorId, vendorId), eq(members.role, "owner")))
    .orderBy(asc(members.createdAt), asc(members.id))
    .limit(1);
  return row;
}

export async function listMembersOfVendor(db: Executor, vendorId: string): Promise<MemberRow[]> {
  return db
    .select()
    .from(members)
    .where(eq(members.vendorId, vendorId))
    .orderBy(asc(members.createdAt), asc(members.id));
}

/** How many owners the shop has; call with the vendor row locked (lockVendor) to rely on it. */
export async function countOwners(db: Executor, vendorId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(members)
    .where(and(eq(members.vendorId, vendorId), eq(members.role, "owner")));
  return row?.n ?? 0;
}

export async function updateMemberPassword(
  db: Executor,
  vendorId: string,
  memberId: string,
  passwordHash: string,
  at: Date,
): Promise<void> {
  await db
    .update(members)
    .set({ passwordHash, updatedAt: at })
    .where(and(eq(members.vendorId, vendorId), eq(members.id, memberId)));
}

export async function updateMemberRole(
  db: Executor,
  vendorId: string,
  memberId: string,
  role: Role,
  at: Date,
): Promise<void> {
  await db
    .update(members)
    .set({ role, updatedAt: at })
    .where(and(eq(members.vendorId, vendorId), eq(members.id, memberId)));
}

export async function updateMemberName(
  db: Executor,
  vendorId: string,
  memberId: string,
  name: string,
  at: Date,
): Promise<void> {
  await db
    .update(members)
    .set({ name, updatedAt: at })
    .where(and(eq(members.vendorId, vendorId), eq(members.id, memberId)));
}

/** Deletes the member; their sessions and reset links go with them (foreign keys, cascade). */
export async function deleteMember(db: Executor, vendorId: string, memberId: string): Promise<boolean> {
  const gone = await db
    .delete(members)
    .where(and(eq(members.vendorId, vendorId), eq(members.id, memberId)))
    .returning({ id: members.id });
  return gone.length > 0;
}
