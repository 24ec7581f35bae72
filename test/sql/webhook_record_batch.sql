-- webhook_record_batch: written by `npm run sql:snapshots` from the code; do not edit.
-- Parameters: $1 rows, $2 undefined, $3 undefined
with r as (
          select * from json_to_recordset($1::json) as r(
            id text, token text, vendor text, webhook text, attempt int, status text,
            next timestamptz, code int, err text, body text, dur int, at timestamptz, aid text)
        ), d as (
          update webhook_deliveries wd set
            status = r.status,
            attempt_count = r.attempt,
            next_attempt_at = r.next,
            claim_token = null,
            leased_by = null,
            last_status_code = r.code,
            last_error = r.err,
            completed_at = case when r.status = 'PENDING' then null else r.at end,
            updated_at = r.at
          from r
          -- The ids as an array too: a prepared statement's generic plan cannot see how few rows
          -- r holds and would scan the whole table for the join; = any() reads the primary key.
          where wd.id = any(array(select r.id from r))
            and wd.id = r.id and wd.claim_token = r.token and wd.vendor_id = r.vendor
          returning wd.id
        ), a as (
          insert into webhook_attempts (id, delivery_id, attempt, status_code, duration_ms, error, response_body, created_at)
          select r.aid, r.id, r.attempt, r.code, r.dur, r.err, r.body, r.at from r join d on d.id = r.id
        ), ok as (
          select r.webhook, r.vendor, max(r.at) as at from r join d on d.id = r.id
          where r.status = 'SUCCEEDED'
          group by r.webhook, r.vendor
        ), lk as (
          select w.id, w.vendor_id, ok.at, w.failing_notified_at as notified from webhooks w
          join ok on ok.webhook = w.id and ok.vendor = w.vendor_id
          where w.consecutive_failures > 0 or w.last_success_at is null
            or w.last_success_at < ok.at - interval '1 minute'
            or w.failing_notified_at is not null
          order by w.id
          for no key update of w
        ), w as (
          update webhooks set
            last_success_at = case when webhooks.last_success_at is null
              or webhooks.last_success_at < lk.at - interval '1 minute' then lk.at
              else webhooks.last_success_at end,
            consecutive_failures = 0, failing_since = null, circuit_open_until = null,
            failing_notified_at = null
          from lk
          where webhooks.id = lk.id and webhooks.vendor_id = lk.vendor_id
          returning webhooks.id, webhooks.vendor_id, webhooks.url, lk.notified, lk.at
        ), m as (
      insert into mails (id, vendor_id, customer_id, inquiry_id, kind, to_address, data, secret,
                         unsubscribe_token_hash, status, attempts, next_attempt_at, created_at)
      select s.id, s.vendor_id, s.customer_id, s.inquiry_id, s.kind, s.to_address, s.data, s.secret,
             s.unsubscribe_token_hash, 'PENDING', 0, s.created_at, s.created_at
      from (select 'm' || substr(replace(gen_random_uuid()::text, '-', ''), 1, 24) as id,
           v.id as vendor_id, null::text as customer_id, null::text as inquiry_id,
           'webhook_recovered'::text as kind, coalesce(v.notification_email, v.email) as to_address,
           jsonb_build_object('shopName', v.name, 'webhookId', w.id, 'url', w.url,
             'language', 'en', 'timeZone', v.time_zone) as data,
           null::text as secret, null::text as unsubscribe_token_hash, w.at as created_at
         from w join vendors v on v.id = w.vendor_id
         where w.notified is not null and v.sandbox_of is null) s
      returning id
    ), waited as (
          -- A slot of an endpoint another dispatcher waits for (claim.repository.ts, contended) is
          -- free now: the dispatchers are woken, so the waiting one claims it at once rather than
          -- at its next poll (docs/decisions/0008).
          select 1 from webhooks wh
          where wh.id = any(array(select distinct r.webhook from r join d on d.id = r.id))
            and wh.claim_waiting_until > now()
        )
        select d.id, (select pg_notify($2, '') from (select * from waited limit 1) q) as notified, (select pg_notify($3, '') from (select 1 from m limit 1) q) as mail_notified from d
