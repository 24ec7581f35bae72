// Every statement the mail sender and the mail pages run against the outbox (`mails`).
import { sql } from "drizzle-orm";
import { type Executor, queryRows } from "../db/client.ts";
import type { OutboxMail } from "./compose.ts";

export interface ClaimedMail extends OutboxMail {
  /** The attempt this claim makes (1 for the first): the claim's token when it records. */
  attempts: number;
}

/**
 * Claims up to `limit` due mails (oldest due first) and leases them: their due time moves past
 * `leaseUntil` and their attempt count goes up, in one statement. Other senders skip the locked
 * rows; a sender that dies mid-send leaves its mails due again when the lease ends (a mail may
 * then be sent twice, with the same Message-ID; none is lost).
 */
export async function claimDueMails(
  db: Executor,
  now: Date,
  limit: number,
  leaseUntil: Date,
): Promise<ClaimedMail[]> {
  const rows = await queryRows<{
    id: string;
    kind: string;
    to_address: string;
    data: Record<string, unknown> | string;
    secret: string | null;
    created_at: string | Date;
    attempts: number;
  }>(
    db,
    sql`with due as (
        select id from mails
        where status = 'PENDING' and next_attempt_at <= ${now.toISOString()}::timestamptz
        order by next_attempt_at
        limit ${limit}
        for update skip locked
      )
      update mails m set next_attempt_at = ${leaseUntil.toISOString()}::timestamptz, attempts = m.attempts + 1
      from due where m.id = due.id
      returning m.id, m.kind, m.to_address, m.data, m.secret, m.created_at, m.attempts`,
  );
  return rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    toAddress: r.to_address,
    data: typeof r.data === "string" ? JSON.parse(r.data) : r.data,
    secret: r.secret,
    createdAt: new Date(r.created_at),
    attempts: r.attempts,
  }));
}

/** The earliest due time of a pending mail, or undefined when none is pending. */
export async function nextMailDueAt(db: Executor): Promise<Date | undefined> {
  const [row] = await queryRows<{ at: string | Date | null }>(
    db,
    sql`select min(next_attempt_at) as at from mails where status = 'PENDING'`,
  );
  return row?.at ? new Date(row.at) : undefined;
}

/** Records a sent mail; a claim that is no longer the row's latest (its attempts moved on) writes nothing. */
export async function recordMailSent(db: Executor, mail: ClaimedMail, at: Date): Promise<void> {
  await db.execute(
    sql`update mails set status = 'SENT', sent_at = ${at.toISOString()}::timestamptz, last_error = null, secret = null
        where id = ${mail.id} and attempts = ${mail.attempts} and status = 'PENDING'`,
  );
}

/** Records a failed attempt: due again at `retryAt`, or FAILED (its secret cleared) when undefined. */
export async function recordMailFailure(
  db: Executor,
  mail: ClaimedMail,
  error: string,
  retryAt: Date | undefined,
): Promise<void> {
  await db.execute(
    retryAt
      ? sql`update mails set next_attempt_at = ${retryAt.toISOString()}::timestamptz, last_error = ${error}
            where id = ${mail.id} and attempts = ${mail.attempts} and status = 'PENDING'`
      : sql`update mails set status = 'FAILED', last_error = ${error}, secret = null
            where id = ${mail.id} and attempts = ${mail.attempts} and status = 'PENDING'`,
  );
}

export interface MailListRow {
  id: string;
  kind: string;
  toAddress: string;
  data: Record<string, unknown>;
  status: string;
  attempts: number;
  lastError: string | null;
  sentAt: Date | null;
  createdAt: Date;
  nextAttemptAt: Date;
}

/** The vendor's most recent mails, newest first (the dashboard's list). */
export async function listRecentMails(db: Executor, vendorId: string, limit: number): Promise<MailListRow[]> {
  const rows = await queryRows<{
    id: string;
    kind: string;
    to_address: string;
    data: Record<string, unknown> | string;
    status: string;
    attempts: number;
    last_error: string | null;
    sent_at: string | Date | null;
    created_at: string | Date;
    next_attempt_at: string | Date;
  }>(
    db,
    sql`select id, kind, to_address, data, status, attempts, last_error, sent_at, created_at, next_attempt_at
        from mails where vendor_id = ${vendorId}
        order by created_at desc, id desc limit ${limit}`,
  );
  return rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    toAddress: r.to_address,
    data: typeof r.data === "string" ? JSON.parse(r.data) : r.data,
    status: r.status,
    attempts: r.attempts,
    lastError: r.last_error,
    sentAt: r.sent_at ? new Date(r.sent_at) : null,
    createdAt: new Date(r.created_at),
    nextAttemptAt: new Date(r.next_attempt_at),
  }));
}
