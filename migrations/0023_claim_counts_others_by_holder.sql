-- A claim (src/webhook-delivery/outbox.repository.ts) counts an endpoint's attempts in flight
-- under the endpoint's lock. A lease names its holder (`leased_by`, migrations/0014), so the claim
-- no longer hands over lists of the dispatcher's own delivery ids to leave out of that count (issue
-- 26 item 1): it counts here every other holder's leases, and its own by the numbers the dispatcher
-- passes (its POSTs in flight per endpoint; its reserve and its sent deliveries are not in flight).
-- Like webhook_in_flight (migrations/0010) this is a VOLATILE function, so the count runs with a
-- snapshot taken after the lock: it sees every claim of the endpoint committed before it.
--
-- Returns how many of the endpoint's PENDING deliveries are leased (a claim token, a lease not
-- ended at `p_at`) by a holder other than `p_holder` (a lease without a holder counts too), at
-- most `p_cap`. webhook_in_flight stays for dispatchers of the previous release still running
-- during a rolling upgrade; a later migration drops it.
CREATE FUNCTION "webhook_leases_of_others"(
  p_webhook_id text, p_at timestamptz, p_holder text, p_cap integer
) RETURNS integer LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  n integer;
BEGIN
  SELECT count(*) INTO n FROM (
    SELECT 1 FROM webhook_deliveries b
    WHERE b.webhook_id = p_webhook_id AND b.status = 'PENDING'
      AND b.next_attempt_at > p_at AND b.claim_token IS NOT NULL
      AND b.leased_by IS DISTINCT FROM p_holder
    ORDER BY b.webhook_id, b.next_attempt_at
    LIMIT p_cap) f;
  RETURN n;
END
$$;
