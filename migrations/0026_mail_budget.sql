DROP INDEX "mails_due_idx";--> statement-breakpoint
ALTER TABLE "mails" ADD COLUMN "held_reason" text;--> statement-breakpoint
ALTER TABLE "mails" ADD COLUMN "queued_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "vendors" ADD COLUMN "email_confirmed_at" timestamp (3) with time zone DEFAULT now();--> statement-breakpoint
CREATE INDEX "mails_vendor_queued_idx" ON "mails" USING btree ("vendor_id","queued_at") WHERE "mails"."queued_at" is not null;--> statement-breakpoint
CREATE INDEX "mails_due_idx" ON "mails" USING btree ("next_attempt_at") WHERE "mails"."status" in ('PENDING', 'HELD');