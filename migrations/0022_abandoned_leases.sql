-- A lease that ended without its attempt being recorded (its dispatcher was killed, or lost its
-- database) used to leave the delivery due at the lease's end: behind every delivery queued for
-- the endpoint before then, sent after a whole backlog (issue 31). The dispatchers now put such a
-- delivery back at its place in the queue (src/webhook-delivery/outbox.repository.ts
-- requeueAbandoned); this index holds the leases only, so finding the ended ones never reads the
-- backlog.
CREATE INDEX "webhook_deliveries_leased_idx" ON "webhook_deliveries" USING btree ("next_attempt_at") WHERE "webhook_deliveries"."status" = 'PENDING' and "webhook_deliveries"."claim_token" is not null;