// The claim: one statement per dispatcher turn that finds the endpoints with deliveries due, works
// out each one's free slots under its lock, deals the dispatcher's capacity between them and leases
// what it picked (README.md, section 3). The statement is here alone, with what it takes and
// returns; what happens to a lease afterwards (given back, requeued, recorded) is
// outbox.repository.ts's and the attempts' repositories'.
import { type Placeholder, sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { preparedStatement } from "../db/prepared.ts";
import { newId } from "../lib/ids.ts";

export interface ClaimedDelivery {
  id: string;
  claimToken: string;
  attemptCount: number;
  eventId: string;
  eventType: string;
  data: Record<string, unknown>;
  webhookId: string;
  url: string;
  webhookStatus: string;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  /** For the commit→delivery latency metric and the attempt's log line. */
  eventCreatedAt: Date;
  vendorId: string;
}

export interface ClaimResult {
  /** Deliveries to send now, one endpoint slot each. */
  claims: ClaimedDelivery[];
  /** Deliveries leased in reserve (ClaimPolicy.reserveLimit), to send when a slot is handed on. */
  reserve: ClaimedDelivery[];
  /**
   * For each endpoint with deliveries in `claims` or `reserve`: how many POSTs this dispatcher may
   * have in flight to it now: its POSTs in flight when it asked (`ClaimPolicy.own`) and the
   * endpoint's free slots; whichever of its POSTs ended or were handed on while the claim ran, it
   * may fill up to that many, with `claims` and then `reserve`.
   */
  allowed: Map<string, number>;
  /** The earliest future due time of a PENDING delivery (a retry, or a lease that ends). */
  nextDueAt: Date | undefined;
  /**
   * Whether deliveries due now were left unclaimed (caps, the limit, an endpoint another claim
   * held): a finished attempt may free a slot for them, so it should wake the dispatcher.
   */
  heldBack: boolean;
  /**
   * The endpoints this claim locked where another dispatcher waits for a slot (docs/decisions/0008):
   * this one got no reserve there, and gives back what it holds and hands no slot on, so the
   * slots of its POSTs that end go to the one waiting.
   */
  contended: Set<string>;
}

/** What a dispatcher holds at one endpoint, as its next claim must know it (`ClaimPolicy.own`). */
export interface OwnAtEndpoint {
  /** Its POSTs in flight there: launched, not answered 2xx yet (a failure counts until recorded). */
  posting: number;
  /** Its deliveries in reserve there: leased, not in flight. */
  reserved: number;
}

export interface ClaimPolicy {
  /**
   * The dispatcher that claims: its leases name it (`leased_by`), and the claim counts them by
   * `own` instead of by the rows, so a name belongs to one scheduler's state (dispatcher.ts draws
   * it with the scheduler): a name reused by a dispatcher that forgot its deliveries would let it
   * take its own leases for free slots. Unnamed, a claim is named by its token and every lease is
   * another's (as for a claim by a process that holds nothing).
   */
  holder?: string;
  /** The most deliveries to claim (the dispatcher's free capacity). */
  limit: number;
  /** Attempts one endpoint may have in flight while its circuit is closed. */
  endpointConcurrency: number;
  /** Consecutive failures after which a closed-again circuit allows one probe at a time. */
  breakerFailures: number;
  /**
   * Per endpoint `holder` POSTs to or holds a reserve for, what it holds there. An endpoint's
   * attempts in flight are the leases of every other holder (each dispatcher's reserve and sent
   * deliveries too: it cannot tell them apart, which errs on the safe side) plus this dispatcher's
   * `posting` there. Its own reserve is not in flight, and neither is a delivery whose POST
   * answered 2xx and whose record is to come (`sent`): it keeps its lease, so no one else takes
   * it, but its slot is reused as soon as its POST ends, not a record's commit later.
   */
  own?: Readonly<Record<string, OwnAtEndpoint>>;
  /**
   * The most deliveries to lease in reserve (0 by default: none). An endpoint in good health
   * (circuit closed, no failure in a row) that this claim gives a slot, or that is in `own` (a
   * reserve needs a POST of this dispatcher's own to hand it a slot), gets up to its cap of its
   * next due deliveries leased beyond its free slots, less its reserve in `own`. They are not in
   * flight: the dispatcher sends one only when a POST to the same endpoint succeeds and hands its
   * slot on, so the endpoint's POSTs in flight never exceed the cap, while a backlog waits for no
   * claim between one POST and the next. Other dispatchers count them as in flight.
   */
  reserveLimit?: number;
}

/**
 * One statement per dispatcher turn: finds the endpoints with deliveries due, works out their
 * slots as `endpointSlots` (circuit-breaker.ts) does, deals the capacity as `shareClaims`
 * (fair-claims.ts) does, and claims. The rules, step by step:
 * - the endpoints with deliveries due are found by a skip scan of the PENDING index (one probe
 *   per endpoint with pending deliveries, whatever the backlog's size);
 * - each endpoint's webhook row is locked SKIP LOCKED (one claim per endpoint at a time, across
 *   dispatchers), and under that lock its slots are worked out as `endpointSlots` does (none
 *   while the circuit is open, one probe when half-open, else the concurrency cap) less the
 *   attempts in flight: the other holders' leases, counted with a snapshot taken after the lock
 *   (migrations/0023), and this dispatcher's POSTs there (`own`);
 * - each endpoint's oldest due deliveries up to its free slots, and then its reserve, are locked
 *   SKIP LOCKED, and the capacity is dealt as `shareClaims` deals it: round by round (each
 *   endpoint's first, then second, ...), in a random order of endpoints within a round; reserves
 *   are dealt the same way out of `reserveLimit`, after every slot;
 * - the picked deliveries are leased (due time past the lease, a fresh claim token).
 */
export async function claimDue(
  db: Db,
  now: Date,
  leaseMs: number,
  policy: ClaimPolicy,
): Promise<ClaimResult> {
  const reserveLimit = policy.reserveLimit ?? 0;
  if (policy.limit <= 0 && reserveLimit <= 0) {
    return {
      claims: [],
      reserve: [],
      allowed: new Map(),
      nextDueAt: undefined,
      heldBack: true,
      contended: new Set(),
    };
  }
  const token = newId();
  const own = Object.entries(policy.own ?? {});
  const rows = await claimStatement(db, {
    at: now.toISOString(),
    leaseEnd: new Date(now.getTime() + leaseMs).toISOString(),
    token,
    holder: policy.holder ?? token,
    limit: Math.max(0, policy.limit),
    cap: policy.endpointConcurrency,
    failures: policy.breakerFailures,
    // Postgres arrays, one element per endpoint, in the same order.
    ownEndpoints: textArray(own.map(([webhookId]) => webhookId)),
    ownPosting: `{${own.map(([, o]) => o.posting).join(",")}}`,
    ownReserved: `{${own.map(([, o]) => o.reserved).join(",")}}`,
    reserveLimit,
  });
  const nextDue = rows[0]?.nextDue;
  const claims: ClaimedDelivery[] = [];
  const reserve: ClaimedDelivery[] = [];
  const allowed = new Map<string, number>();
  for (const {
    nextDue: _,
    heldBack: __,
    contended: ___,
    reserve: inReserve,
    allowed: mayPost,
    ...r
  } of rows) {
    if (r.id === null) continue;
    allowed.set(r.webhookId, mayPost ?? 0);
    (inReserve ? reserve : claims).push({
      ...r,
      id: r.id as string,
      data: typeof r.data === "string" ? JSON.parse(r.data) : r.data,
      previousSecretExpiresAt:
        r.previousSecretExpiresAt === null ? null : new Date(r.previousSecretExpiresAt),
      eventCreatedAt: new Date(r.eventCreatedAt),
      claimToken: token,
    });
  }
  return {
    claims,
    reserve,
    allowed,
    nextDueAt: nextDue ? new Date(nextDue) : undefined,
    heldBack: rows[0]?.heldBack ?? true,
    contended: new Set(JSON.parse(rows[0]?.contended ?? "[]") as string[]),
  };
}

/** A Postgres text[] literal: each element quoted, so any id reads back as itself. */
function textArray(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replace(/["\\]/g, "\\$&")}"`).join(",")}}`;
}

// The endpoints with PENDING deliveries, found by a skip scan of webhook_deliveries_endpoint_due_idx:
// one probe per endpoint, whatever the backlog's size. A recursive CTE named `pending`.
export const pendingEndpoints = sql`pending(webhook_id) as (
      (select webhook_id from webhook_deliveries where status = 'PENDING' order by webhook_id limit 1)
      union all
      select (select d.webhook_id from webhook_deliveries d
              where d.status = 'PENDING' and d.webhook_id > p.webhook_id
              order by d.webhook_id limit 1)
      from pending p where p.webhook_id is not null
    )`;

/** The earliest due time after `at` (a retry, or a lease that ends), read per pending endpoint. */
export const earliestFutureDue = (
  at: Placeholder,
) => sql`select min(f.at) as at from pending p cross join lateral (
        select d.next_attempt_at as at from webhook_deliveries d
        where d.webhook_id = p.webhook_id and d.status = 'PENDING'
          and d.next_attempt_at > ${at}::timestamptz
        order by d.webhook_id, d.next_attempt_at limit 1
      ) f`;

// Every index read below names the endpoint and orders by (webhook_id, next_attempt_at), so each
// is a short range of webhook_deliveries_endpoint_due_idx, never a scan of the whole backlog.
// There is deliberately no index on next_attempt_at alone: the planner took one for these reads
// (webhook_id as a filter), and each then walked every other endpoint's due or leased rows
// (test/webhooks/claim-plan.test.ts).
export const claimStatement = preparedStatement<
  Omit<ClaimedDelivery, "claimToken" | "id"> & {
    id: string | null;
    nextDue: string | Date | null;
    heldBack: boolean;
    reserve: boolean | null;
    allowed: number | null;
    contended: string | null;
  },
  | "at"
  | "leaseEnd"
  | "token"
  | "holder"
  | "limit"
  | "cap"
  | "failures"
  | "ownEndpoints"
  | "ownPosting"
  | "ownReserved"
  | "reserveLimit"
>(
  "webhook_claim_due",
  (p) => sql`with recursive ${pendingEndpoints}, due as (
      select p.webhook_id from pending p
      cross join lateral (
        select 1 from webhook_deliveries d
        where d.webhook_id = p.webhook_id and d.status = 'PENDING'
          and d.next_attempt_at <= ${p.at}::timestamptz
        order by d.webhook_id, d.next_attempt_at limit 1
      ) one
    ), locked as (
      select w.id, w.consecutive_failures, w.circuit_open_until, random() as k,
        -- Another dispatcher waits for a slot here: see free.
        coalesce(w.claim_waiting_until > ${p.at}::timestamptz
                 and w.claim_waiting_by is distinct from ${p.holder}::text, false) as contended
      from due join webhooks w on w.id = due.webhook_id
      for no key update of w skip locked
    ), own as (
      -- What this dispatcher holds per endpoint it POSTs to or holds a reserve for: its POSTs in
      -- flight and its reserve (ClaimPolicy.own). Its leases are counted by these, not by the rows.
      select * from unnest(${p.ownEndpoints}::text[], ${p.ownPosting}::int[], ${p.ownReserved}::int[])
        as o(webhook_id, posting, reserved)
    ), slots as (
      -- n: the free slots; mine: this dispatcher's POSTs in flight there; held: its reserve there
      -- (null: it neither POSTs to the endpoint nor holds a reserve for it).
      select l.id, l.k, l.consecutive_failures, l.circuit_open_until, l.contended,
        (case when l.circuit_open_until > ${p.at}::timestamptz then 0
              when l.consecutive_failures >= ${p.failures}::int then 1
              else ${p.cap}::int end)
        - l.others - coalesce(o.posting, 0) as n, coalesce(o.posting, 0) as mine, o.reserved as held
      from (
        -- The other holders' leases, counted after the lock with a snapshot of its own
        -- (migrations/0023): a claim of the same endpoint that committed just before this one
        -- took the lock is seen.
        select l.*, webhook_leases_of_others(l.id, ${p.at}::timestamptz, ${p.holder}::text,
                                             ${p.cap}::int) as others
        from locked l
      ) l
      left join own o on o.webhook_id = l.id
    ), free as (
      -- s: deliveries to send now; r: to lease in reserve, for an endpoint in good health that
      -- this dispatcher sends to (it has a POST in flight there, or gets a slot now); allowed: how
      -- many POSTs this dispatcher may have in flight there (its own the count saw, and the slots
      -- it may take now), none while the circuit is open. While another dispatcher waits for a
      -- slot (contended), this one keeps no reserve there and refills only up to half the cap, so
      -- the slots of its POSTs that end go to the one waiting; wants: this claim found the
      -- endpoint's every slot held by other dispatchers, and says it waits (waiting).
      select f.id, f.k, f.s, f.contended,
        f.n <= 0 and f.mine = 0 and f.consecutive_failures < ${p.failures}::int
          and coalesce(f.circuit_open_until <= ${p.at}::timestamptz, true) as wants,
        case when f.circuit_open_until > ${p.at}::timestamptz then 0 else f.mine + f.s end as allowed,
        case when f.consecutive_failures > 0 or f.circuit_open_until > ${p.at}::timestamptz or f.contended
               or (f.s = 0 and f.held is null) then 0
             else least(greatest(0, ${p.cap}::int - coalesce(f.held, 0)), ${p.reserveLimit}::int)
        end as r
      from (select s.*, greatest(0, least(s.n, ${p.limit}::int,
              case when s.contended then (${p.cap}::int + 1) / 2 - s.mine else s.n end)) as s
            from slots s) f
    ), waiting as (
      update webhooks w set claim_waiting_by = ${p.holder}::text, claim_waiting_until = ${p.leaseEnd}::timestamptz
      from free f where w.id = f.id and f.wants
      returning w.id
    ), candidates as (
      select x.id, f.id as webhook_id, f.k, f.s,
        row_number() over (partition by f.id order by x.next_attempt_at) as round
      from free f cross join lateral (
        select d.id, d.next_attempt_at from webhook_deliveries d
        where d.webhook_id = f.id and d.status = 'PENDING'
          and d.next_attempt_at <= ${p.at}::timestamptz
        order by d.webhook_id, d.next_attempt_at
        limit f.s + f.r
        for update skip locked
      ) x
    ), picked as (
      (select c.id, false as reserve from candidates c where c.round <= c.s
       order by c.round, c.k limit ${p.limit}::int)
      union all
      (select c.id, true from candidates c where c.round > c.s
       order by c.round, c.k limit ${p.reserveLimit}::int)
    ), claimed as (
      update webhook_deliveries d
      set next_attempt_at = ${p.leaseEnd}::timestamptz, claim_token = ${p.token}::text,
        leased_by = ${p.holder}::text
      from picked, webhooks w, events e
      -- The ids as an array too, so even a generic plan reads them by primary key.
      where d.id = any(array(select id from picked))
        and d.id = picked.id and w.id = d.webhook_id and e.id = d.event_id
      returning d.id, d.attempt_count as "attemptCount", d.event_id as "eventId",
        d.event_type as "eventType", e.data, w.id as "webhookId", w.url, w.status as "webhookStatus",
        w.secret, w.previous_secret as "previousSecret",
        w.previous_secret_expires_at as "previousSecretExpiresAt",
        e.created_at as "eventCreatedAt", w.vendor_id as "vendorId", picked.reserve
    )
    -- The earliest future due time too (what nextDueAt reads), so an idle dispatcher knows how
    -- long to sleep without another round trip: one row even when nothing was claimed.
    -- And whether anything due was left: an endpoint another claim held (SKIP LOCKED), one at
    -- its cap or with more due than its free slots and reserve, or more candidates than the limits.
    select c.*, (select f.allowed from free f where f.id = c."webhookId") as "allowed", n.at as "nextDue",
      (select coalesce(json_agg(f.id), '[]'::json)::text from free f where f.contended) as "contended",
      (select count(*) from due) > (select count(*) from locked)
      or (select count(*) from candidates) > (select count(*) from picked)
      or exists (select 1 from free f
                 where f.s + f.r <= (select count(*) from candidates x where x.webhook_id = f.id)) as "heldBack"
    from (
      ${earliestFutureDue(p.at)}
    ) n
    -- Committed without waiting for the WAL to reach disk: a claim that a crash of PostgreSQL
    -- loses only makes its deliveries due again, to be sent again (at-least-once, CONTRACT 7),
    -- while other dispatchers see it at once either way. Attempt records still wait.
    cross join (select set_config('synchronous_commit', 'off', true)) async
    left join claimed c on true`,
);
