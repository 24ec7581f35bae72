-- A claim (src/webhook-delivery/outbox.repository.ts) locks an endpoint's webhook row, then counts
-- the endpoint's attempts in flight to work out its free slots. In one statement, under READ
-- COMMITTED, that count would read the statement's snapshot, taken before the lock: a claim that
-- started while another dispatcher's claim of the same endpoint was committing got the lock just
-- after it and did not see its leases, so the two together sent up to twice the endpoint's cap
-- (test/webhooks/slot-handoff.test.ts). A VOLATILE function takes a fresh snapshot for each query
-- it runs, here after the lock is held, so the count sees every claim committed before it.
--
-- Returns {in flight, mine}: the endpoint's leased PENDING deliveries other than `p_not_posting`
-- (at most `p_cap` are counted), and, read in the same snapshot, how many of `p_posting` (the
-- claiming dispatcher's own POSTs in flight when it asked) are still leased: the slots the count
-- saw as taken by that dispatcher, which it may fill again however its POSTs ended meanwhile.
CREATE FUNCTION "webhook_in_flight"(
  p_webhook_id text, p_at timestamptz, p_not_posting jsonb, p_posting jsonb, p_cap integer
) RETURNS integer[] LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  n integer;
  mine integer;
BEGIN
  SELECT
    (SELECT count(*) FROM (
       SELECT 1 FROM webhook_deliveries b
       WHERE b.webhook_id = p_webhook_id AND b.status = 'PENDING'
         AND b.next_attempt_at > p_at AND b.claim_token IS NOT NULL
         AND b.id <> ALL (SELECT jsonb_array_elements_text(p_not_posting))
       ORDER BY b.webhook_id, b.next_attempt_at
       LIMIT p_cap) f),
    (SELECT count(*) FROM webhook_deliveries m
     WHERE m.id IN (SELECT jsonb_array_elements_text(p_posting))
       AND m.webhook_id = p_webhook_id AND m.status = 'PENDING'
       AND m.next_attempt_at > p_at AND m.claim_token IS NOT NULL)
  INTO n, mine;
  RETURN ARRAY[n, mine];
END
$$;
