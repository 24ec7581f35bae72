-- A shop's newest orders, at most p_limit, in the order list's order (updated_at, then id, both
-- descending): the first page of the list (src/modules/orders/orders.repository.ts) reads them
-- here, so that every shop's page is read from orders_vendor_updated_idx in order and the read
-- stops after the page.
--
-- The first page's statement is planned once per connection, for no shop in particular: PostgreSQL
-- plans it for a shop of the average size. Where most shops are small and their orders lie spread
-- over the table, reading a few orders through a bitmap and sorting them looks cheaper than
-- reading them in the index's order, and the plan kept read and sorted every order of a shop with
-- thousands. A Sort is never worth it here (the index gives the order, and the limit bounds the
-- read), so this function plans its one statement with sorts and bitmap scans disabled; JIT is
-- off because a disabled path costs ~1e10, enough to compile a plan that runs in microseconds.
-- PL/pgSQL keeps the statement's plan for the session: a SQL function would plan it every call.
CREATE FUNCTION "vendor_newest_orders"(p_vendor_id text, p_limit integer)
RETURNS SETOF orders LANGUAGE plpgsql STABLE ROWS 101
SET enable_sort = off SET enable_bitmapscan = off SET jit = off
AS $$
BEGIN
  RETURN QUERY
    SELECT * FROM orders o
    WHERE o.vendor_id = p_vendor_id
    ORDER BY o.updated_at DESC NULLS LAST, o.id DESC NULLS LAST
    LIMIT p_limit;
END
$$;
