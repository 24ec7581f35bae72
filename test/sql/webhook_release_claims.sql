-- webhook_release_claims: written by `npm run sql:snapshots` from the code; do not edit.
-- Parameters: $1 ids, $2 tokens, $3 at, $4 undefined
with pairs as (
      select * from unnest($1::text[], $2::text[]) as t(id, token)
    ), released as (
      update webhook_deliveries d set next_attempt_at = least(d.created_at, $3::timestamptz),
        claim_token = null,
        leased_by = null
      from pairs
      where d.id = any(array(select id from pairs)) and d.id = pairs.id
        and d.claim_token = pairs.token and d.status = 'PENDING'
      returning d.id
    )
    select (select count(*) from released)::int as n,
      (select pg_notify($4, '') from (select * from released limit 1) q) as notified
