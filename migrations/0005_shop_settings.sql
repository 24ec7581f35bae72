ALTER TABLE "inquiries" ADD COLUMN "handled_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "vendors" ADD COLUMN "contact_email" text;--> statement-breakpoint
ALTER TABLE "vendors" ADD COLUMN "time_zone" text DEFAULT 'UTC' NOT NULL;