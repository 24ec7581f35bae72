-- insert_order_for_customer: written by `npm run sql:snapshots` from the code; do not edit.
-- Parameters: $1 at, $2 at, $3 at, $4 externalId, $5 vendorId, $6 externalId, $7 vendorId, $8 linkId, $9 linkId, $10 customerEmail, $11 vendorId, $12 customerEmail, $13 linkId, $14 customerPhoneE164, $15 vendorId, $16 customerPhoneE164, $17 customerEmail, $18 customerId, $19 vendorId, $20 customerName, $21 customerEmail, $22 customerPhoneNew, $23 customerPhoneE164, $24 customerWeddingDate, $25 linkId, $26 vendorId, $27 orderId, $28 vendorId, $29 type, $30 model, $31 size, $32 color, $33 description, $34 specialRequests, $35 customerPhone, $36 weddingDate, $37 trackingToken, $38 externalId, $39 metadata, $40 dueDate, $41 pickupDate, $42 dueBackDate, $43 customerEventId, $44 vendorId, $45 undefined, $46 orderEventId, $47 vendorId, $48 undefined, $49 activityId, $50 actorKind, $51 actorId, $52 actorKind, $53 actorId, $54 actorId, $55 actorId, $56 undefined, $57 undefined
with t as (select (case when $1::timestamptz < statement_timestamp() - interval '1 hour'
             then $2::timestamptz
             else greatest($3::timestamptz, date_trunc('milliseconds', statement_timestamp())) end) as at), ext as (
      select 1 from orders x
      where $4::text is not null and x.vendor_id = $5::text
        and x.external_id = $6::text
    ), found as (
      (select c.id, c.name, c.email, c.wedding_date from customers c
       where c.vendor_id = $7::text and c.id = $8::text)
      union all
      (select c.id, c.name, c.email, c.wedding_date from customers c
       where $9::text is null and $10::text is not null
         and c.vendor_id = $11::text and lower(c.email) = lower($12::text)
       limit 1)
      union all
      (select c.id, c.name, c.email, c.wedding_date from customers c
       where $13::text is null and $14::text is not null
         and c.vendor_id = $15::text and c.phone_e164 = $16::text
         and (c.email is null or $17::text is null)
       order by c.created_at, c.id
       limit 1)
      limit 1
    ), nc as (
      insert into customers (id, vendor_id, name, email, phone, phone_e164, wedding_date, created_at, updated_at)
      select $18::text, $19::text, $20::text, $21::text,
             $22::text, $23::text, $24::date, (select at from t), (select at from t)
      where $25::text is null and not exists (select 1 from found) and not exists (select 1 from ext)
      on conflict do nothing
      returning *
    ), c as (
      select id, name, email, wedding_date from nc
      union all select id, name, email, wedding_date from found where not exists (select 1 from ext)
    ), num as (
      update vendors set last_order_number = last_order_number + 1
      where id = $26::text and exists (select 1 from c)
      returning last_order_number as number
    ), o as (
      insert into orders (id, vendor_id, customer_id, number, type, status, model, size, color, description,
                          special_requests, customer_phone, wedding_date, tracking_token, external_id, metadata,
                          due_date, pickup_date, due_back_date, created_at, updated_at)
      select $27::text, $28::text, c.id, num.number, $29::text, 'ORDERED', $30::text,
             $31::text, $32::text, $33::text, $34::text,
             $35::text, $36::date, $37::text, $38::text,
             $39::jsonb, $40::date, $41::date, $42::date, (select at from t), (select at from t)
      from c cross join num
      returning *
    ), h as (
      insert into order_updates (order_id, status, message, created_at)
      select o.id, 'ORDERED', 'Order created', (select at from t) from o
      returning order_id, seq, status, message, image_url, created_at
    ), oj as (
      select ('{"id":'::text || coalesce(to_json(o.id)::text, 'null') || ',"number":'::text || coalesce(to_json(o.number)::text, 'null') || ',"type":'::text || coalesce(to_json(o.type)::text, 'null') || ',"status":'::text || coalesce(to_json(o.status)::text, 'null') || ',"model":'::text || coalesce(to_json(o.model)::text, 'null') || ',"size":'::text || coalesce(to_json(o.size)::text, 'null') || ',"color":'::text || coalesce(to_json(o.color)::text, 'null') || ',"description":'::text || coalesce(to_json(o.description)::text, 'null') || ',"specialRequests":'::text || coalesce(to_json(o.special_requests)::text, 'null') || ',"dueDate":'::text || coalesce(to_json(coalesce(o.due_date, coalesce(c.wedding_date, o.wedding_date) - (select coalesce((v.lead_times ->> o.type)::int, case o.type when 'BRIDAL_DRESS' then 56 when 'SUIT' then 28 when 'RENTAL' then 7 end) from vendors v where v.id = o.vendor_id)))::text, 'null') || ',"pickupDate":'::text || coalesce(to_json(o.pickup_date)::text, 'null') || ',"dueBackDate":'::text || coalesce(to_json(o.due_back_date)::text, 'null') || ',"customerId":'::text || coalesce(to_json(o.customer_id)::text, 'null') || ',"customer":'::text || coalesce(case when c.id is null then null else ('{"name":'::text || coalesce(to_json(c.name)::text, 'null') || ',"email":'::text || coalesce(to_json(c.email)::text, 'null') || '}') end, 'null') || ',"externalId":'::text || coalesce(to_json(o.external_id)::text, 'null') || ',"metadata":'::text || coalesce(coalesce((select '{' || string_agg(to_json(m.key)::text || ':' || to_json(m.value)::text, ',') || '}'
                    from jsonb_each_text(o.metadata) m), '{}'), 'null') || ',"updates":'::text || coalesce(coalesce((select '[' || string_agg(('{"status":'::text || coalesce(to_json(u.status)::text, 'null') || ',"message":'::text || coalesce(to_json(u.message)::text, 'null') || ',"imageUrl":'::text || coalesce(to_json(u.image_url)::text, 'null') || ',"photos":'::text || coalesce(coalesce((select '[' || string_agg(('{"id":'::text || coalesce(to_json(p.id)::text, 'null') || ',"url":'::text || coalesce(to_json(p.url)::text, 'null') || ',"thumbnailUrl":'::text || coalesce(to_json(p.thumbnail_url)::text, 'null') || '}'), ',' order by p.created_at, p.id) || ']' from order_photos p where p.update_seq = u.seq), '[]'), 'null') || ',"createdAt":'::text || coalesce(to_json(to_char(u.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text, 'null') || '}'), ',' order by u.seq) || ']' from h u where u.order_id = o.id), '[]'), 'null') || ',"createdAt":'::text || coalesce(to_json(to_char(o.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text, 'null') || ',"updatedAt":'::text || coalesce(to_json(to_char(o.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text, 'null') || '}') as json from o join c on c.id = o.customer_id
    ), ev as (
      insert into events (id, vendor_id, type, data, created_at, dispatched_at, target_webhook_id)
      select s.id, s.vendor_id, s.type, s.data, s.created_at, s.created_at, s.target_webhook_id
      from (select $43::text as id, $44::text as vendor_id, $45::text as type,
                    jsonb_build_object('id', nc.id, 'name', nc.name, 'email', nc.email,
    'phone', nc.phone, 'weddingDate', nc.wedding_date, 'language', nc.language, 'notes', nc.notes,
    'measurements', nc.measurements, 'preferences', nc.preferences,
    'externalId', nc.external_id, 'metadata', nc.metadata,
    'createdAt', to_char(nc.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'updatedAt', to_char(nc.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) as data, (select at from t) as created_at, null::text as target_webhook_id
             from nc
      union all
      select $46::text as id, $47::text as vendor_id, $48::text as type,
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
      -- A webhook subscribes to the event by its name, or to every event with "*" (CONTRACT 12).
      where case when ev.target_webhook_id is null
              then w.events @> jsonb_build_array(ev.type) or w.events @> '["*"]'::jsonb
              else w.id = ev.target_webhook_id end
      returning event_id, status
    ), act as (
      insert into activity (id, vendor_id, at, actor_kind, actor_id, actor_name, action, subject_id, detail)
      select $49::text, o.vendor_id::text, o.created_at, $50::text, $51::text,
             case $52::text
      when 'api_key' then (select k.name from api_keys k where k.id = $53::text and k.vendor_id = o.vendor_id::text)
      when 'oauth_app' then (select a.name from applications a where a.client_id = $54::text)
      when 'person' then (select coalesce(nullif(m.name, ''), m.email) from members m where m.id = $55::text and m.vendor_id = o.vendor_id::text)
    end,
             $56::text, o.id::text, jsonb_build_object('number', o.number)
      from o
    )
    select (select json from oj) as json, exists (select 1 from ext) as external_id_taken,
      (select (exists (select 1 from jsonb_array_elements(coalesce(v.risk_rules, '[{"status":"FITTING_READY","daysBefore":56},{"status":"READY_FOR_PICKUP","daysBefore":14}]'::jsonb)) r
      where (coalesce(c.wedding_date, o.wedding_date) is not null and coalesce(c.wedding_date, o.wedding_date) - (o.created_at at time zone v.time_zone)::date between 0 and (r ->> 'daysBefore')::int
    and array_position(array['ORDERED','IN_PRODUCTION','FITTING_READY','ALTERATIONS','READY_FOR_PICKUP','PICKED_UP','RETURNED','COMPLETED'], o.status) < array_position(array['ORDERED','IN_PRODUCTION','FITTING_READY','ALTERATIONS','READY_FOR_PICKUP','PICKED_UP','RETURNED','COMPLETED'], r ->> 'status')))
    or (o.type = 'RENTAL' and o.due_back_date < (o.created_at at time zone v.time_zone)::date and not (o.status = any(array['RETURNED','COMPLETED','CANCELLED'])))
    or (o.type = 'RENTAL' and o.due_back_date - (o.created_at at time zone v.time_zone)::date between 0 and 1 and not (o.status = any(array['RETURNED','COMPLETED','CANCELLED'])))) from o join c on c.id = o.customer_id join vendors v on v.id = o.vendor_id) as alerts_due,
      (select pg_notify($57, q.event_id)
  from (select d.event_id from d where d.status = 'PENDING' limit 1) q) as notified
