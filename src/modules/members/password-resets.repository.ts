import { and, eq, gt, isNull, sql } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { queryRows } from "../../db/query-rows.ts";
import { passwordResets } from "../../db/schema/index.ts";
import { MAIL_CHANNEL, mailCte } from "../../mail/outbox.repository.ts";

export type PasswordResetRow = typeof passwordResets.$inferSelect;

export async function insertPasswordReset(
  db: Executor,
  row: typeof passwordResets.$inferInsert,
): Promise<void> {
  await db.insert(passwordResets).values(row);
}

/** Ends every unused link of the member (a newer link, or a new password, replaces them). */
export async function voidPasswordResetsOfMember(
  db: Executor,
  vendorId: string,
  memberId: string,
  now: Date,
): Promise<void> {
  await db
    .update(passwordResets)
    .set({ usedAt: now })
    .where(
      and(
        eq(passwordResets.vendorId, vendorId),
        eq(passwordResets.memberId, memberId),
        isNull(passwordResets.usedAt),
      ),
    );
}

/** The live (unused, unexpired) link with this token hash, or undefined. */
export async function findLivePasswordReset(
  db: Executor,
  tokenHash: string,
  now: Date,
): Promise<PasswordResetRow | undefined> {
  const [row] = await db
    .select()
    .from(passwordResets)
    .where(
      and(
        eq(passwordResets.tokenHash, tokenHash),
        isNull(passwordResets.usedAt),
        gt(passwordResets.expiresAt, now),
      ),
    )
    .limit(1);
  return row;
}

/**
 * Marks the link used, in one statement that also checks it is still live: of two concurrent
 * uses exactly one gets the member back.
 */
export async function consumePasswordReset(
  db: Executor,
  tokenHash: string,
  now: Date,
): Promise<{ vendorId: string; memberId: string } | undefined> {
  const [row] = await db
    .update(passwordResets)
    .set({ usedAt: now })
    .where(
      and(
        eq(passwordResets.tokenHash, tokenHash),
        isNull(passwordResets.usedAt),
        sql`${passwordResets.expiresAt} > ${now.toISOString()}::timestamptz`,
      ),
    )
    .returning({ vendorId: passwordResets.vendorId, memberId: passwordResets.memberId });
  return row;
}

/**
 * "Forgot password?" in one statement whose text and parameters are the same whether or not
 * `email` is a member's: it finds the member, voids their older links, writes the new link and
 * its mail, and does nothing for an unknown address; it wakes the mail sender and commits without
 * a WAL flush either way. The work thus costs about the same whichever the address (the page
 * answers before it anyway, CONTRACT 10). Returns whether a link was written, which the caller
 * must not tell.
 */
export async function insertPasswordResetByEmail(
  db: Executor,
  p: {
    email: string;
    linkId: string;
    tokenHash: string;
    mailId: string;
    token: string;
    now: Date;
    expiresAt: Date;
  },
): Promise<boolean> {
  const now = sql`${p.now.toISOString()}::timestamptz`;
  const rows = await queryRows<{ written: number }>(
    db,
    sql`with member as (
        select m.id, m.vendor_id, m.email, v.name as shop_name,
          coalesce(m.language, v.language) as language
        from members m join vendors v on v.id = m.vendor_id
        where lower(m.email) = lower(${p.email})
        limit 1
      ), voided as (
        update password_resets set used_at = ${now}
        where member_id in (select id from member) and used_at is null
        returning 1
      ), link as (
        insert into password_resets (id, vendor_id, member_id, token_hash, created_at, expires_at)
        select ${p.linkId}, vendor_id, id, ${p.tokenHash}, ${now}, ${p.expiresAt.toISOString()}::timestamptz
        from member
        returning 1
      ), ${mailCte(
        // To the member's own address as stored, whatever spelling was typed.
        sql`select ${p.mailId}::text as id, vendor_id, null::text as customer_id,
                   null::text as inquiry_id, 'password_reset'::text as kind, email as to_address,
                   jsonb_build_object('shopName', shop_name, 'language', language) as data, ${p.token}::text as secret,
                   null::text as unsubscribe_token_hash, ${now} as created_at
            from member`,
      )}
      -- The sender is woken whether or not a mail was written: a NOTIFY sent only for members
      -- would make their commit the slower one.
      select (select count(*) from link)::int as written, pg_notify(${MAIL_CHANNEL}, '') as mail_notified
      -- Committed without waiting for the WAL to reach the disk, as a statement that writes
      -- nothing commits: that flush made a known address's answer ~4 ms slower on PostgreSQL.
      -- A link a crash of PostgreSQL loses is asked for again (the page says to).
      from (select set_config('synchronous_commit', 'off', true)) async`,
  );
  return (rows[0]?.written ?? 0) > 0;
}
