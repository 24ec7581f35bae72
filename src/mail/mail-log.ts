// What the dashboard shows of a shop's mail: the most recent, each with its subject (rendered
// without its secret), recipient and status (waiting, sent, failed, with attempts and the last
// error), so a shop sees at once when mail is not going out; a mail its budget holds (or held
// until it was dropped) says why (budget.ts).
import type { ServiceContext } from "../context.ts";
import { type HeldReason, isHeldReason } from "./budget.ts";
import { renderMail } from "./compose.ts";
import { countHeldMailsOfVendor, listRecentMails } from "./outbox.repository.ts";

export interface MailLogEntry {
  id: string;
  to: string;
  subject: string;
  status: "PENDING" | "HELD" | "SENT" | "FAILED";
  /** Why a HELD mail waits, or why a FAILED one was dropped unsent. */
  heldReason: HeldReason | null;
  attempts: number;
  lastError: string | null;
  sentAt: Date | null;
  createdAt: Date;
  nextAttemptAt: Date;
}

export async function listRecentMail(
  ctx: ServiceContext,
  vendorId: string,
  publicUrl: string,
  limit = 20,
): Promise<MailLogEntry[]> {
  const rows = await listRecentMails(ctx.db, vendorId, limit);
  return rows.map((row) => {
    let subject: string;
    try {
      subject = renderMail({ ...row, secret: null }, { publicUrl, fromAddress: "", secret: null }).subject;
    } catch {
      subject = `(${row.kind})`;
    }
    return {
      id: row.id,
      to: row.toAddress,
      subject,
      status: row.status as MailLogEntry["status"],
      heldReason: isHeldReason(row.heldReason) ? row.heldReason : null,
      attempts: row.attempts,
      lastError: row.lastError,
      sentAt: row.sentAt,
      createdAt: row.createdAt,
      nextAttemptAt: row.nextAttemptAt,
    };
  });
}

/** How many of the shop's mails its mail budget holds now, by reason (all of them, not the last 20). */
export async function countHeldMail(
  ctx: ServiceContext,
  vendorId: string,
): Promise<Array<{ reason: HeldReason; count: number }>> {
  return (await countHeldMailsOfVendor(ctx.db, vendorId)).filter(
    (r): r is { reason: HeldReason; count: number } => isHeldReason(r.reason),
  );
}
