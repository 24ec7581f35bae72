-- list_orders_first_page_version: written by `npm run sql:snapshots` from the code; do not edit.
-- Parameters: $1 vendorId, $2 limit
with r as (
      select o.id, o."updatedAt", (oc.c).updated_at as "customerUpdatedAt", o.rn from (
        select o.id, o.updated_at as "updatedAt", o.customer_id,
               row_number() over (order by o.updated_at desc nulls last, o.id desc nulls last) as rn
        from vendor_newest_orders((select $1::text), 101) o
      ) o left join lateral (select c from customers c where c.id = o.customer_id offset 0) oc on true
      where o.rn <= $2::int + 1) select md5(coalesce(string_agg(r.id || '|' || r."updatedAt"::text || '|' || coalesce(r."customerUpdatedAt"::text, ''), ',' order by r.rn), '')) as version from r
