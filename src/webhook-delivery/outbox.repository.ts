// The dispatcher's queries after the claim (claim.repository.ts): a reserve given back, abandoned
// leases requeued, waits ended, the next due time, retention. Each function is one short
// transaction or statement: nothing here is ever held open across a POST: PGlite runs in the main
// thread and serializes every caller.
import { eq, lt, sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { preparedStatement } from "../db/prepared.ts";
import { queryRows } from "../db/query-rows.ts";
import { events, webhooks } from "../db/schema/index.ts";
import { notifyWhenAny } from "../outbox/outbox-write.repository.ts";
import { type ClaimedDelivery, earliestFutureDue, pendingEndpoints } from "./claim.repository.ts";

/**
 * Gives leased deliveries back to the queue, due at once at their place in it (their creation, as
 * `requeueAbandoned` does; `at` if earlier): a dispatcher's reserve that it will not send (a POST
 * to the endpoint failed, the dispatcher stops, or the lease is too near its end to start a POST).
 * Due at `at`, they would go behind everything queued for the endpoint since their claim.
 * Only rows its own claims still own are touched. Wakes the dispatchers when any
 * came back. Returns how many did.
 */
export async function releaseClaims(
  db: Db,
  claims: readonly Pick<ClaimedDelivery, "id" | "claimToken">[],
  at: Date,
): Promise<number> {
  if (claims.length === 0) return 0;
  const [row] = await releaseStatement(db, {
    ids: `{${claims.map((c) => c.id).join(",")}}`,
    tokens: `{${claims.map((c) => c.claimToken).join(",")}}`,
    at: at.toISOString(),
  });
  return row?.n ?? 0;
}

// Claim tokens are fresh per claim, so a row another claim has taken since matches none of them.
// Each id goes with its own claim's token (pairs, not any id with any token): a row this
// dispatcher's later claim took again, and may be sending, is never released by an older claim.
const releaseStatement = preparedStatement<{ n: number }, "ids" | "tokens" | "at">(
  "webhook_release_claims",
  (p) => sql`with pairs as (
      select * from unnest(${p.ids}::text[], ${p.tokens}::text[]) as t(id, token)
    ), released as (
      update webhook_deliveries d set next_attempt_at = least(d.created_at, ${p.at}::timestamptz),
        claim_token = null,
        leased_by = null
      from pairs
      where d.id = any(array(select id from pairs)) and d.id = pairs.id
        and d.claim_token = pairs.token and d.status = 'PENDING'
      returning d.id
    )
    select (select count(*) from released)::int as n,
      ${notifyWhenAny("released")}`,
);

/**
 * The name a dispatcher of this release gives its leases (`leased_by`): the prefix says it holds
 * the advisory lock of that name for as long as it lives (Database.holdLock), so its leases are
 * abandoned as soon as the lock is gone. A holder without it (a dispatcher of the previous
 * release, during a rolling upgrade) is judged by its leases' end alone.
 */
export const LOCKED_HOLDER_PREFIX = "locked:";

/**
 * Puts back at their place in the queue (due at their creation, where the claim found them) the
 * deliveries leased by a dispatcher that is gone, and returns how many (CONTRACT 7):
 * - leases whose holder's lock is no longer held: its process died (SIGKILL, a lost host), and
 *   PostgreSQL ended its session; found at the next poll instead of a lease later (25 s by
 *   default), during which the dead process's leases held its endpoints' slots and nothing of
 *   theirs went out;
 * - leases that ended unrecorded, whoever held them (a holder without a lock, a process cut off
 *   from the database whose session PostgreSQL has not ended yet).
 * Left due at the lease's end, such a delivery went behind everything queued for its endpoint
 * meanwhile: under a backlog to a slow endpoint (1.2 s per answer, 16 at a time) it was sent
 * minutes after the events that followed it. The claim token stays: the row is only due, and an
 * attempt whose record comes late (its dispatcher alive after all) is still written; a new claim
 * replaces the token, as before. Reads the leases only (webhook_deliveries_leased_idx) and the
 * lock table once.
 */
export async function requeueAbandoned(db: Db, at: Date): Promise<number> {
  const requeued = await queryRows<{ id: string }>(
    db,
    sql`with held as materialized (
        select (l.classid::bigint << 32) | l.objid::bigint as key from pg_locks l
        where l.locktype = 'advisory' and l.granted and l.objsubid = 1
          and l.database = (select oid from pg_database where datname = current_database())
      )
      update webhook_deliveries d set next_attempt_at = d.created_at
      where d.status = 'PENDING' and d.claim_token is not null and d.next_attempt_at > d.created_at
        and (d.next_attempt_at <= ${at.toISOString()}::timestamptz
          or (d.leased_by like ${`${LOCKED_HOLDER_PREFIX}%`}
            and hashtextextended(d.leased_by, 0) not in (select key from held)))
      returning d.id`,
  );
  return requeued.length;
}

/**
 * A dispatcher that stops no longer waits for slots: the others may fill the endpoints it waited
 * for at once, instead of holding to half the cap until its wait ends (claimDue's `contended`).
 */
export async function endWaits(db: Db, holder: string): Promise<void> {
  await db
    .update(webhooks)
    .set({ claimWaitingBy: null, claimWaitingUntil: null })
    .where(eq(webhooks.claimWaitingBy, holder));
}

/**
 * The earliest future due time of a PENDING delivery (a retry, or a lease that ends), so an idle
 * dispatcher sleeps exactly until then. Deliveries already due but held back (their endpoint at
 * its cap or its circuit open) are not counted: a finished attempt or the poll wakes for those.
 */
export async function nextDueAt(db: Db, now: Date): Promise<Date | undefined> {
  const [row] = await nextDueStatement(db, { at: now.toISOString() });
  return row?.at ? new Date(row.at) : undefined;
}

// Per endpoint, as claimDue reads it.
const nextDueStatement = preparedStatement<{ at: string | Date | null }, "at">(
  "webhook_next_due",
  (p) => sql`with recursive ${pendingEndpoints}
    ${earliestFutureDue(p.at)}`,
);

/** Retention: events (and, by cascade, their deliveries and attempts) older than `before`. */
export async function pruneOlderThan(db: Db, before: Date): Promise<number> {
  const deleted = await db.delete(events).where(lt(events.createdAt, before)).returning({ id: events.id });
  return deleted.length;
}
