CREATE TABLE "activity" (
	"id" text PRIMARY KEY NOT NULL,
	"vendor_id" text NOT NULL,
	"at" timestamp (3) with time zone NOT NULL,
	"actor_kind" text NOT NULL,
	"actor_id" text,
	"actor_name" text,
	"action" text NOT NULL,
	"subject_id" text,
	"detail" jsonb
);
--> statement-breakpoint
ALTER TABLE "activity" ADD CONSTRAINT "activity_vendor_id_vendors_id_fk" FOREIGN KEY ("vendor_id") REFERENCES "public"."vendors"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "activity_vendor_at_idx" ON "activity" USING btree ("vendor_id","at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "activity_at_idx" ON "activity" USING btree ("at");