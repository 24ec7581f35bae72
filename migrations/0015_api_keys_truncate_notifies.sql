-- TRUNCATE api_keys fires no row trigger, so the api_key_changes trigger (0007) told no process
-- and every API process kept trusting the keys it held (issue 24 item 6). A statement-level
-- trigger sends an empty payload, which verified-keys.ts reads as "anything may have changed".
CREATE FUNCTION "notify_api_keys_truncated"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('api_key_changes', '');
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "api_keys_truncated" AFTER TRUNCATE ON "api_keys"
  FOR EACH STATEMENT EXECUTE FUNCTION "notify_api_keys_truncated"();
