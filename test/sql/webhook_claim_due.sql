-- webhook_claim_due: written by `npm run sql:snapshots` from the code; do not edit.
-- Parameters: $1 at, $2 at, $3 holder, $4 ownEndpoints, $5 ownPosting, $6 ownReserved, $7 at, $8 failures, $9 cap, $10 at, $11 holder, $12 cap, $13 failures, $14 at, $15 at, $16 at, $17 cap, $18 reserveLimit, $19 limit, $20 cap, $21 holder, $22 leaseEnd, $23 at, $24 limit, $25 reserveLimit, $26 leaseEnd, $27 token, $28 holder, $29 at
with recursive pending(webhook_id) as (
      (select webhook_id from webhook_deliveries where status = 'PENDING' order by webhook_id limit 1)
      union all
      select (select d.webhook_id from webhook_deliveries d
              where d.status = 'PENDING' and d.webhook_id > p.webhook_id
              order by d.webhook_id limit 1)
      from pending p where p.webhook_id is not null
    ), due as (
      select p.webhook_id from pending p
      cross join lateral (
        select 1 from webhook_deliveries d
        where d.webhook_id = p.webhook_id and d.status = 'PENDING'
          and d.next_attempt_at <= $1::timestamptz
        order by d.webhook_id, d.next_attempt_at limit 1
      ) one
    ), locked as (
      select w.id, w.consecutive_failures, w.circuit_open_until, random() as k,
        -- Another dispatcher waits for a slot here: see free.
        coalesce(w.claim_waiting_until > $2::timestamptz
                 and w.claim_waiting_by is distinct from $3::text, false) as contended
      from due join webhooks w on w.id = due.webhook_id
      for no key update of w skip locked
    ), own as (
      -- What this dispatcher holds per endpoint it POSTs to or holds a reserve for: its POSTs in
      -- flight and its reserve (ClaimPolicy.own). Its leases are counted by these, not by the rows.
      select * from unnest($4::text[], $5::int[], $6::int[])
        as o(webhook_id, posting, reserved)
    ), slots as (
      -- n: the free slots; mine: this dispatcher's POSTs in flight there; held: its reserve there
      -- (null: it neither POSTs to the endpoint nor holds a reserve for it).
      select l.id, l.k, l.consecutive_failures, l.circuit_open_until, l.contended,
        (case when l.circuit_open_until > $7::timestamptz then 0
              when l.consecutive_failures >= $8::int then 1
              else $9::int end)
        - l.others - coalesce(o.posting, 0) as n, coalesce(o.posting, 0) as mine, o.reserved as held
      from (
        -- The other holders' leases, counted after the lock with a snapshot of its own
        -- (migrations/0023): a claim of the same endpoint that committed just before this one
        -- took the lock is seen.
        select l.*, webhook_leases_of_others(l.id, $10::timestamptz, $11::text,
                                             $12::int) as others
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
        f.n <= 0 and f.mine = 0 and f.consecutive_failures < $13::int
          and coalesce(f.circuit_open_until <= $14::timestamptz, true) as wants,
        case when f.circuit_open_until > $15::timestamptz then 0 else f.mine + f.s end as allowed,
        case when f.consecutive_failures > 0 or f.circuit_open_until > $16::timestamptz or f.contended
               or (f.s = 0 and f.held is null) then 0
             else least(greatest(0, $17::int - coalesce(f.held, 0)), $18::int)
        end as r
      from (select s.*, greatest(0, least(s.n, $19::int,
              case when s.contended then ($20::int + 1) / 2 - s.mine else s.n end)) as s
            from slots s) f
    ), waiting as (
      update webhooks w set claim_waiting_by = $21::text, claim_waiting_until = $22::timestamptz
      from free f where w.id = f.id and f.wants
      returning w.id
    ), candidates as (
      select x.id, f.id as webhook_id, f.k, f.s,
        row_number() over (partition by f.id order by x.next_attempt_at) as round
      from free f cross join lateral (
        select d.id, d.next_attempt_at from webhook_deliveries d
        where d.webhook_id = f.id and d.status = 'PENDING'
          and d.next_attempt_at <= $23::timestamptz
        order by d.webhook_id, d.next_attempt_at
        limit f.s + f.r
        for update skip locked
      ) x
    ), picked as (
      (select c.id, false as reserve from candidates c where c.round <= c.s
       order by c.round, c.k limit $24::int)
      union all
      (select c.id, true from candidates c where c.round > c.s
       order by c.round, c.k limit $25::int)
    ), claimed as (
      update webhook_deliveries d
      set next_attempt_at = $26::timestamptz, claim_token = $27::text,
        leased_by = $28::text
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
      select min(f.at) as at from pending p cross join lateral (
        select d.next_attempt_at as at from webhook_deliveries d
        where d.webhook_id = p.webhook_id and d.status = 'PENDING'
          and d.next_attempt_at > $29::timestamptz
        order by d.webhook_id, d.next_attempt_at limit 1
      ) f
    ) n
    -- Committed without waiting for the WAL to reach disk: a claim that a crash of PostgreSQL
    -- loses only makes its deliveries due again, to be sent again (at-least-once, CONTRACT 7),
    -- while other dispatchers see it at once either way. Attempt records still wait.
    cross join (select set_config('synchronous_commit', 'off', true)) async
    left join claimed c on true
