CREATE TABLE "event_stream_shops" (
	"vendor_id" text PRIMARY KEY NOT NULL,
	"until" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "event_stream_shops" ADD CONSTRAINT "event_stream_shops_vendor_id_vendors_id_fk" FOREIGN KEY ("vendor_id") REFERENCES "public"."vendors"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Open event streams (src/modules/events/stream-wake-ups.ts) sleep until told: every API process
-- LISTENs, and these triggers tell it on commit, whatever made the change (the API, the
-- dashboard, the CLI, an operator's own SQL).
--
-- A new event wakes the streams of its shop: one notification per shop per statement (PostgreSQL
-- folds identical ones within a transaction), so the streams need not poll the events table. Only
-- for a shop with a stream open somewhere (event_stream_shops, leased by the API processes): a
-- NOTIFY holds a lock of the whole cluster through its transaction's commit, which cost order
-- creates about a third of their rate when every event notified.
CREATE FUNCTION "notify_events_written"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('events_written', v.vendor_id)
    FROM (SELECT DISTINCT n.vendor_id FROM new_events n) v
    WHERE EXISTS (SELECT 1 FROM event_stream_shops s WHERE s.vendor_id = v.vendor_id AND s.until > now());
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "events_written" AFTER INSERT ON "events"
  REFERENCING NEW TABLE AS new_events
  FOR EACH STATEMENT EXECUTE FUNCTION "notify_events_written"();--> statement-breakpoint
-- A stream ends with its credential (CONTRACT 12). API keys already notify 'api_key_changes'
-- (0007); an OAuth grant, or an access token under it, revoked, expired early, rescoped or deleted
-- (with its shop, its application) notifies its grant's id, and the streams under that grant check
-- their token again.
CREATE FUNCTION "notify_oauth_grant_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'oauth_grants' THEN
    PERFORM pg_notify('oauth_grant_changes', OLD.id);
  ELSE
    PERFORM pg_notify('oauth_grant_changes', OLD.grant_id);
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "oauth_grant_changes" AFTER UPDATE OF "revoked_at", "scopes", "vendor_id" OR DELETE ON "oauth_grants"
  FOR EACH ROW EXECUTE FUNCTION "notify_oauth_grant_change"();--> statement-breakpoint
CREATE TRIGGER "oauth_access_token_changes" AFTER UPDATE OF "revoked_at", "expires_at", "scopes", "grant_id" OR DELETE ON "oauth_access_tokens"
  FOR EACH ROW EXECUTE FUNCTION "notify_oauth_grant_change"();
