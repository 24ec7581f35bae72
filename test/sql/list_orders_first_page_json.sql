-- list_orders_first_page_json: written by `npm run sql:snapshots` from the code; do not edit.
-- Parameters: $1 vendorId, $2 limit, $3 limit, $4 limit, $5 limit, $6 limit
with r as (
      select o.id, o."updatedAt", (oc.c).updated_at as "customerUpdatedAt", o.rn, o.ro, oc.c as rc from (
        select o.id, o.updated_at as "updatedAt", o.customer_id, o as ro,
               row_number() over (order by o.updated_at desc nulls last, o.id desc nulls last) as rn
        from vendor_newest_orders((select $1::text), 101) o
      ) o left join lateral (select c from customers c where c.id = o.customer_id offset 0) oc on true
      where o.rn <= $2::int + 1)
    select coalesce(string_agg(j.json, ',' order by r.rn) filter (where r.rn <= $3::int), '') as json,
           count(*)::int as n,
           max(r.id) filter (where r.rn = $4::int) as last_id,
           to_char(max(r."updatedAt") filter (where r.rn = $5::int) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as last_t,
           md5(coalesce(string_agg(r.id || '|' || r."updatedAt"::text || '|' || coalesce(r."customerUpdatedAt"::text, ''), ',' order by r.rn), '')) as version
    from r left join lateral (
      select ('{"id":'::text || coalesce(to_json(o.id)::text, 'null') || ',"number":'::text || coalesce(to_json(o.number)::text, 'null') || ',"type":'::text || coalesce(to_json(o.type)::text, 'null') || ',"status":'::text || coalesce(to_json(o.status)::text, 'null') || ',"model":'::text || coalesce(to_json(o.model)::text, 'null') || ',"size":'::text || coalesce(to_json(o.size)::text, 'null') || ',"color":'::text || coalesce(to_json(o.color)::text, 'null') || ',"description":'::text || coalesce(to_json(o.description)::text, 'null') || ',"specialRequests":'::text || coalesce(to_json(o.special_requests)::text, 'null') || ',"dueDate":'::text || coalesce(to_json(coalesce(o.due_date, coalesce(c.wedding_date, o.wedding_date) - (select coalesce((v.lead_times ->> o.type)::int, case o.type when 'BRIDAL_DRESS' then 56 when 'SUIT' then 28 when 'RENTAL' then 7 end) from vendors v where v.id = o.vendor_id)))::text, 'null') || ',"pickupDate":'::text || coalesce(to_json(o.pickup_date)::text, 'null') || ',"dueBackDate":'::text || coalesce(to_json(o.due_back_date)::text, 'null') || ',"customerId":'::text || coalesce(to_json(o.customer_id)::text, 'null') || ',"customer":'::text || coalesce(case when c.id is null then null else ('{"name":'::text || coalesce(to_json(c.name)::text, 'null') || ',"email":'::text || coalesce(to_json(c.email)::text, 'null') || '}') end, 'null') || ',"externalId":'::text || coalesce(to_json(o.external_id)::text, 'null') || ',"metadata":'::text || coalesce(coalesce((select '{' || string_agg(to_json(m.key)::text || ':' || to_json(m.value)::text, ',') || '}'
                    from jsonb_each_text(o.metadata) m), '{}'), 'null') || ',"updates":'::text || coalesce(coalesce((select '[' || string_agg(('{"status":'::text || coalesce(to_json(u.status)::text, 'null') || ',"message":'::text || coalesce(to_json(u.message)::text, 'null') || ',"imageUrl":'::text || coalesce(to_json(u.image_url)::text, 'null') || ',"photos":'::text || coalesce(coalesce((select '[' || string_agg(('{"id":'::text || coalesce(to_json(p.id)::text, 'null') || ',"url":'::text || coalesce(to_json(p.url)::text, 'null') || ',"thumbnailUrl":'::text || coalesce(to_json(p.thumbnail_url)::text, 'null') || '}'), ',' order by p.created_at, p.id) || ']' from order_photos p where p.update_seq = u.seq), '[]'), 'null') || ',"createdAt":'::text || coalesce(to_json(to_char(u.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text, 'null') || '}'), ',' order by u.seq) || ']' from order_updates u where u.order_id = o.id), '[]'), 'null') || ',"createdAt":'::text || coalesce(to_json(to_char(o.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text, 'null') || ',"updatedAt":'::text || coalesce(to_json(to_char(o.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text, 'null') || '}') as json
      from (select (r.ro).*) o, (select (r.rc).*) c
      where r.rn <= $6::int
      offset 0
    ) j on true
