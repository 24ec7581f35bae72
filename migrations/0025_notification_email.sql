CREATE TABLE "notification_email_changes" (
	"id" text PRIMARY KEY NOT NULL,
	"vendor_id" text NOT NULL,
	"email" text NOT NULL,
	"token_hash" text NOT NULL,
	"requested_by" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"used_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "vendors" ADD COLUMN "notification_email" text;--> statement-breakpoint
ALTER TABLE "vendors" ADD COLUMN "notification_email_moved_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "notification_email_changes" ADD CONSTRAINT "notification_email_changes_vendor_id_vendors_id_fk" FOREIGN KEY ("vendor_id") REFERENCES "public"."vendors"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_email_changes" ADD CONSTRAINT "notification_email_changes_requested_by_members_id_fk" FOREIGN KEY ("requested_by") REFERENCES "public"."members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "notification_email_changes_token_hash_key" ON "notification_email_changes" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "notification_email_changes_vendor_idx" ON "notification_email_changes" USING btree ("vendor_id");--> statement-breakpoint
CREATE INDEX "notification_email_changes_requested_by_idx" ON "notification_email_changes" USING btree ("requested_by");--> statement-breakpoint
-- Data migration (added by hand): a shop whose founding owner was already removed or demoted
-- kept mailing them its inquiries; its notifications move to its first remaining owner now, and
-- Settings says so (notification_email_moved_at). A sandbox gets no mail and is left alone.
UPDATE "vendors" v SET
  "notification_email" = (SELECT m."email" FROM "members" m WHERE m."vendor_id" = v."id" AND m."role" = 'owner'
                          ORDER BY m."created_at", m."id" LIMIT 1),
  "notification_email_moved_at" = now()
WHERE v."sandbox_of" IS NULL AND v."notification_email" IS NULL
  AND EXISTS (SELECT 1 FROM "members" m WHERE m."vendor_id" = v."id" AND m."role" = 'owner')
  AND NOT EXISTS (SELECT 1 FROM "members" m WHERE m."vendor_id" = v."id" AND m."role" = 'owner'
                  AND lower(m."email") = lower(v."email"));
