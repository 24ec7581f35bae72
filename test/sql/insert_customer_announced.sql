-- insert_customer_announced: written by `npm run sql:snapshots` from the code; do not edit.
-- Parameters: $1 id, $2 vendorId, $3 name, $4 email, $5 phone, $6 phoneE164, $7 weddingDate, $8 language, $9 notes, $10 measurements, $11 preferences, $12 externalId, $13 metadata, $14 at, $15 at, $16 at, $17 eventId, $18 undefined, $19 activityId, $20 actorKind, $21 actorId, $22 actorKind, $23 actorId, $24 actorId, $25 actorId, $26 undefined, $27 undefined
with c as (
      insert into customers (id, vendor_id, name, email, phone, phone_e164, wedding_date, language, notes, measurements,
                             preferences, external_id, metadata, created_at, updated_at)
      select $1::text, $2::text, $3::text, $4::text, $5::text,
             $6::text, $7::date, $8::text, $9::text, $10::jsonb,
             $11::jsonb, $12::text, $13::jsonb, t.at, t.at
      from (select (case when $14::timestamptz < statement_timestamp() - interval '1 hour'
             then $15::timestamptz
             else greatest($16::timestamptz, date_trunc('milliseconds', statement_timestamp())) end) as at) t
      on conflict do nothing
      returning *
    ), ev as (
      insert into events (id, vendor_id, type, data, created_at, dispatched_at, target_webhook_id)
      select s.id, s.vendor_id, s.type, s.data, s.created_at, s.created_at, s.target_webhook_id
      from (select $17::text as id, c.vendor_id::text as vendor_id, $18::text as type,
                    jsonb_build_object('id', c.id, 'name', c.name, 'email', c.email,
    'phone', c.phone, 'weddingDate', c.wedding_date, 'language', c.language, 'notes', c.notes,
    'measurements', c.measurements, 'preferences', c.preferences,
    'externalId', c.external_id, 'metadata', c.metadata,
    'createdAt', to_char(c.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'updatedAt', to_char(c.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) as data, c.created_at as created_at, null::text as target_webhook_id
             from c) s
      returning id, vendor_id, type, created_at, target_webhook_id
    ), d as (
      insert into webhook_deliveries
        (id, webhook_id, vendor_id, event_id, event_type, status, next_attempt_at, created_at, updated_at)
      select 'd' || substr(replace(gen_random_uuid()::text, '-', ''), 1, 24), w.id, ev.vendor_id,
             ev.id, ev.type, x.status, case when x.status = 'PENDING' then least(ev.created_at, now()) end,
             ev.created_at, ev.created_at
      from ev join webhooks w on w.vendor_id = ev.vendor_id
      cross join lateral (
        select case when ev.target_webhook_id is not null or w.status = 'ACTIVE' then 'PENDING'
                    else 'SKIPPED' end as status
      ) x
      -- A webhook subscribes to the event by its name, or to every event with "*" (CONTRACT 12).
      where case when ev.target_webhook_id is null
              then w.events @> jsonb_build_array(ev.type) or w.events @> '["*"]'::jsonb
              else w.id = ev.target_webhook_id end
      returning event_id, status
    ), act as (
      insert into activity (id, vendor_id, at, actor_kind, actor_id, actor_name, action, subject_id, detail)
      select $19::text, c.vendor_id::text, c.created_at, $20::text, $21::text,
             case $22::text
      when 'api_key' then (select k.name from api_keys k where k.id = $23::text and k.vendor_id = c.vendor_id::text)
      when 'oauth_app' then (select a.name from applications a where a.client_id = $24::text)
      when 'person' then (select coalesce(nullif(m.name, ''), m.email) from members m where m.id = $25::text and m.vendor_id = c.vendor_id::text)
    end,
             $26::text, c.id::text, null::jsonb
      from c
    )
    select c.measurements::text as measurements, c.preferences::text as preferences,
           c.metadata::text as metadata,
           to_char(c.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at, (select pg_notify($27, q.event_id)
  from (select d.event_id from d where d.status = 'PENDING' limit 1) q) as notified
    from c
