-- webhook_next_due: written by `npm run sql:snapshots` from the code; do not edit.
-- Parameters: $1 at
with recursive pending(webhook_id) as (
      (select webhook_id from webhook_deliveries where status = 'PENDING' order by webhook_id limit 1)
      union all
      select (select d.webhook_id from webhook_deliveries d
              where d.status = 'PENDING' and d.webhook_id > p.webhook_id
              order by d.webhook_id limit 1)
      from pending p where p.webhook_id is not null
    )
    select min(f.at) as at from pending p cross join lateral (
        select d.next_attempt_at as at from webhook_deliveries d
        where d.webhook_id = p.webhook_id and d.status = 'PENDING'
          and d.next_attempt_at > $1::timestamptz
        order by d.webhook_id, d.next_attempt_at limit 1
      ) f
