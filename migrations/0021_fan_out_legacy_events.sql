-- Events written before fan-out moved into enqueueEvent (dispatched_at null) get their deliveries
-- here, once, as the dispatcher's legacy fan-out gave them (retired with this migration): one
-- PENDING delivery, due now, per ACTIVE endpoint of the vendor subscribed to the type (a
-- `webhook.test` event: its one target, whatever its state), one SKIPPED per DISABLED one (kept
-- for `recover`), and the event marked dispatched. Every event written since has its deliveries
-- from the statement that wrote it (src/outbox/enqueue.ts).
with legacy as (
  select id, vendor_id, type, target_webhook_id from events where dispatched_at is null for update
), fanned_out as (
  insert into webhook_deliveries
    (id, webhook_id, vendor_id, event_id, event_type, status, next_attempt_at, created_at, updated_at)
  select 'd' || substr(md5(random()::text || e.id || w.id), 1, 23), w.id, e.vendor_id, e.id, e.type,
         case when e.target_webhook_id is not null or w.status = 'ACTIVE' then 'PENDING' else 'SKIPPED' end,
         case when e.target_webhook_id is not null or w.status = 'ACTIVE' then now() end,
         now(), now()
  from legacy e
  join webhooks w on w.vendor_id = e.vendor_id
   and (case when e.target_webhook_id is not null then w.id = e.target_webhook_id
             else w.events ? e.type end)
  returning 1
)
update events set dispatched_at = now() where id in (select id from legacy);
