-- list_orders_first_page_version: written by `npm run sql:snapshots` from the code; do not edit.
-- Parameters: $1 vendorId, $2 limit
with r as (
      select id, "updatedAt", "customerUpdatedAt", rn from (
        select o.id, o.updated_at as "updatedAt", c.updated_at as "customerUpdatedAt",
               row_number() over (order by o.updated_at desc nulls last, o.id desc nulls last) as rn
        from orders o left join customers c on c.id = o.customer_id
        where o.vendor_id = (select $1::text)
        order by o.updated_at desc nulls last, o.id desc nulls last
        limit 101
      ) rows where rn <= $2::int + 1) select md5(coalesce(string_agg(r.id || '|' || r."updatedAt"::text || '|' || coalesce(r."customerUpdatedAt"::text, ''), ',' order by r.rn), '')) as version from r
