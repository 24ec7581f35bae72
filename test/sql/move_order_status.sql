-- move_order_status: written by `npm run sql:snapshots` from the code; do not edit.
-- Parameters: $1 vendorId, $2 id, $3 to, $4 at, $5 at, $6 at, $7 allowedFrom, $8 to, $9 message, $10 imageUrl, $11 vendorId, $12 photoIds, $13 eventId, $14 undefined, $15 to, $16 message, $17 imageUrl, $18 photos, $19 to, $20 mailId, $21 undefined, $22 undefined, $23 to, $24 message, $25 photos, $26 mailToken, $27 mailTokenHash, $28 mailId, $29 to, $30 activityId, $31 actorKind, $32 actorId, $33 actorKind, $34 actorId, $35 actorId, $36 actorId, $37 undefined, $38 to, $39 undefined, $40 undefined
with cur as (
      select o.id, o.status, o.type from orders o
      where o.vendor_id = $1::text and o.id = $2::text
      for update
    ), u as (
      update orders o
      set status = $3::text,
          updated_at = greatest((case when $4::timestamptz < statement_timestamp() - interval '1 hour'
             then $5::timestamptz
             else greatest($6::timestamptz, date_trunc('milliseconds', statement_timestamp())) end), o.updated_at + interval '1 millisecond')
      from cur
      where o.id = cur.id and (cur.type || ':' || cur.status) = any($7::text[])
      returning o.*, cur.status as previous_status
    ), h as (
      insert into order_updates (order_id, status, message, image_url, created_at)
      select u.id, $8::text, $9::text, $10::text, u.updated_at from u
      returning order_id, status, message, image_url, created_at, seq
    ), ph as (
      update order_photos p set update_seq = h.seq from h
      where p.vendor_id = $11::text and p.order_id = h.order_id
        and p.id = any($12::text[]) and p.update_seq is null
      returning p.id
    ), ev as (
      insert into events (id, vendor_id, type, data, created_at, dispatched_at, target_webhook_id)
      select s.id, s.vendor_id, s.type, s.data, s.created_at, s.created_at, s.target_webhook_id
      from (select $13::text as id, u.vendor_id::text as vendor_id, $14::text as type,
                    jsonb_build_object('id', u.id, 'number', u.number, 'status', $15::text, 'previousStatus', u.previous_status,
    'customerId', u.customer_id, 'externalId', u.external_id, 'metadata', coalesce(u.metadata, '{}'::jsonb),
    'updatedAt', to_char(u.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'message', $16::text, 'imageUrl', $17::text, 'photos', $18::jsonb) as data, u.updated_at as created_at, null::text as target_webhook_id
             from u where u.previous_status <> $19::text) s
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
    ), m as (
      insert into mails (id, vendor_id, customer_id, inquiry_id, kind, to_address, data, secret,
                         unsubscribe_token_hash, status, attempts, next_attempt_at, created_at)
      select s.id, s.vendor_id, s.customer_id, s.inquiry_id, s.kind, s.to_address, s.data, s.secret,
             s.unsubscribe_token_hash, 'PENDING', 0, s.created_at, s.created_at
      from (select $20::text as id, v.id as vendor_id, c.id as customer_id, null::text as inquiry_id,
      $21::text as kind, c.email as to_address,
      jsonb_build_object('shopName', v.name, 'contactEmail', v.contact_email, 'replyTo', case when v.email_confirmed_at is not null and v.contact_email is not null
      and (lower(v.contact_email) = lower(v.email)
           or lower(v.contact_email) = lower(v.notification_email)
           or exists (select 1 from members mm where lower(mm.email) = lower(v.contact_email) and mm.vendor_id = v.id))
      then v.contact_email end,
                         'timeZone', v.time_zone, 'customerName', c.name, 'customerEmail', c.email,
                         'language', coalesce(c.language, v.language),
                         'brand', jsonb_build_object('logoUrl', v.brand_logo_url, 'accentColor', v.brand_accent_color,
                                                     'address', v.address, 'phone', v.phone, 'signature', v.mail_signature),
                         'wording', (select jsonb_build_object('subject', w.subject, 'opening', w.opening)
                                     from mail_wordings w
                                     where w.vendor_id = v.id and w.kind = $22::text
                                       and w.language = coalesce(c.language, v.language)),
                         'address', v.address)
        || jsonb_build_object('number', u.number, 'orderType', u.type, 'model', u.model, 'status', $23::text,
                                      'message', $24::text, 'trackingToken', u.tracking_token,
                                      'photos', $25::jsonb) as data,
      $26::text as secret, $27::text as unsubscribe_token_hash, u.updated_at as created_at
      
    from u join vendors v on v.id = u.vendor_id join customers c on c.id = u.customer_id
                  where $28::text is not null and u.previous_status <> $29::text and v.customer_mail and v.sandbox_of is null and c.email is not null and c.mail_unsubscribed_at is null) s
      returning id
    ), act as (
      insert into activity (id, vendor_id, at, actor_kind, actor_id, actor_name, action, subject_id, detail)
      select $30::text, u.vendor_id::text, u.updated_at, $31::text, $32::text,
             case $33::text
      when 'api_key' then (select k.name from api_keys k where k.id = $34::text and k.vendor_id = u.vendor_id::text)
      when 'oauth_app' then (select a.name from applications a where a.client_id = $35::text)
      when 'person' then (select coalesce(nullif(m.name, ''), m.email) from members m where m.id = $36::text and m.vendor_id = u.vendor_id::text)
    end,
             $37::text, u.id::text, jsonb_build_object('number', u.number, 'from', u.previous_status, 'to', $38::text)
      from u
    )
    select cur.status, cur.type, exists (select 1 from u) as moved,
           (select to_char(u.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') from u) as updated_at,
           (select u.customer_id from u) as customer_id,
           (select c.name from u join customers c on c.id = u.customer_id) as customer_name,
           (select c.email from u join customers c on c.id = u.customer_id) as customer_email,
           (select pg_notify($39, q.event_id)
  from (select d.event_id from d where d.status = 'PENDING' limit 1) q) as notified, (select pg_notify($40, '') from (select 1 from m limit 1) q) as mail_notified from cur
