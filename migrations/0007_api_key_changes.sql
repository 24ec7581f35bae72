-- API processes keep verified keys in memory (src/modules/api-keys/verified-keys.ts). A key's
-- row changes only when it is revoked, or deleted with its vendor; whatever makes the change (the
-- API, the dashboard, the CLI, an operator's own SQL), this trigger tells every process on commit.
CREATE FUNCTION "notify_api_key_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('api_key_changes', OLD.id);
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "api_key_changes" AFTER UPDATE OF "revoked_at", "scopes", "key_hash", "vendor_id" OR DELETE ON "api_keys"
  FOR EACH ROW EXECUTE FUNCTION "notify_api_key_change"();
