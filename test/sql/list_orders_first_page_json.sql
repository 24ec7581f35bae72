-- list_orders_first_page_json: written by `npm run sql:snapshots` from the code; do not edit.
-- Parameters: $1 vendorId, $2 limit, $3 limit, $4 limit, $5 limit
with p as (select ('{"id":'::text || coalesce(to_json(o.id)::text, 'null') || ',"type":'::text || coalesce(to_json(o.type)::text, 'null') || ',"status":'::text || coalesce(to_json(o.status)::text, 'null') || ',"model":'::text || coalesce(to_json(o.model)::text, 'null') || ',"size":'::text || coalesce(to_json(o.size)::text, 'null') || ',"color":'::text || coalesce(to_json(o.color)::text, 'null') || ',"description":'::text || coalesce(to_json(o.description)::text, 'null') || ',"specialRequests":'::text || coalesce(to_json(o.special_requests)::text, 'null') || ',"customerId":'::text || coalesce(to_json(o.customer_id)::text, 'null') || ',"customer":'::text || coalesce(case when c.id is null then null else ('{"name":'::text || coalesce(to_json(c.name)::text, 'null') || ',"email":'::text || coalesce(to_json(c.email)::text, 'null') || '}') end, 'null') || ',"updates":'::text || coalesce(coalesce((select '[' || string_agg(('{"status":'::text || coalesce(to_json(u.status)::text, 'null') || ',"message":'::text || coalesce(to_json(u.message)::text, 'null') || ',"imageUrl":'::text || coalesce(to_json(u.image_url)::text, 'null') || ',"createdAt":'::text || coalesce(to_json(to_char(u.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text, 'null') || '}'), ',' order by u.seq) || ']' from order_updates u where u.order_id = o.id), '[]'), 'null') || ',"createdAt":'::text || coalesce(to_json(to_char(o.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text, 'null') || ',"updatedAt":'::text || coalesce(to_json(to_char(o.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text, 'null') || '}') as json, o.id as "id", o.updated_at as "updatedAt", c.updated_at as "customerUpdatedAt"
        from orders o left join customers c on c.id = o.customer_id
        where o.vendor_id = (select $1::text)
        order by o.updated_at desc nulls last, o.id desc nulls last
        limit $2::int + 1),
    r as (select json, id, "updatedAt", "customerUpdatedAt", row_number() over (order by "updatedAt" desc, id desc) as rn from p)
    select coalesce(string_agg(json, ',' order by rn) filter (where rn <= $3::int), '') as json,
           count(*)::int as n,
           max(id) filter (where rn = $4::int) as last_id,
           to_char(max("updatedAt") filter (where rn = $5::int) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as last_t,
           md5(coalesce(string_agg(id || '|' || "updatedAt"::text || '|' || coalesce("customerUpdatedAt"::text, ''), ',' order by rn), '')) as version
    from r
