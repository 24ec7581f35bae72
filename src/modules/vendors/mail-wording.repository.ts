// The shop's own wording of its customer mail (mail_wordings): one row per kind and language.
import { and, eq } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { mailWordings } from "../../db/schema/index.ts";

export type MailWordingRow = typeof mailWordings.$inferSelect;

export async function listMailWordings(db: Executor, vendorId: string): Promise<MailWordingRow[]> {
  return db.select().from(mailWordings).where(eq(mailWordings.vendorId, vendorId));
}

export async function upsertMailWording(
  db: Executor,
  row: {
    vendorId: string;
    kind: string;
    language: string;
    subject: string | null;
    opening: string | null;
    at: Date;
  },
): Promise<void> {
  await db
    .insert(mailWordings)
    .values({
      vendorId: row.vendorId,
      kind: row.kind,
      language: row.language,
      subject: row.subject,
      opening: row.opening,
      updatedAt: row.at,
    })
    .onConflictDoUpdate({
      target: [mailWordings.vendorId, mailWordings.kind, mailWordings.language],
      set: { subject: row.subject, opening: row.opening, updatedAt: row.at },
    });
}

export async function deleteMailWording(
  db: Executor,
  vendorId: string,
  kind: string,
  language: string,
): Promise<void> {
  await db
    .delete(mailWordings)
    .where(
      and(
        eq(mailWordings.vendorId, vendorId),
        eq(mailWordings.kind, kind),
        eq(mailWordings.language, language),
      ),
    );
}
