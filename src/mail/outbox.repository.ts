// Every statement run against the mail outbox (`mails`): the writes enqueue.ts makes (a mail on
// its own, or `mailCte` inside another module's statement) and what the sender and the mail pages
// read and record.
import { type SQL, sql } from "drizzle-orm";
import type { Executor } from "../db/client.ts";
import { queryRows } from "../db/query-rows.ts";
import { type HeldReason, isHeldReason, type MailBudget, UNCONFIRMED_RECHECK_MS } from "./budget.ts";
import { budgetedMailKinds, type MailKind } from "./catalog.ts";
import type { OutboxMail } from "./compose.ts";

/** The channel a written mail NOTIFYs at commit, which the sender LISTENs on. */
export const MAIL_CHANNEL = "vendor_api_mail";

/** Writes one mail, due at once, and NOTIFYs the sender (at commit). `data` is JSON text. */
export async function insertMail(
  tx: Executor,
  mail: {
    id: string;
    vendorId: string | null;
    customerId: string | null;
    inquiryId: string | null;
    kind: MailKind;
    to: string;
    data: string;
    secret: string | null;
    unsubscribeTokenHash: string | null;
    at: string;
  },
): Promise<void> {
  const { id, secret } = mail;
  await tx.execute(
    sql`with ${mailCte(
      sql`select ${id}::text as id, ${mail.vendorId}::text as vendor_id,
                 ${mail.customerId}::text as customer_id, ${mail.inquiryId}::text as inquiry_id,
                 ${mail.kind}::text as kind, ${mail.to}::text as to_address,
                 ${mail.data}::jsonb as data, ${secret}::text as secret,
                 ${mail.unsubscribeTokenHash}::text as unsubscribe_token_hash,
                 ${mail.at}::timestamptz as created_at`,
    )}
    select ${notifyMailWhenAny}`,
  );
}

/**
 * The CTE `m`, which inserts the mails `source` selects (id, vendor_id, customer_id, inquiry_id,
 * kind, to_address, data jsonb, secret, unsubscribe_token_hash, created_at), due at once, or with
 * `scheduled` at the source's `due_at` (a reminder: not sent before it); the statement's select
 * list then carries `notifyMailWhenAny`.
 */
export function mailCte(source: SQL, options: { scheduled?: boolean } = {}): SQL {
  const due = options.scheduled ? sql`greatest(s.due_at, s.created_at)` : sql`s.created_at`;
  return sql`m as (
      insert into mails (id, vendor_id, customer_id, inquiry_id, kind, to_address, data, secret,
                         unsubscribe_token_hash, status, attempts, next_attempt_at, created_at)
      select s.id, s.vendor_id, s.customer_id, s.inquiry_id, s.kind, s.to_address, s.data, s.secret,
             s.unsubscribe_token_hash, 'PENDING', 0, ${due}, s.created_at
      from (${source}) s
      returning id
    )`;
}

/** The select-list item that NOTIFYs the mail sender once (at commit), only when `m` wrote a mail. */
export const notifyMailWhenAny = sql`(select pg_notify(${MAIL_CHANNEL}, '') from (select 1 from m limit 1) q) as mail_notified`;

/**
 * The shop `v`'s contact e-mail when it is an address the shop verified, else null: the shop's
 * own e-mail once its sign-up link came back, its notification e-mail (confirmed by a link, or an
 * owner's sign-in e-mail), or a member's (each accepted a mailed link). The
 * only address a customer mail may name as Reply-To (CONTRACT 12): a contact e-mail typed into
 * Settings proves nothing. One probe of the members' unique e-mail index.
 */
const verifiedReplyTo = sql`case when v.email_confirmed_at is not null and v.contact_email is not null
      and (lower(v.contact_email) = lower(v.email)
           or lower(v.contact_email) = lower(v.notification_email)
           or exists (select 1 from members mm where lower(mm.email) = lower(v.contact_email) and mm.vendor_id = v.id))
      then v.contact_email end`;

/** The shop `v` mails its customer `c` (CONTRACT 10): the setting on, no sandbox, an address, not unsubscribed. */
const customerMayBeMailed = sql`v.customer_mail and v.sandbox_of is null and c.email is not null and c.mail_unsubscribed_at is null`;

/**
 * A `mailCte` source row for a customer mail of `kind`: written only when the shop `v` turned
 * customer mail on and is no sandbox (a test order's customer is never mailed), and the customer
 * `c` has an address and has not unsubscribed, so a shop with
 * the setting off pays no statement of its own. `from` must bring `v` (vendors) and `c`
 * (customers) into scope and end in a WHERE clause; `extra` is the kind's own data (jsonb),
 * merged over the shop's and the customer's (shopName, contactEmail, replyTo, timeZone,
 * customerName, customerEmail), the reader's language (the customer's, else the shop's), the
 * shop's brand, and its own wording of the kind in that language (one primary-key probe of
 * mail_wordings): kept as they are now, so the mail reads as it did when its cause committed.
 * `address` repeats the brand's for appointment mail written before the brand. `dueAt`, when
 * given, is selected as `due_at` (for `mailCte(…, { scheduled: true })`).
 */
export function customerMailRow(
  kind: MailKind,
  p: { id: SQL; token: SQL; tokenHash: SQL; extra: SQL; createdAt: SQL; from: SQL; dueAt?: SQL },
): SQL {
  return sql`select ${p.id}::text as id, v.id as vendor_id, c.id as customer_id, null::text as inquiry_id,
      ${kind}::text as kind, c.email as to_address,
      jsonb_build_object('shopName', v.name, 'contactEmail', v.contact_email, 'replyTo', ${verifiedReplyTo},
                         'timeZone', v.time_zone, 'customerName', c.name, 'customerEmail', c.email,
                         'language', coalesce(c.language, v.language),
                         'brand', jsonb_build_object('logoUrl', v.brand_logo_url, 'accentColor', v.brand_accent_color,
                                                     'address', v.address, 'phone', v.phone, 'signature', v.mail_signature),
                         'wording', (select jsonb_build_object('subject', w.subject, 'opening', w.opening)
                                     from mail_wordings w
                                     where w.vendor_id = v.id and w.kind = ${kind}::text
                                       and w.language = coalesce(c.language, v.language)),
                         'address', v.address)
        || ${p.extra} as data,
      ${p.token}::text as secret, ${p.tokenHash}::text as unsubscribe_token_hash, ${p.createdAt} as created_at
      ${p.dueAt ? sql`, ${p.dueAt} as due_at` : sql``}
    ${p.from} and ${customerMayBeMailed}`;
}

export type CustomerMailBlocker = "customer_mail_off" | "sandbox" | "no_email" | "unsubscribed";

/**
 * Why the vendor's customer gets no customer mail, or undefined when they do (or there is no such
 * customer): the first of the shop's setting, the sandbox, the missing address, the unsubscription;
 * with the shop's language, in which its owner reads why.
 */
export async function customerMailBlocker(
  db: Executor,
  vendorId: string,
  customerId: string,
): Promise<{ reason: CustomerMailBlocker; shopLanguage: string } | undefined> {
  const [row] = await queryRows<{ reason: CustomerMailBlocker | null; language: string }>(
    db,
    sql`select v.language, case
          when not v.customer_mail then 'customer_mail_off'
          when v.sandbox_of is not null then 'sandbox'
          when c.email is null then 'no_email'
          when c.mail_unsubscribed_at is not null then 'unsubscribed'
        end as reason
        from vendors v join customers c on c.vendor_id = v.id
        where v.id = ${vendorId} and c.id = ${customerId}`,
  );
  return row?.reason ? { reason: row.reason, shopLanguage: row.language } : undefined;
}

/**
 * Writes a customer mail of `kind` to the vendor's customer when `customerMailRow`'s conditions
 * hold (one statement either way); `extra` is the kind's own data as JSON text. Returns whether a
 * mail was written.
 */
export async function insertCustomerMail(
  tx: Executor,
  mail: {
    kind: MailKind;
    id: string;
    token: string;
    tokenHash: string;
    extra: string;
    at: string;
    vendorId: string;
    customerId: string;
    /** Not sent before this instant (ISO; a reminder). */
    dueAt?: string | undefined;
  },
): Promise<boolean> {
  const result = (await tx.execute(
    sql`with ${mailCte(
      customerMailRow(mail.kind, {
        id: sql`${mail.id}`,
        token: sql`${mail.token}`,
        tokenHash: sql`${mail.tokenHash}`,
        extra: sql`${mail.extra}::jsonb`,
        createdAt: sql`${mail.at}::timestamptz`,
        from: sql`from vendors v join customers c on c.vendor_id = v.id
                  where v.id = ${mail.vendorId} and c.id = ${mail.customerId}`,
        ...(mail.dueAt ? { dueAt: sql`${mail.dueAt}::timestamptz` } : {}),
      }),
      { scheduled: mail.dueAt !== undefined },
    )}
    select (select count(*) from m)::int as written, ${notifyMailWhenAny}`,
  )) as unknown as { rows: Array<{ written: number }> };
  return (result.rows[0]?.written ?? 0) > 0;
}

/** What a reminder no longer due to be sent is recorded with (FAILED, never sent). */
export const STALE_REMINDER_ERROR = "not sent: the appointment was cancelled, moved or removed since";

/**
 * Whether the row `mails` (unaliased, in the claim) is a reminder its appointment no longer wants
 * (CONTRACT 12): the appointment gone, no longer CONFIRMED, changed since (its sequence is not
 * the one the reminder was scheduled for), moved to another customer, or the customer no longer
 * to be mailed. One probe of the appointments' primary key per due reminder.
 */
const staleReminder = sql`(mails.kind = 'appointment_reminder' and not exists (
      select 1 from appointments a
      join vendors v on v.id = a.vendor_id
      join customers c on c.id = a.customer_id
      where a.id = mails.data->>'appointmentId' and a.vendor_id = mails.vendor_id
        and a.customer_id = mails.customer_id and a.status = 'CONFIRMED'
        and a.sequence = (mails.data->>'sequence')::int and ${customerMayBeMailed}))`;

export interface ClaimedMail extends OutboxMail {
  /** The attempt this claim makes (1 for the first): the claim's token when it records. */
  attempts: number;
}

export interface HeldMail {
  id: string;
  kind: string;
  vendorId: string;
  reason: HeldReason;
  /** FAILED: held past MAIL_HELD_MAX_HOURS and dropped unsent; HELD: looked at again at `until`. */
  status: "HELD" | "FAILED";
  /** It was held already (judged again, still held). */
  heldBefore: boolean;
  until: Date;
}

/**
 * Claims up to `limit` due mails (oldest due first, then oldest written: held mail released
 * together goes in the order it was written) and leases them: their due time moves past
 * `leaseUntil` and their attempt count goes up, in one statement. Other senders skip the locked
 * rows; a sender that dies mid-send leaves its mails due again when the lease ends (a mail may
 * then be sent twice, with the same Message-ID; none is lost).
 *
 * In the same statement, each due mail of a budgeted kind not yet counted is judged against its
 * shop's mail budget (budget.ts): past it, or from an unconfirmed shop, it is HELD (or dropped,
 * when held too long) instead of claimed, and returned among `held`. The budget's counts are one
 * index range of `mails_vendor_queued_idx` (the day's counted mails) per shop in the batch.
 */
export async function claimDueMails(
  db: Executor,
  now: Date,
  limit: number,
  leaseUntil: Date,
  budget: MailBudget,
): Promise<{ claimed: ClaimedMail[]; held: HeldMail[] }> {
  const at = now.getTime();
  const iso = (ms: number) => new Date(ms).toISOString();
  const hourAgo = iso(at - 3_600_000);
  const dayAgo = iso(at - 86_400_000);
  const newSince = iso(at - budget.newShopDays * 86_400_000);
  const dropBefore = iso(at - budget.heldMaxHours * 3_600_000);
  const kinds = sql.join(
    budgetedMailKinds.map((k) => sql`${k}`),
    sql`, `,
  );
  const rows = await queryRows<{
    id: string;
    kind: string;
    vendor_id: string | null;
    to_address: string;
    data: Record<string, unknown> | string;
    secret: string | null;
    created_at: string | Date;
    attempts: number;
    status: string;
    held_reason: string | null;
    next_attempt_at: string | Date;
    was: string;
    stale: boolean;
  }>(
    db,
    sql`with due as (
        select id, vendor_id, kind, next_attempt_at, created_at,
               (vendor_id is not null and queued_at is null and kind in (${kinds})) as budgeted,
               ${staleReminder} as stale
        from mails
        where status in ('PENDING', 'HELD') and next_attempt_at <= ${now.toISOString()}::timestamptz
        order by next_attempt_at, created_at
        limit ${limit}
        for update skip locked
      ),
      counts as (
        -- The times the shop's counted mails of the day were taken, oldest first: the k-th mail
        -- past the budget may go when the k-th of them leaves its window.
        select q.vendor_id,
               array_agg(q.queued_at order by q.queued_at) filter (where q.queued_at > ${hourAgo}::timestamptz) as hour_times,
               array_agg(q.queued_at order by q.queued_at) as day_times
        from mails q
        where q.vendor_id in (select vendor_id from due where budgeted)
          and q.queued_at > ${dayAgo}::timestamptz
        group by q.vendor_id
      ),
      judged as (
        select d.id, d.budgeted, d.stale, v.email_confirmed_at is null as unconfirmed, u.hour_times, u.day_times,
          coalesce(cardinality(u.hour_times), 0) + row_number() over w -
            case when v.created_at > ${newSince}::timestamptz then ${budget.newHour}::int else ${budget.hour}::int end
            as hour_over,
          coalesce(cardinality(u.day_times), 0) + row_number() over w -
            case when v.created_at > ${newSince}::timestamptz then ${budget.newDay}::int else ${budget.day}::int end
            as day_over
        from due d
        left join vendors v on v.id = d.vendor_id
        left join counts u on u.vendor_id = d.vendor_id
        window w as (partition by d.vendor_id, d.budgeted order by d.next_attempt_at, d.created_at, d.id)
      ),
      verdict as (
        select j.id, j.budgeted, j.stale, h.hold, m.status as was,
          (h.hold is not null and m.created_at <= ${dropBefore}::timestamptz) as dropped,
          -- Looked at again when it could go: past the k-th counted mail's window (a mail this
          -- very claim counts leaves it an hour or a day from now), so a long queue of held mail
          -- is not judged again at every freed place.
          case h.hold
            when 'hour' then coalesce(j.hour_times[j.hour_over::int], ${now.toISOString()}::timestamptz) + interval '1 hour'
            when 'day' then coalesce(j.day_times[j.day_over::int], ${now.toISOString()}::timestamptz) + interval '1 day'
            else ${iso(at + UNCONFIRMED_RECHECK_MS)}::timestamptz
          end as until
        from judged j
        cross join lateral (
          select case
            when not j.budgeted or j.stale then null
            when j.unconfirmed then 'unconfirmed'
            when j.hour_over > 0 then 'hour'
            when j.day_over > 0 then 'day'
          end as hold
        ) h
        join mails m on m.id = j.id
      )
      update mails m set
        status = case when x.stale then 'FAILED' when x.hold is null then 'PENDING' when x.dropped then 'FAILED' else 'HELD' end,
        held_reason = x.hold,
        attempts = case when x.hold is null and not x.stale then m.attempts + 1 else m.attempts end,
        queued_at = case when x.hold is null and x.budgeted and not x.stale then ${now.toISOString()}::timestamptz else m.queued_at end,
        next_attempt_at = case when x.stale then m.next_attempt_at when x.hold is null then ${leaseUntil.toISOString()}::timestamptz else x.until end,
        last_error = case when x.stale then ${STALE_REMINDER_ERROR} when x.dropped then 'held too long: not sent' else m.last_error end,
        secret = case when x.dropped or x.stale then null else m.secret end
      from verdict x where m.id = x.id
      returning m.id, m.kind, m.vendor_id, m.to_address, m.data, m.secret, m.created_at, m.attempts,
                m.status, m.held_reason, m.next_attempt_at, x.was, x.stale`,
  );
  const claimed: ClaimedMail[] = [];
  const held: HeldMail[] = [];
  for (const r of rows) {
    if (r.stale) continue;
    if (isHeldReason(r.held_reason) && r.vendor_id !== null && r.status !== "PENDING") {
      held.push({
        id: r.id,
        kind: r.kind,
        vendorId: r.vendor_id,
        reason: r.held_reason,
        status: r.status === "FAILED" ? "FAILED" : "HELD",
        heldBefore: r.was === "HELD",
        until: new Date(r.next_attempt_at),
      });
      continue;
    }
    claimed.push({
      id: r.id,
      kind: r.kind,
      toAddress: r.to_address,
      data: typeof r.data === "string" ? JSON.parse(r.data) : r.data,
      secret: r.secret,
      createdAt: new Date(r.created_at),
      attempts: r.attempts,
    });
  }
  return { claimed, held };
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
  heldReason: string | null;
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
    held_reason: string | null;
    attempts: number;
    last_error: string | null;
    sent_at: string | Date | null;
    created_at: string | Date;
    next_attempt_at: string | Date;
  }>(
    db,
    sql`select id, kind, to_address, data, status, held_reason, attempts, last_error, sent_at, created_at, next_attempt_at
        from mails where vendor_id = ${vendorId}
        order by created_at desc, id desc limit ${limit}`,
  );
  return rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    toAddress: r.to_address,
    data: typeof r.data === "string" ? JSON.parse(r.data) : r.data,
    status: r.status,
    heldReason: r.held_reason,
    attempts: r.attempts,
    lastError: r.last_error,
    sentAt: r.sent_at ? new Date(r.sent_at) : null,
    createdAt: new Date(r.created_at),
    nextAttemptAt: new Date(r.next_attempt_at),
  }));
}

/** How many of the vendor's mails are held now, by reason (the dashboard's summary). */
export async function countHeldMailsOfVendor(
  db: Executor,
  vendorId: string,
): Promise<Array<{ reason: string; count: number }>> {
  const rows = await queryRows<{ reason: string; count: number | string }>(
    db,
    sql`select held_reason as reason, count(*) as count from mails
        where vendor_id = ${vendorId} and status = 'HELD' group by held_reason order by held_reason`,
  );
  return rows.map((r) => ({ reason: r.reason, count: Number(r.count) }));
}
