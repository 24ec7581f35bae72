-- insert_order_for_customer: written by `npm run sql:snapshots` from the code; do not edit.
-- Parameters: $1 at, $2 at, $3 at, $4 vendorId, $5 linkId, $6 linkId, $7 customerEmail, $8 vendorId, $9 customerEmail, $10 linkId, $11 customerPhoneE164, $12 vendorId, $13 customerPhoneE164, $14 customerEmail, $15 customerId, $16 vendorId, $17 customerName, $18 customerEmail, $19 customerPhoneNew, $20 customerPhoneE164, $21 customerWeddingDate, $22 linkId, $23 vendorId, $24 orderId, $25 vendorId, $26 type, $27 model, $28 size, $29 color, $30 description, $31 specialRequests, $32 customerPhone, $33 weddingDate, $34 trackingToken, $35 externalId, $36 metadata, $37 customerEventId, $38 vendorId, $39 undefined, $40 orderEventId, $41 vendorId, $42 undefined, $43 activityId, $44 actorKind, $45 actorId, $46 actorKind, $47 actorId, $48 actorId, $49 actorId, $50 undefined, $51 undefined
with t as (select (case when $1::timestamptz < statement_timestamp() - interval '1 hour'
             then $2::timestamptz
             else greatest($3::timestamptz, date_trunc('milliseconds', statement_timestamp())) end) as at), found as (
      (select c.id, c.name, c.email from customers c
       where c.vendor_id = $4::text and c.id = $5::text)
      union all
      (select c.id, c.name, c.email from customers c
       where $6::text is null and $7::text is not null
         and c.vendor_id = $8::text and lower(c.email) = lower($9::text)
       limit 1)
      union all
      (select c.id, c.name, c.email from customers c
       where $10::text is null and $11::text is not null
         and c.vendor_id = $12::text and c.phone_e164 = $13::text
         and (c.email is null or $14::text is null)
       order by c.created_at, c.id
       limit 1)
      limit 1
    ), nc as (
      insert into customers (id, vendor_id, name, email, phone, phone_e164, wedding_date, created_at, updated_at)
      select $15::text, $16::text, $17::text, $18::text,
             $19::text, $20::text, $21::date, (select at from t), (select at from t)
      where $22::text is null and not exists (select 1 from found)
      on conflict do nothing
      returning *
    ), c as (
      select id, name, email from nc union all select id, name, email from found
    ), num as (
      update vendors set last_order_number = last_order_number + 1
      where id = $23::text and exists (select 1 from c)
      returning last_order_number as number
    ), o as (
      insert into orders (id, vendor_id, customer_id, number, type, status, model, size, color, description,
                          special_requests, customer_phone, wedding_date, tracking_token, external_id, metadata,
                          created_at, updated_at)
      select $24::text, $25::text, c.id, num.number, $26::text, 'ORDERED', $27::text,
             $28::text, $29::text, $30::text, $31::text,
             $32::text, $33::date, $34::text, $35::text,
             $36::jsonb, (select at from t), (select at from t)
      from c cross join num
      returning *
    ), h as (
      insert into order_updates (order_id, status, message, created_at)
      select o.id, 'ORDERED', 'Order created', (select at from t) from o
      returning order_id, seq, status, message, image_url, created_at
    ), oj as (
      select ('{"id":'::text || coalesce(to_json(o.id)::text, 'null') || ',"number":'::text || coalesce(to_json(o.number)::text, 'null') || ',"type":'::text || coalesce(to_json(o.type)::text, 'null') || ',"status":'::text || coalesce(to_json(o.status)::text, 'null') || ',"model":'::text || coalesce(to_json(o.model)::text, 'null') || ',"size":'::text || coalesce(to_json(o.size)::text, 'null') || ',"color":'::text || coalesce(to_json(o.color)::text, 'null') || ',"description":'::text || coalesce(to_json(o.description)::text, 'null') || ',"specialRequests":'::text || coalesce(to_json(o.special_requests)::text, 'null') || ',"customerId":'::text || coalesce(to_json(o.customer_id)::text, 'null') || ',"customer":'::text || coalesce(case when c.id is null then null else ('{"name":'::text || coalesce(to_json(c.name)::text, 'null') || ',"email":'::text || coalesce(to_json(c.email)::text, 'null') || '}') end, 'null') || ',"externalId":'::text || coalesce(to_json(o.external_id)::text, 'null') || ',"metadata":'::text || coalesce(coalesce(o.metadata::text, '{}'), 'null') || ',"updates":'::text || coalesce(coalesce((select '[' || string_agg(('{"status":'::text || coalesce(to_json(u.status)::text, 'null') || ',"message":'::text || coalesce(to_json(u.message)::text, 'null') || ',"imageUrl":'::text || coalesce(to_json(u.image_url)::text, 'null') || ',"createdAt":'::text || coalesce(to_json(to_char(u.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text, 'null') || '}'), ',' order by u.seq) || ']' from h u where u.order_id = o.id), '[]'), 'null') || ',"createdAt":'::text || coalesce(to_json(to_char(o.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text, 'null') || ',"updatedAt":'::text || coalesce(to_json(to_char(o.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text, 'null') || '}') as json from o join c on c.id = o.customer_id
    ), ev as (
      insert into events (id, vendor_id, type, data, created_at, dispatched_at, target_webhook_id)
      select s.id, s.vendor_id, s.type, s.data, s.created_at, s.created_at, s.target_webhook_id
      from (select $37::text as id, $38::text as vendor_id, $39::text as type,
                    jsonb_build_object('id', nc.id, 'name', nc.name, 'email', nc.email,
    'phone', nc.phone, 'weddingDate', nc.wedding_date, 'notes', nc.notes,
    'measurements', nc.measurements, 'preferences', nc.preferences,
    'createdAt', to_char(nc.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'updatedAt', to_char(nc.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) as data, (select at from t) as created_at, null::text as target_webhook_id
             from nc
      union all
      select $40::text as id, $41::text as vendor_id, $42::text as type,
                    oj.json::jsonb as data, (select at from t) as created_at, null::text as target_webhook_id
             from oj) s
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
      where case when ev.target_webhook_id is null
              then w.events @> jsonb_build_array(ev.type)
              else w.id = ev.target_webhook_id end
      returning event_id, status
    ), act as (
      insert into activity (id, vendor_id, at, actor_kind, actor_id, actor_name, action, subject_id, detail)
      select $43::text, o.vendor_id::text, o.created_at, $44::text, $45::text,
             case $46::text
      when 'api_key' then (select k.name from api_keys k where k.id = $47::text and k.vendor_id = o.vendor_id::text)
      when 'oauth_app' then (select a.name from applications a where a.client_id = $48::text)
      when 'person' then (select coalesce(nullif(m.name, ''), m.email) from members m where m.id = $49::text and m.vendor_id = o.vendor_id::text)
    end,
             $50::text, o.id::text, jsonb_build_object('number', o.number)
      from o
    )
    select oj.json, (select pg_notify($51, q.event_id)
  from (select d.event_id from d where d.status = 'PENDING' limit 1) q) as notified from oj
